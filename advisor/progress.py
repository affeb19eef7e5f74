"""Progress of a run by stage, worded once for the CLI and the app.

The runner emits :class:`~advisor.runner.ProgressEvent` (stages ``read``, ``warning``, ``plan``, ``featurize``,
``tune``, ``cell``, ``analysis``, ``done``). :func:`describe` turns one into the line both front ends show;
:class:`ProgressFile` keeps the latest one in a small JSON file that the app polls instead of reading
every metric history from MLflow; :class:`FeaturizeMeter` turns an encoder's batch callbacks into
items/s and an ETA.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "PROGRESS_FILE_ENV",
    "STAGES",
    "FeaturizeMeter",
    "ProgressFile",
    "describe",
    "duration",
    "read_progress_file",
]

#: ``advisor run`` also writes its progress here when this variable names a file (the app sets it).
PROGRESS_FILE_ENV = "ADVISOR_PROGRESS_FILE"
STAGES: dict[str, str] = {
    "read": "reading the data",
    "warning": "warning",  # a reader's warning: the same words as ``advisor inspect``
    "plan": "planning the grid",
    "featurize": "featurizing",
    "tune": "choosing each family's learning rate on dev",
    "cell": "training cells",
    "analysis": "analysis: difficulty, figures and verdict",
    "done": "done",
}


def duration(seconds: float) -> str:
    """``42 s``, ``3 min``, ``1.5 h``; a dash when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    seconds = max(0, round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def describe(event: Any) -> str:
    """One line for an event: the stage, what is done of what, and the pace where there is one."""
    stage = STAGES.get(event.stage, event.stage)
    if event.stage == "featurize" and event.total:
        text = f"{stage} {event.message}: {event.done:,} / {event.total:,} items"
        if getattr(event, "rate", None):
            text += f", {event.rate:,.0f} items/s"
        eta = getattr(event, "eta", None)
        if eta is not None and math.isfinite(eta) and event.done < event.total:
            text += f", about {duration(eta)} left"
        return text
    if event.stage == "cell" and event.cell is not None:
        c = event.cell
        return (
            f"{stage} [{event.done}/{event.total}] {c.embedding:<10} size {c.size:>6} seed {c.seed}: "
            f"score {event.score:.4f} ({event.seconds:.1f}s)"
        )
    if event.stage == "featurize":  # the start of an embedding: "featurizing with contextual"
        return event.message or stage
    if event.stage == "plan":
        return f"grid: {event.total} cells, {event.done} already finished, {event.message}"
    if event.stage in ("analysis", "done"):
        return stage
    return f"{stage}: {event.message}" if event.message else stage


@dataclass
class FeaturizeMeter:
    """Items/s and ETA over train + dev + test for one embedding, from an encoder's batch callbacks.

    The encoder calls ``meter(done, total)`` in its own units (windows) once per batch of each part,
    parts in the order of ``part_sizes``; a part is complete when ``done == total``.
    """

    embedding: str
    part_sizes: list[int]
    notify: Callable[[Any], None]
    make_event: Callable[..., Any]
    min_interval: float = 0.5
    _first: tuple[float, int] | None = None
    _part: int = 0
    _offset: int = 0
    _last: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.part_sizes)

    def __call__(self, done: int, total: int) -> None:
        size = self.part_sizes[min(self._part, len(self.part_sizes) - 1)]
        items = min(self._offset + (size * done // total if total else size), self.total)
        finished_part = total > 0 and done >= total
        if finished_part:
            self._offset += size
            self._part += 1
        now = time.perf_counter()
        if not finished_part and now - self._last < self.min_interval:
            return
        self._last = now
        if self._first is None:  # the pace counts from the first batch: model loading is not encoding
            self._first = (now, items)
        t0, n0 = self._first
        rate = (items - n0) / (now - t0) if now > t0 and items > n0 else None
        eta = (self.total - items) / rate if rate else None
        event = self.make_event("featurize", done=items, total=self.total, message=self.embedding)
        event.rate, event.eta = rate, eta
        self.notify(event)


class ProgressFile:
    """Keep the latest event in a JSON file (written atomically, at most every ``min_interval`` s)."""

    def __init__(self, path: str | Path, min_interval: float = 1.0) -> None:
        self.path = Path(path)
        self.min_interval = min_interval
        self._last = 0.0
        self._stage = ""
        self._cells_from = time.monotonic()
        self._cells_computed = 0
        self.run_id = ""

    def __call__(self, event: Any) -> None:
        now = time.monotonic()
        self.run_id = getattr(event, "run_id", "") or self.run_id
        if event.stage != "cell":
            self._cells_from = now  # the cells' pace counts from the end of the stage before them
        if (
            event.stage == self._stage
            and event.stage in ("featurize",)
            and now - self._last < self.min_interval
        ):
            return
        eta = getattr(event, "eta", None)
        if event.stage == "cell":
            self._cells_computed += 1
            pace = (now - self._cells_from) / self._cells_computed
            eta = pace * max(event.total - event.done, 0)
        self._last, self._stage = now, event.stage
        payload = {
            "stage": event.stage,
            "done": event.done,
            "total": event.total,
            "text": describe(event),
            "run_id": self.run_id,
            "eta": eta,
            "updated": time.time(),
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, self.path)


def read_progress_file(path: str | Path) -> dict[str, Any] | None:
    """The latest progress written by :class:`ProgressFile`; None before the first event."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
