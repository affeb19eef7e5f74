"""bench_sequential.py end to end on a tiny generated dataset (quick profile, tiny encoder and vectors):
both modes run from stores of their own, the table has its columns, an unsupported task is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from tests.helpers import NewStore, load_experiment


def _write(path: Path, n: int, seed: int) -> None:
    """``text,label`` rows whose label one word carries (``yes`` / ``you``), among filler words."""
    import random

    rng, filler = random.Random(seed), "the a of in on with went saw said".split()
    rows = ["text,label"]
    for i in range(n):
        words = [rng.choice(filler) for _ in range(rng.randint(3, 5))]
        words.insert(rng.randrange(len(words) + 1), "yes" if i % 2 else "you")
        rows.append(f"{' '.join(words)},{'pos' if i % 2 else 'neg'}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_the_table_has_both_modes_per_dataset_and_an_unsupported_task_is_skipped(
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store: NewStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = load_experiment("bench_sequential")
    data = tmp_path / "data"
    data.mkdir()
    _write(data / "train.csv", 160, 0)
    _write(data / "test.csv", 80, 1)
    monkeypatch.setitem(
        bench.DATASETS, "tiny", {"task": "classify", "data": "train.csv", "dev": None, "test": "test.csv"}
    )
    monkeypatch.setitem(
        bench.DATASETS, "odd", {"task": "summarize", "data": "train.csv", "dev": None, "test": None}
    )
    console = Console(width=300, record=True)
    argv = [
        "tiny", "odd", "--data", str(data), "--profile", "quick", "--embeddings", "static,contextual",
        "--out", str(tmp_path / "out"), "--workers", "1", "--contextual", str(tiny_bert_dir),
        "--static", str(tiny_vectors_file), "--max-steps", "40", "--lr", "0.01",
    ]  # fmt: skip
    rows = bench.main(argv, console=console)

    assert list(rows.columns) == bench.COLUMNS and list(rows["dataset"]) == ["tiny"]
    row = rows.iloc[0]
    assert row["order"] == "complete then decided"
    assert row["complete cells"] == 12  # quick profile: 3 sizes x 2 seeds x 2 families
    ran, planned = (int(part) for part in row["decided cells"].split(" of "))
    assert planned == 12 and 2 <= ran <= 12
    assert row["complete s"] > 0 and row["decided s"] > 0 and row["first early verdict s"] > 0
    assert row["first early verdict s"] <= row["decided s"]
    featurize, tune, rest = (int(part) for part in row["before it: featurize / tune / rest s"].split(" / "))
    assert tune == 0  # --lr given: no trials
    assert abs(featurize + tune + rest - row["first early verdict s"]) <= 1.5  # whole seconds each
    assert row["same verdict"] == ("yes" if row["complete verdict"] == row["decided verdict"] else "NO")
    for until in ("complete", "decided"):  # separate stores and caches: decided reuses nothing
        assert (tmp_path / "out" / "tiny" / until / "mlflow.db").is_file()
        assert (tmp_path / "out" / "tiny" / until / "cache").is_dir()
    printed = console.export_text()
    assert "skip odd (task summarize): refused before any run: unknown task 'summarize'" in printed
    assert "first early verdict s" in printed and "decided / complete" in printed
    assert (tmp_path / "out" / "sequential.csv").is_file()


def test_the_time_to_the_first_early_verdict_is_split_into_the_encoder_pass_the_trials_and_the_rest() -> None:
    bench = load_experiment("bench_sequential")
    timings = {
        "featurize.static": 0.4,
        "featurize.contextual": 20.2,
        "tune": 170.3,
        "first_early_verdict": 272.0,
    }
    assert bench.before_first(timings | {"train_wall": 500.0}) == "21 / 170 / 81"
    assert bench.before_first({"featurize.static": 1.0}) == ""  # no early verdict was printed
