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


def test_links_open_the_runs_table_in_a_real_mlflow_server(tmp_path: Path, new_store: NewStore) -> None:
    """MLflow 3.17's UI reads the workflow type from the URL, not the experiment tag: the tag is
    served as logged (older UIs), and every link carries the query this UI's bundle reads."""
    import json
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    import mlflow

    from advisor.tracking import WORKFLOW_QUERY, browse_hint, experiment_url, run_url

    uri = new_store(tmp_path)
    tracker = AnalysisTracker(uri, "landing")
    tracker.open("key", "run", {}, {})
    tracker.close("FINISHED")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mlflow_bin = str(Path(sys.executable).with_name("mlflow"))
    command = [mlflow_bin, "server", "--backend-store-uri", uri, "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, answer = time.monotonic() + 120, None
        while answer is None and time.monotonic() < deadline and server.poll() is None:
            try:
                get = f"{base}/api/2.0/mlflow/experiments/get?experiment_id={tracker.experiment_id}"
                with urllib.request.urlopen(get, timeout=2) as response:
                    answer = json.load(response)
            except OSError:
                time.sleep(0.5)
        assert answer is not None, "mlflow server did not answer"
        tags = {t["key"]: t["value"] for t in answer["experiment"]["tags"]}
        assert tags[EXPERIMENT_KIND_TAG] == EXPERIMENT_KIND
        with urllib.request.urlopen(base, timeout=10) as response:
            assert response.status == 200  # the UI the links open
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    bundle = Path(mlflow.__file__).parent / "server" / "js" / "build" / "static" / "js"
    main = "".join(p.read_text(encoding="utf-8", errors="replace") for p in bundle.glob("main.*.js"))
    assert 'get("workflowType")' in main and WORKFLOW_QUERY.split("=")[1] in main  # what this UI reads
    eid = tracker.experiment_id
    assert experiment_url(eid, base) == f"{base}/#/experiments/{eid}/runs?{WORKFLOW_QUERY}"
    assert run_url(eid, "r1", base + "/") == f"{base}/#/experiments/{eid}/runs/r1?{WORKFLOW_QUERY}"
    assert browse_hint(base, eid) == experiment_url(eid, base)  # a server is its own UI
    local = browse_hint(uri, eid)
    assert local == f"mlflow ui --backend-store-uri {uri}, then open {experiment_url(eid)}"
