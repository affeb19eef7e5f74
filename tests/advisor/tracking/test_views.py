"""What the MLflow UI shows: the experiment kind tag, the run description and the dataset inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.data import read_corpus, read_splits
from advisor.errors import ConfigError
from advisor.tracking import (
    DESCRIPTION_TAG,
    EXPERIMENT_KIND,
    EXPERIMENT_KIND_TAG,
    AnalysisTracker,
    dataset_frame,
    log_dataset_inputs,
    require_store,
    set_description,
    store_uri,
)
from tests.helpers import NewStore, write_ner


def test_tracker_tags_the_experiment_and_logs_description_and_inputs(
    tmp_path: Path, new_store: NewStore
) -> None:
    files = {
        p: write_ner(tmp_path / f"{p}.conll", n, i)
        for i, (p, n) in enumerate((("train", 12), ("dev", 4), ("test", 5)))
    }
    splits = read_splits(str(files["train"]), "ner", dev=str(files["dev"]), test=str(files["test"]))
    tracker = AnalysisTracker(new_store(tmp_path), "views")
    tracker.open("key", "run", {}, {})
    log_dataset_inputs(tracker.client, tracker.parent_id, splits, "train.conll")
    set_description(tracker.client, tracker.parent_id, "**Verdict: USE CONTEXTUAL**")
    tracker.close("FINISHED")
    AnalysisTracker(tracker.tracking_uri, "views")  # re-opening the experiment keeps the one tag

    experiment = tracker.client.get_experiment(tracker.experiment_id)
    assert experiment.tags[EXPERIMENT_KIND_TAG] == EXPERIMENT_KIND == "custom_model_development"
    run = tracker.client.get_run(tracker.parent_id)
    assert run.data.tags[DESCRIPTION_TAG] == "**Verdict: USE CONTEXTUAL**"
    inputs = {
        next(t.value for t in d.tags if t.key == "mlflow.data.context"): d.dataset
        for d in run.inputs.dataset_inputs
    }
    assert set(inputs) == {"train", "dev", "test"}
    for part in ("train", "dev", "test"):
        corpus = getattr(splits, part)
        assert inputs[part].digest == corpus.content_hash()[:16]
        assert inputs[part].name == f"{part}.conll ({part})"
        assert str(files[part].resolve()) in inputs[part].source
    assert inputs["train"].digest != inputs["test"].digest


def test_dataset_frame_joins_tokens_and_tags(tmp_path: Path) -> None:
    path = tmp_path / "a.conll"
    path.write_text("John\tB-PER\nran\tO\n\nParis\tB-LOC\n", encoding="utf-8")
    corpus, _ = read_corpus(path, "ner")
    frame = dataset_frame(corpus)
    assert list(frame["text"]) == ["John ran", "Paris"] and list(frame["label"]) == ["B-PER O", "B-LOC"]


def test_store_uri_and_require_store_create_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert store_uri(None) == "sqlite:///mlruns/mlflow.db"
    with pytest.raises(ConfigError, match="no MLflow store at"):
        require_store(None)
    with pytest.raises(ConfigError, match="is not a URI"):
        store_uri("mlruns")
    assert list(tmp_path.iterdir()) == []


def test_test_tokens_are_logged_for_the_item_explorer(tmp_path: Path, new_store: NewStore) -> None:
    from advisor.app import load_test_tokens
    from advisor.tracking import log_test_tokens

    files = {p: write_ner(tmp_path / f"{p}.conll", 12, i) for i, p in enumerate(("train", "dev", "test"))}
    splits = read_splits(str(files["train"]), "ner", dev=str(files["dev"]), test=str(files["test"]))
    tracker = AnalysisTracker(new_store(tmp_path), "tokens")
    tracker.open("key", "run", {}, {})
    log_test_tokens(tracker.client, tracker.parent_id, splits)
    tracker.close("KILLED")  # a killed run still has them: they are logged when the run opens
    tokens = load_test_tokens(tracker.parent_id, tracker.tracking_uri)
    assert tokens == dict(enumerate(splits.test.tokens))
