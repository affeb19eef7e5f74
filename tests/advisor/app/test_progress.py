"""Progress read from MLflow: cells done / total, status, ETA, and the page's run found by its tag."""

from __future__ import annotations

import math

from advisor.app import RunProgress, find_session_run, read_progress
from advisor.tracking import client_for

from .synthetic_store import PARTIAL_CELLS, TOTAL_CELLS


def test_find_session_run_by_tag(app_store) -> None:
    assert find_session_run("finished-session", app_store.uri) == app_store.finished
    assert find_session_run("partial-session", app_store.uri) == app_store.partial
    assert find_session_run("no-such-session", app_store.uri) is None


def test_progress_of_a_finished_run(app_store) -> None:
    progress = read_progress(app_store.finished, app_store.uri)
    assert (progress.done, progress.total, progress.status) == (TOTAL_CELLS, TOTAL_CELLS, "FINISHED")
    assert progress.fraction == 1.0 and progress.finished and progress.eta_seconds == 0.0
    assert progress.describe() == f"{TOTAL_CELLS} / {TOTAL_CELLS} cells done (finished)"


def test_progress_of_a_run_in_flight_has_an_eta_from_its_pace(app_store) -> None:
    client = client_for(app_store.uri)
    parent = client.get_run(app_store.partial)
    start = parent.info.start_time / 1000
    progress = read_progress(app_store.partial, app_store.uri, since=start)
    assert (progress.done, progress.total, progress.status) == (PARTIAL_CELLS, TOTAL_CELLS, "RUNNING")
    assert not progress.finished and math.isclose(progress.fraction, PARTIAL_CELLS / TOTAL_CELLS)
    children = client.search_runs(
        [parent.info.experiment_id], f"tags.`mlflow.parentRunId` = '{app_store.partial}'"
    )
    last = (
        max(m.timestamp for c in children for m in client.get_metric_history(c.info.run_id, "score")) / 1000
    )
    expected = (last - start) / PARTIAL_CELLS * (TOTAL_CELLS - PARTIAL_CELLS)
    assert math.isclose(progress.eta_seconds, expected, rel_tol=1e-9)
    assert "left" in progress.describe()
    # Cells finished before the subprocess started (reused ones) give no pace: no ETA yet.
    later = read_progress(app_store.partial, app_store.uri, since=last + 1)
    assert math.isnan(later.eta_seconds) and "left" not in later.describe()


def test_describe_durations() -> None:
    progress = RunProgress("r", "RUNNING", 2, 10, eta_seconds=3 * 3600.0, elapsed_seconds=1.0)
    assert progress.describe() == "2 / 10 cells done (running), about 3.0 h left"
    assert RunProgress("r", "RUNNING", 2, 10, 200.0, 1.0).describe().endswith("about 3 min left")
