"""Who owns a RUNNING analysis, whether it is still alive, and locks that keep concurrent runs apart.

MLflow only knows a run's status: after ``kill -9`` the runs stay RUNNING for ever. So each analysis
records its **owner** (host, pid, process start time) and a **heartbeat** (tags on the parent run,
refreshed on every finished cell and by a daemon thread). A RUNNING analysis is *stale* when its
owner is gone: on the same host, the pid no longer runs (or runs another process); on another host,
the heartbeat is older than ``ADVISOR_STALE_AFTER_S`` (default 300 s). ``close_stale_runs`` ends
stale analyses and their children KILLED; ``advisor run``, ``advisor report`` and the app call it.

Concurrency: the first use of a new sqlite store and the open-or-resume step of an analysis run
hold an exclusive file lock (:mod:`._locks`). A second run of an analysis that a live process is
computing waits for it to end, then resumes: no cell is computed twice.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.tracking._layout import ANALYSIS_KIND, KIND_TAG
from advisor.tracking._store import client_for, store_uri

__all__ = [
    "HEARTBEAT_TAG",
    "OWNER_TAGS",
    "Heartbeat",
    "Owner",
    "close_stale_runs",
    "heartbeat_interval",
    "is_stale",
    "stale_after",
    "stale_reason",
]

HEARTBEAT_TAG = "advisor.heartbeat"
OWNER_TAGS = ("advisor.owner.host", "advisor.owner.pid", "advisor.owner.started")
CLOSED_TAG = "advisor.closed_stale"


def heartbeat_interval() -> float:
    """Seconds between heartbeats (``ADVISOR_HEARTBEAT_S``, default 30)."""
    return float(os.environ.get("ADVISOR_HEARTBEAT_S", "30"))


def stale_after() -> float:
    """Heartbeat age after which a run on another host counts as dead (``ADVISOR_STALE_AFTER_S``)."""
    return float(os.environ.get("ADVISOR_STALE_AFTER_S", "300"))


def _process_start(pid: int) -> float | None:
    import psutil

    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


@dataclass(frozen=True)
class Owner:
    """The process that runs an analysis; the start time tells a reused pid from the original."""

    host: str
    pid: int
    started: float

    @classmethod
    def current(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid(), _process_start(os.getpid()) or 0.0)

    @classmethod
    def from_tags(cls, tags: dict[str, str]) -> Owner | None:
        try:
            return cls(tags[OWNER_TAGS[0]], int(tags[OWNER_TAGS[1]]), float(tags[OWNER_TAGS[2]]))
        except (KeyError, ValueError):
            return None

    def tags(self) -> dict[str, str]:
        return dict(zip(OWNER_TAGS, (self.host, str(self.pid), f"{self.started:.3f}"), strict=True))

    def same(self, other: Owner) -> bool:
        """The same process (tags keep the start time to the millisecond)."""
        return self.host == other.host and self.pid == other.pid and abs(self.started - other.started) < 1.0

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}"

    def alive_here(self) -> bool:
        """Whether this owner (on this host) still runs: the pid exists and started when recorded."""
        started = _process_start(self.pid)
        if started is None:
            return False
        import psutil

        try:
            if psutil.Process(self.pid).status() == psutil.STATUS_ZOMBIE:
                return False
        except psutil.Error:
            return False
        return abs(started - self.started) < 1.0


def stale_reason(run: Any, now: float | None = None) -> str | None:
    """Why a RUNNING analysis has no live owner, or None if it may still be running."""
    if run.info.status != "RUNNING":
        return None
    tags = dict(run.data.tags)
    owner = Owner.from_tags(tags)
    if owner is None:
        return None  # written by an older advisor: nothing to judge by
    if owner.host == socket.gethostname():
        return None if owner.alive_here() else f"its process ({owner.describe()}) is gone"
    now = time.time() if now is None else now
    try:
        beat = float(tags[HEARTBEAT_TAG])
    except (KeyError, ValueError):
        beat = run.info.start_time / 1000
    if now - beat > stale_after():
        return f"no heartbeat from {owner.describe()} for {now - beat:.0f} s"
    return None


def is_stale(run: Any, now: float | None = None) -> bool:
    """A RUNNING analysis whose owner is gone (same host: dead pid; other host: old heartbeat)."""
    return stale_reason(run, now) is not None


def close_stale_runs(
    tracking_uri: str | None = None, client: Any = None, experiment_ids: list[str] | None = None
) -> list[str]:
    """End stale RUNNING analyses and their RUNNING children KILLED; return the parent ids closed."""
    if client is None:
        uri = store_uri(tracking_uri)
        if uri.startswith("sqlite:///") and not Path(uri.removeprefix("sqlite:///")).is_file():
            return []  # no store, nothing to close: never create one as a side effect
        client = client_for(uri)
    if experiment_ids is None:
        experiment_ids = [e.experiment_id for e in client.search_experiments()]
    if not experiment_ids:
        return []
    running = client.search_runs(
        experiment_ids,
        filter_string=f"attributes.status = 'RUNNING' and tags.`{KIND_TAG}` = '{ANALYSIS_KIND}'",
        max_results=1000,
    )
    closed = []
    for run in running:
        reason = stale_reason(run)
        if reason is None:
            continue
        run_id = run.info.run_id
        children = client.search_runs(
            [run.info.experiment_id],
            filter_string=f"tags.`mlflow.parentRunId` = '{run_id}' and attributes.status = 'RUNNING'",
            max_results=5000,
        )
        for child in children:
            client.set_terminated(child.info.run_id, status="KILLED")
        client.set_tag(run_id, CLOSED_TAG, f"ended KILLED by {Owner.current().describe()}: {reason}")
        client.set_terminated(run_id, status="KILLED")
        closed.append(run_id)
    return closed


class Heartbeat:
    """A daemon thread that refreshes the heartbeat tag of a run until stopped."""

    def __init__(self, client: Any, run_id: str, interval: float | None = None) -> None:
        self.client = client
        self.run_id = run_id
        self.interval = heartbeat_interval() if interval is None else interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="advisor-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self.beat()
        self._thread.start()
        return self

    def beat(self) -> None:
        """Write the heartbeat now; a store hiccup only delays the next one."""
        with contextlib.suppress(Exception):
            self.client.set_tag(self.run_id, HEARTBEAT_TAG, f"{time.time():.3f}")

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
