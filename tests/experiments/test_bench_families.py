"""bench_families.py end to end on tiny data: every family's row, the verdict and the headroom line."""

from __future__ import annotations

import argparse

import pytest
from rich.console import Console

from tests.helpers import load_experiment, write_ner


@pytest.mark.slow  # a whole tiny run with fine-tuning: ~40 s idle, the runner test covers the same path fast
def test_the_table_has_every_family_and_the_headroom_line(
    tmp_path, tiny_bert_dir, tiny_vectors_file, monkeypatch
):
    bench = load_experiment("bench_families")
    for i, (part, n) in enumerate((("train", 40), ("dev", 10), ("test", 12))):
        write_ner(tmp_path / f"{part}.conll", n, i)
    tiny = {"task": "ner", "data": "train.conll", "dev": "dev.conll", "test": "test.conll"}
    monkeypatch.setattr(bench, "DATASETS", {"tiny": tiny})
    args = argparse.Namespace(
        data=tmp_path,
        out=tmp_path / "out",
        embeddings=["static", "contextual"],
        profile="quick",
        finetune_sizes="full",
        finetune_epochs=1,
        finetune_seeds=None,
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        difficulty=False,
        workers=1,
    )
    console = Console(width=250, record=True)
    bench.bench_dataset("tiny", args, console)
    text = console.export_text()
    rows = {line.split("│")[1].strip() for line in text.splitlines() if line.count("│") > 5}
    assert {"static", "contextual", "finetuned"} <= rows
    assert "headroom: Fine-tuning would" in text and "load average" in text
