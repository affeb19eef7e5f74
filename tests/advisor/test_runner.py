"""``advisor run`` end to end on generated data with the tiny local BERT and a tiny vectors file.

Checks the MLflow structure (parent, children, metrics at the right steps, artifacts), resume (a
second identical run computes 0 cells), and that a failure or Ctrl-C mid-grid ends the runs FAILED /
KILLED and a re-run computes only the missing cells.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import client_for, load_analysis
from tests.helpers import FinishedRun, NewStore


def test_run_logs_the_mlflow_structure(finished_run: FinishedRun) -> None:
    settings, outcome, events = finished_run.settings, finished_run.outcome, finished_run.events
    assert len(outcome.computed) == 2 * 2 * 3 and outcome.reused == []
    client = client_for(settings.tracking_uri)
    parent = client.get_run(outcome.run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.params["task"] == "ner" and parent.data.params["n_train"] == "40"
    assert parent.data.tags["advisor.kind"] == "analysis"
    children = client.search_runs(
        [parent.info.experiment_id], filter_string=f"tags.`mlflow.parentRunId` = '{outcome.run_id}'"
    )
    assert len(children) == 3 * 2
    for child in children:
        assert child.info.status == "FINISHED"
        steps = sorted(m.step for m in client.get_metric_history(child.info.run_id, "score"))
        assert steps == [20, 40]
        assert [m.step for m in client.get_metric_history(child.info.run_id, "f1")] == [20, 40]
        for key in ("train_seconds", "inference_ms_per_item", "peak_memory_mb", "n_params"):
            assert len(client.get_metric_history(child.info.run_id, key)) == 2, key
        files = {a.path for a in client.list_artifacts(child.info.run_id, "predictions")}
        assert files == {"predictions/size_0000020.json", "predictions/size_0000040.json"}
    parent_files = {a.path for a in client.list_artifacts(outcome.run_id, "figures")}
    assert "figures/learning_curves.png" in parent_files
    analysis_files = {a.path for a in client.list_artifacts(outcome.run_id, "analysis")}
    assert {
        "analysis/curves.json",
        "analysis/gaps.json",
        "analysis/items.json",
        "analysis/verdict.json",
    } <= analysis_files
    report_files = {a.path for a in client.list_artifacts(outcome.run_id, "report")}
    assert {"report/report.html", "report/report.md"} <= report_files
    assert [e.done for e in events if e.stage == "cell"] == list(range(1, 13))

    analysis = load_analysis(outcome.run_id, settings.tracking_uri)
    assert len(analysis.curves) == 12 and set(analysis.curves["embedding"]) == {
        "random",
        "static",
        "contextual",
    }
    assert analysis.curves["score"].between(0, 1).all()
    assert set(analysis.embeddings["embedding"]) == {"random", "static", "contextual"}


def test_the_run_returns_the_analysis_a_reader_gets_back(finished_run: FinishedRun) -> None:
    """The CLI and the report may judge ``RunOutcome.analysis``: it is what ``load_analysis`` reads."""
    from advisor.verdict import recommend

    returned = finished_run.outcome.analysis
    read = load_analysis(finished_run.outcome.run_id, finished_run.settings.tracking_uri)
    assert returned is not None and returned.status == read.status == "FINISHED"
    for frame in ("curves", "embeddings", "slices", "items"):
        pd.testing.assert_frame_equal(getattr(returned, frame), getattr(read, frame), check_dtype=False)
    assert set(returned.layer_tables) == set(read.layer_tables)
    for name, table in read.layer_tables.items():
        pd.testing.assert_frame_equal(returned.layer_tables[name], table, check_dtype=False)
    assert (returned.params, returned.dataset, returned.environment) == (
        read.params,
        read.dataset,
        read.environment,
    )
    assert recommend(returned).to_dict() == recommend(read).to_dict()


def test_a_second_identical_run_resumes_and_computes_nothing(finished_run_copy: FinishedRun) -> None:
    settings, outcome = finished_run_copy.settings, finished_run_copy.outcome
    client = client_for(settings.tracking_uri)
    again = run_analysis(settings)
    assert again.computed == [] and len(again.reused) == 12
    assert again.run_id == outcome.run_id and again.resumed
    assert again.analysis is None  # nothing analysed in this process: a caller reads it back
    assert "featurize.contextual" not in again.timings  # nothing pending: no featurization at all
    assert client.get_run(outcome.run_id).info.status == "FINISHED"


def test_failure_mid_grid_ends_failed_and_rerun_computes_only_missing(run_settings: RunSettings) -> None:
    settings = run_settings
    settings.embeddings = ["random", "static"]
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, fail_after=3)
    client = client_for(settings.tracking_uri)
    runs = client.search_runs([client.get_experiment_by_name("test").experiment_id])
    assert runs and all(r.info.status == "FAILED" for r in runs)
    outcome = run_analysis(settings)
    assert len(outcome.computed) == 8 - 3 and len(outcome.reused) == 3
    assert client.get_run(outcome.run_id).info.status == "FINISHED"


def test_ctrl_c_ends_killed_and_keeps_finished_cells(run_settings: RunSettings) -> None:
    settings = run_settings
    settings.embeddings = ["random", "static"]

    def interrupt(event: ProgressEvent) -> None:
        if event.stage == "cell" and event.done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_analysis(settings, progress=interrupt)
    client = client_for(settings.tracking_uri)
    runs = client.search_runs([client.get_experiment_by_name("test").experiment_id])
    assert all(r.info.status == "KILLED" for r in runs)
    outcome = run_analysis(settings)
    assert len(outcome.reused) == 3 and len(outcome.computed) == 5


def test_force_recomputes(run_settings: RunSettings) -> None:
    settings = run_settings
    settings.sizes = [20]
    settings.seeds = 1
    settings.embeddings = ["random"]
    first = run_analysis(settings)
    settings.force = True
    second = run_analysis(settings)
    assert len(first.computed) == len(second.computed) == 1


def test_parallel_workers_give_the_same_scores(
    run_settings: RunSettings, tmp_path: Path, new_store: NewStore
) -> None:
    settings = run_settings
    settings.embeddings = ["random", "static"]
    scores = []
    for workers in (1, 2):
        settings.workers = workers
        settings.tracking_uri = new_store(tmp_path / f"w{workers}")
        run_id = run_analysis(settings).run_id
        curves = load_analysis(run_id, settings.tracking_uri).curves
        scores.append(curves.sort_values(["embedding", "size", "seed"])["score"].tolist())
    assert scores[0] == scores[1] and len(scores[0]) == 8
