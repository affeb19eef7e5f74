"""Progress of a run as the page sees it.

A run the page started is followed through its small progress file (:func:`live_progress`): polling
reads one file, not MLflow. :func:`read_progress` reads any run's cells from MLflow instead (a cell
is finished when its child run has a ``score`` at step = size (see ``advisor.tracking``), so
counting those steps gives cells done; the parent tag ``advisor.total_cells`` gives the total);
it reads every child's metric history, so it is for one-off views, never for polling.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from advisor.app._job import SESSION_TAG
from advisor.progress import duration
from advisor.tracking import child_runs_filter, client_for, find_analyses

__all__ = ["RunProgress", "find_session_run", "live_progress", "read_progress"]


@dataclass(frozen=True)
class RunProgress:
    """Cells done of total, the run's status, and an ETA from the pace of the cells finished so far."""

    run_id: str
    status: str
    done: int
    total: int
    eta_seconds: float
    elapsed_seconds: float

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    @property
    def finished(self) -> bool:
        return self.status in ("FINISHED", "FAILED", "KILLED")

    def describe(self) -> str:
        text = f"{self.done} / {self.total or '?'} cells done ({self.status.lower()})"
        if not self.finished and math.isfinite(self.eta_seconds):
            text += f", about {duration(self.eta_seconds)} left"
        return text


def find_session_run(session_id: str, tracking_uri: str | None = None) -> str | None:
    """The newest analysis tagged ``app.session = session_id`` (None until the subprocess opened it)."""
    for run in find_analyses(tracking_uri, max_results=200):
        if run.data.tags.get(SESSION_TAG) == session_id:
            return run.info.run_id
    return None


def read_progress(run_id: str, tracking_uri: str | None = None, since: float | None = None) -> RunProgress:
    """Cells done / total of ``run_id``; the ETA uses cells finished after ``since`` (epoch seconds).

    Cells reused from an earlier run finish "instantly" and would make the pace look fast, hence
    ``since``: pass the time the subprocess started.
    """
    client = client_for(tracking_uri)
    parent = client.get_run(run_id)
    total = int(parent.data.tags.get("advisor.total_cells", 0) or 0)
    children = client.search_runs(
        [parent.info.experiment_id],
        filter_string=child_runs_filter(run_id),
        max_results=5000,
    )
    finished: dict[tuple[str, int], float] = {}  # (child, size) -> latest finish: --force re-logs a step
    for child in children:
        for metric in client.get_metric_history(child.info.run_id, "score"):
            key = (child.info.run_id, int(metric.step))
            finished[key] = max(finished.get(key, 0.0), metric.timestamp / 1000)
    finish_times = list(finished.values())
    start = since if since is not None else parent.info.start_time / 1000
    now = time.time()
    elapsed = now - start
    recent = [t for t in finish_times if t >= start]
    done = len(finish_times)
    remaining = max(total - done, 0)
    eta = math.nan
    if remaining == 0:
        eta = 0.0
    elif recent:
        eta = (max(recent) - start) / len(recent) * remaining
    return RunProgress(
        run_id=run_id,
        status=parent.info.status,
        done=done,
        total=total,
        eta_seconds=eta,
        elapsed_seconds=elapsed,
    )


def live_progress(state: dict | None, running: bool) -> tuple[float, str]:
    """The progress bar of a run this page started: fraction and text, from its progress file.

    The text names the stage (reading, featurizing with items/s and ETA, learning-rate trials and
    training cells with the run's training ETA, counted down since it was written, analysis); before
    the first event it says the run is starting.
    """
    if not state:
        return 0.0, "starting: loading libraries" if running else "the run ended before its first step"
    total, done = int(state.get("total") or 0), int(state.get("done") or 0)
    fraction = min(1.0, done / total) if total else (1.0 if state.get("stage") == "done" else 0.0)
    text = str(state.get("text", ""))
    eta = state.get("eta")
    if state.get("stage") in ("tune", "cell") and running and eta is not None and math.isfinite(eta):
        since = max(
            time.time() - float(state.get("updated") or time.time()), 0.0
        )  # counted down between cells
        text += f" · about {duration(max(eta - since, 0.0))} of training left"
    return fraction, text
