"""``advisor run`` with contextual read as a scalar mix: weights per cell, contextuality table, verdict, report."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import client_for, load_analysis, mix_weights_table
from tests.helpers import NewStore

WORDS = "the a of in on with went saw said visited likes works lives good bad".split()
NAMES = {"John": "PER", "Mary": "PER", "Paris": "LOC", "Berlin": "LOC"}


def _ner(path: Path, n: int, seed: int) -> str:
    rng = random.Random(seed)
    blocks = []
    for _ in range(n):
        rows = []
        for _ in range(rng.randint(3, 7)):
            name = rng.choice(list(NAMES))
            rows.append(f"{name}\tB-{NAMES[name]}" if rng.random() < 0.3 else f"{rng.choice(WORDS)}\tO")
        blocks.append("\n".join(rows))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return str(path)


def _settings(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> RunSettings:
    return RunSettings(
        data=_ner(tmp_path / "train.conll", 40, 0),
        task="ner",
        dev=_ner(tmp_path / "dev.conll", 10, 1),
        test=_ner(tmp_path / "test.conll", 12, 2),
        embeddings=["static", "contextual"],
        sizes=[20, 40],
        seeds=2,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        max_steps=2,
        lr=1e-3,  # two steps learn something at this rate; the rate's choice is tests/advisor/pipeline/test_tune.py's
        tracking_uri=new_store(tmp_path),
        experiment="test",
        cache_dir=str(tmp_path / "cache"),
        device="cpu",
        difficulty=False,
        workers=1,
    )


def test_run_logs_mix_weights_per_cell_and_the_contextuality_of_the_encoder(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    settings = _settings(tmp_path, tiny_bert_dir, tiny_vectors_file, new_store)
    assert settings.layer == "mix"
    outcome = run_analysis(settings)
    client = client_for(settings.tracking_uri)
    children = client.search_runs(
        [client.get_run(outcome.run_id).info.experiment_id],
        filter_string=f"tags.`mlflow.parentRunId` = '{outcome.run_id}'",
    )
    for child in children:
        weights = [k for k in child.data.metrics if k.startswith("mix_weight.")]
        if child.data.tags["advisor.embedding"] == "contextual":
            assert sorted(weights) == ["mix_weight.0", "mix_weight.1", "mix_weight.2"]
            assert [m.step for m in client.get_metric_history(child.info.run_id, "mix_weight.1")] == [20, 40]
        else:
            assert weights == []  # static keeps its plain 2-D features and no mix
    files = {a.path for a in client.list_artifacts(outcome.run_id, "analysis")}
    files |= {a.path for a in client.list_artifacts(outcome.run_id, "figures")}
    assert {
        "analysis/contextuality.json",
        "analysis/mix_weights.json",
        "figures/contextuality.png",
        "figures/mix_weights.png",
    } <= files
    analysis = load_analysis(outcome.run_id, settings.tracking_uri)
    assert list(analysis.layer_tables["contextuality"]["layer"]) == [0, 1, 2]
    weights = analysis.layer_tables["mix_weights"]
    assert len(weights) == 2 * 2 * 3  # sizes x seeds x layers
    assert weights.groupby(["size", "seed"])["weight"].sum().round(5).eq(1.0).all()
    verdict = client.download_artifacts(outcome.run_id, "analysis/verdict.json", str(tmp_path))
    reasons = json.loads(Path(verdict).read_text())["reasons"]
    assert any(r.startswith("Contextual measured:") and "learned scalar mix" in r for r in reasons)
    assert any(r.startswith("How contextual the encoder is") for r in reasons)
    report = client.download_artifacts(outcome.run_id, "report/report.md", str(tmp_path))
    text = Path(report).read_text()
    assert "Encoder layers and contextuality" in text and "| anisotropy base |" in text
    for layer in range(3):  # one contextuality row per layer, 0 = the input embeddings
        assert f"\n| {layer} | " in text
    assert "\n| 3 | " not in text


def test_a_resumed_run_tables_the_weights_of_its_own_and_the_earlier_processs_cells(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    """This process's cells come from memory, the earlier process's from the store: together, all."""
    settings = _settings(tmp_path, tiny_bert_dir, tiny_vectors_file, new_store)
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, fail_after=5)
    outcome = run_analysis(settings)
    assert outcome.reused and outcome.computed
    client = client_for(settings.tracking_uri)
    experiment_id = client.get_run(outcome.run_id).info.experiment_id
    stored = mix_weights_table(client, outcome.run_id, experiment_id)  # every child's history
    tabled = load_analysis(outcome.run_id, settings.tracking_uri).layer_tables["mix_weights"]
    assert len(tabled) == 2 * 2 * 3
    pd.testing.assert_frame_equal(
        tabled.reset_index(drop=True), stored.reset_index(drop=True), check_dtype=False, atol=1e-6
    )
