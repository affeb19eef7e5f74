"""Progress of a run by stage, worded once for the CLI and the app.

The runner emits :class:`~advisor.runner.ProgressEvent` (stages ``read``, ``warning``, ``plan``, ``featurize``,
``tune``, ``cell``, ``analysis``, ``done``). :func:`describe` turns one into the line both front ends show;
:class:`ProgressFile` keeps the latest one in a small JSON file that the app polls instead of reading
every metric history from MLflow; :class:`FeaturizeMeter` turns an encoder's batch callbacks into
items/s and an ETA; :class:`CellClock` turns finished cells into the training ETA (seconds per step
measured here, steps by size), so the CLI and the app show the same time left.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "PROGRESS_FILE_ENV",
    "STAGES",
    "CellClock",
    "FeaturizeMeter",
    "ProgressFile",
    "describe",
    "duration",
    "read_progress_file",
    "time_left",
]

#: ``advisor run`` also writes its progress here when this variable names a file (the app sets it).
PROGRESS_FILE_ENV = "ADVISOR_PROGRESS_FILE"
STAGES: dict[str, str] = {
    "read": "reading the data",
    "warning": "warning",  # a reader's warning: the same words as ``advisor inspect``
    "plan": "planning the grid",
    "estimate": "expected duration",  # before the first model loads: the sentence the app shows before Run
    "early": "early verdict",  # --until decided: after each round at the largest size
    "featurize": "featurizing",
    "tune": "choosing each family's learning rate and projection width on dev",
    "cell": "training cells",
    "analysis": "analysis: difficulty, figures and verdict",
    "layers": "layer sweep",  # advisor layers: one model per layer and seed
    "contextuality": "contextuality",  # advisor contextuality: the measures per layer
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


def time_left(event: Any) -> str:
    """``, about 3 min left`` for a ``tune`` or ``cell`` event with a training ETA; empty otherwise."""
    eta = getattr(event, "eta", None)
    if event.stage not in ("tune", "cell") or eta is None or not math.isfinite(eta):
        return ""
    return f", about {duration(eta)} of training left"


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
    if event.stage == "tune" and event.cell is not None:  # one learning-rate trial
        c = event.cell
        width = f" width {c.projection}" if c.projection else ""
        return (
            f"learning-rate trial [{event.done}/{event.total}] {c.embedding:<10} lr {c.lr:g}{width} size {c.size:,} "
            f"seed {c.seed}: dev {event.score:.4f} ({event.seconds:.1f}s)"
        )
    if event.stage in ("featurize", "estimate", "early"):  # "featurizing with contextual"; "Expected …"
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
    rate: float | None = None  # items/s measured after the first batch (None: too few batches, or cached)

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
        self.rate = rate or self.rate
        eta = (self.total - items) / rate if rate else None
        event = self.make_event("featurize", done=items, total=self.total, message=self.embedding)
        event.rate, event.eta = rate, eta
        self.notify(event)


#: A finished cell as the clock keeps it: family, size, seconds, optimizer steps.
_Finished = tuple[str, int, float, int]


@dataclass
class CellClock:
    """The training ETA from the cells finished on this machine, weighted by their size.

    A remaining cell costs its expected steps times its family's seconds per step. Seconds per step
    are measured from the family's finished cells as a ratio of sums (a fast small cell weighs
    little); a family with none yet uses ``prior`` (what an earlier run recorded here), then the
    slowest family measured. Steps come from finished cells of that size (cells stop early), else from
    ``rule`` (the profile's floor/ceiling rule) scaled by how the finished cells compared with it.
    The work is divided by the workers (never below the longest cell). No smoothing: a blend with the
    previous estimate lagged real changes and kept climbing after them.
    """

    rule: Callable[[int], int]
    workers: int = 1
    prior: dict[str, float] = field(default_factory=dict)  # family -> seconds per step recorded before
    remaining: list[tuple[str, int]] = field(default_factory=list)  # (family, size) still to train
    finished: list[_Finished] = field(default_factory=list)

    def plan(self, cells: Iterable[tuple[str, int]]) -> None:
        """Cells about to be trained (the grid's, the learning-rate trials, an extension's)."""
        self.remaining.extend(cells)

    def finish(self, family: str, size: int, seconds: float, steps: int) -> float | None:
        """Record a finished cell; the seconds left for the remaining ones (None: nothing measured yet)."""
        if (family, size) in self.remaining:
            self.remaining.remove((family, size))
        self.finished.append((family, int(size), float(seconds), int(steps)))
        return self.estimate()

    def seconds_per_step(self, family: str) -> float | None:
        """Measured for ``family``; else recorded before; else the slowest other family measured."""
        own = [(s, n) for f, _, s, n in self.finished if f == family and n > 0]
        if not own and family in self.prior:
            return self.prior[family]
        if own:
            return sum(s for s, _ in own) / sum(n for _, n in own)
        others = [f for f in dict.fromkeys(f for f, *_ in self.finished) if f != family]
        rates = [r for r in map(self.seconds_per_step, others) if r] or list(self.prior.values())
        return max(rates) if rates else None  # the slowest seen: a family not yet timed revises downward

    def steps(self, family: str, size: int) -> float:
        """Steps a cell of ``size`` is expected to take, from finished cells where there are any."""
        for match in ((family, size), (None, size)):
            seen = [n for f, z, _, n in self.finished if z == size and match[0] in (None, f)]
            if seen:
                return sum(seen) / len(seen)
        floor, ceiling, expected = self.rule(1), self.rule(10**12), float(self.rule(size))
        cells = [(f, z, n) for f, z, _, n in self.finished]
        above = [c for c in cells if self.rule(c[1]) > floor]  # a cell at the floor says nothing of the scale
        for pool in (
            [c for c in above if c[0] == family],
            above,
            [c for c in cells if c[0] == family],
            cells,
        ):
            if pool:
                ratio = sum(n for *_, n in pool) / max(sum(self.rule(z) for _, z, _ in pool), 1)
                return min(max(expected * ratio, float(floor)), float(ceiling))
        return expected

    def estimate(self) -> float | None:
        """Seconds the remaining cells take on ``workers`` workers, from what was measured so far."""
        rates: dict[str, float | None] = {}
        costs = []
        for family, size in self.remaining:
            if family not in rates:
                rates[family] = self.seconds_per_step(family)
            if rates[family] is None:
                return None
            costs.append(rates[family] * self.steps(family, size))
        return max(sum(costs) / max(self.workers, 1), max(costs)) if costs else 0.0


class ProgressFile:
    """Keep the latest event in a JSON file (written atomically, at most every ``min_interval`` s)."""

    def __init__(self, path: str | Path, min_interval: float = 1.0) -> None:
        self.path = Path(path)
        self.min_interval = min_interval
        self._last = 0.0
        self._stage = ""
        self.run_id = ""

    def __call__(self, event: Any) -> None:
        now = time.monotonic()
        self.run_id = getattr(event, "run_id", "") or self.run_id
        if (
            event.stage == self._stage
            and event.stage in ("featurize",)
            and now - self._last < self.min_interval
        ):
            return
        eta = getattr(event, "eta", None)  # featurize: this embedding; tune and cell: all training left
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
