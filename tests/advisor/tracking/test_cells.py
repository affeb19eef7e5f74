"""Tracking as store / writer / reader: the cells table, its fallback, resume, and a quiet import."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from advisor.tracking import CELLS_TABLE, AnalysisTracker, load_analysis, written_analysis
from advisor.tracking._cells import curves_frame, rows_from_history
from advisor.tracking._store import child_runs
from tests.helpers import NewStore

CELLS = [  # (embedding, size, seed, metrics); None is not logged, NaN is
    ("static", 10, 0, {"score": 0.5, "f1": 0.5, "train_seconds": 1.0, "epochs": 3.0}),
    ("static", 20, 0, {"score": 0.6, "f1": 0.6, "train_seconds": 2.0, "epochs": 4.0, "dev_score": math.nan}),
    ("contextual", 10, 0, {"score": 0.7, "f1": 0.7, "train_seconds": 5.0, "eval_repaired_f1": 0.71}),
    ("contextual", 20, 0, {"score": 0.123456789012345, "f1": 0.1, "peak_memory_mb": None}),
]


def _log(tracker: AnalysisTracker, cells: list) -> None:
    for embedding, size, seed, metrics in cells:
        tracker.child(embedding, seed)
        tracker.log_cell(embedding, size, seed, metrics)


@pytest.fixture
def tracker(tmp_path: Path, new_store: NewStore) -> AnalysisTracker:
    tracker = AnalysisTracker(new_store(tmp_path), "t")
    tracker.open("k", "run", {"task": "ner", "n_train": 20, "primary_metric": "f1"}, {"advisor.task": "ner"})
    return tracker


def _from_history(tracker: AnalysisTracker) -> pd.DataFrame:
    children = child_runs(tracker.client, tracker.experiment_id, tracker.parent_id)
    return curves_frame(list(rows_from_history(tracker.client, children).values()), 20)


def test_cells_table_reads_as_the_metric_histories(tracker: AnalysisTracker) -> None:
    _log(tracker, CELLS)
    expected = _from_history(tracker)
    by_cell = expected.set_index(["embedding", "size"])
    assert (
        len(expected) == 4 and by_cell.loc[("contextual", 20), "score"] == 0.123456789012345
    )  # full precision
    assert math.isnan(by_cell.loc[("static", 20), "dev_score"])
    pd.testing.assert_frame_equal(load_analysis(tracker.parent_id, tracker.tracking_uri).curves, expected)
    pd.testing.assert_frame_equal(written_analysis(tracker, {}).curves, expected)  # the runner's view
    tracker.close("FINISHED")


def test_runs_without_a_cells_table_are_read_from_histories(tracker: AnalysisTracker) -> None:
    _log(tracker, CELLS)
    expected = _from_history(tracker)
    tracker.close("FINISHED")
    root = Path(tracker.client.get_run(tracker.parent_id).info.artifact_uri.removeprefix("file://"))
    (root / CELLS_TABLE).unlink()  # as logged before the table existed
    pd.testing.assert_frame_equal(load_analysis(tracker.parent_id, tracker.tracking_uri).curves, expected)


def test_resume_keeps_the_rows_and_adds_cells_killed_before_the_table(tracker: AnalysisTracker) -> None:
    _log(tracker, CELLS[:2])
    run_id = tracker._children[("static", 0)]
    from mlflow.entities import Metric  # a cell whose score was logged, but not its table row

    tracker.client.log_batch(run_id, metrics=[Metric("score", 0.9, 0, 40), Metric("epochs", 2.0, 0, 40)])
    tracker.close("KILLED")
    again = AnalysisTracker(tracker.tracking_uri, "t")
    again.open("k", "run", {"task": "ner"}, {})
    assert again.resumed and again.is_finished("static", 40, 0)
    assert sorted(again.cells) == [("static", 10, 0), ("static", 20, 0), ("static", 40, 0)]
    assert again.cells[("static", 40, 0)]["score"] == 0.9
    assert again.params["primary_metric"] == "f1"  # what the parent already held
    again.close("FINISHED")


def test_importing_tracking_changes_nothing() -> None:
    """No environment variables or logger levels set at import; the first client sets them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_ENABLE_")}
    code = (
        "import logging, os, advisor.tracking; "
        "print(os.environ.get('MLFLOW_ENABLE_ASYNC_LOGGING'), logging.getLogger('alembic').level)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "0"]
