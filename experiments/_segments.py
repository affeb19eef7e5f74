"""A benchmark run that spans several sittings: the wall time of each sitting, and where it went.

Why: the CoNLL-size cold run takes more than two hours on a 2-core machine, longer than a working
session, so it was never measured to the end. The analysis itself resumes (finished cells are kept),
so a run stopped and started again does all the work once; what was lost is the clock. This ledger
keeps it: every sitting ("segment") records its wall time, its CPU time and the wall seconds of each
stage, attributed from the run's own progress events (the time up to an event belongs to the stage
the previous event opened, except that an event reporting finished work, a cell or a learning-rate
trial, closes its own stage: a resumed sitting trains right after its cache read, and an extension's
cells right after the "plan extended" line, with no event between). A sitting killed without
warning (``kill -9``, a machine that went away) is still counted, up to its last progress event:
the open segment is rewritten at every event and folded in by the next sitting, so a total over
sittings is a lower bound, never a guess.

Files in the folder: ``segments.jsonl`` (one closed segment per line) and ``segment_open.json``
(the sitting in progress).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Ledger", "Segment", "stage_of", "total"]

CLOSED = "segments.jsonl"
OPEN = "segment_open.json"
START_UP = "start-up"
READ_AND_PLAN = ("read", "plan", "estimate", "warning", "waiting")
TRAINING = ("cell", "early", "budget")


def stage_of(stage: str, message: str) -> str:
    """The wall-time stage a progress event opens: one featurize stage per family, training, analysis;
    any other stage ("tune") under its own name."""
    if stage == "featurize":
        return f"featurize {message.removeprefix('featurizing with ')}"
    if stage in READ_AND_PLAN:
        return "read and plan"
    if stage in TRAINING:
        return "train"
    if stage in ("analysis", "done"):
        return "analysis and report"
    return stage


@dataclass
class Segment:
    """One sitting of one phase ("cold", "identical re-run"): its clock and what it did."""

    phase: str
    ended: str = "running"  # finished, interrupted, failed, or killed (counted up to its last event)
    wall: float = 0.0
    cpu: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    cell_seconds: dict[str, float] = field(default_factory=dict)  # family -> sum of its cells' seconds
    cells: int = 0  # cells trained in this sitting
    timings: dict[str, float] = field(default_factory=dict)  # the runner's, when the sitting finished
    reused: int = 0  # cells an earlier sitting had finished, when the sitting finished


class Ledger:
    """The segments of the runs kept in ``folder``, and the sitting in progress."""

    def __init__(
        self, folder: Path, cpu_seconds: Callable[[], float], clock: Callable[[], float] = time.perf_counter
    ):
        self.folder, self.cpu_seconds, self.clock = folder, cpu_seconds, clock
        self.current: Segment | None = None
        self._stage, self._t0, self._cpu0, self._last = START_UP, 0.0, 0.0, 0.0
        self._fold_killed()

    def segments(self, phase: str | None = None) -> list[Segment]:
        """Closed segments in the order they ran (of one phase when ``phase`` is given)."""
        path = self.folder / CLOSED
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        found = [Segment(**json.loads(line)) for line in lines if line.strip()]
        return [s for s in found if phase is None or s.phase == phase]

    def finished(self, phase: str) -> bool:
        """Whether some sitting of ``phase`` ran to its end."""
        return any(s.ended == "finished" for s in self.segments(phase))

    def start(self, phase: str) -> None:
        """Open a sitting: its clock starts now."""
        self.current = Segment(phase)
        self._stage, self._t0, self._cpu0 = START_UP, self.clock(), self.cpu_seconds()
        self._last = self._t0
        self._save_open()

    def record(
        self, stage: str, message: str = "", cell_family: str | None = None, seconds: float = 0.0
    ) -> None:
        """One progress event: the time since the previous one goes to the stage that one opened, or, for
        a finished cell or trial (``cell_family`` given), to that work's own stage."""
        segment = self._segment()
        now, opened = self.clock(), stage_of(stage, message)
        spent_on = opened if cell_family is not None else self._stage
        segment.stages[spent_on] = segment.stages.get(spent_on, 0.0) + now - self._last
        self._stage, self._last = opened, now
        if stage == "cell" and cell_family is not None:
            segment.cells += 1
            segment.cell_seconds[cell_family] = segment.cell_seconds.get(cell_family, 0.0) + seconds
        segment.wall, segment.cpu = now - self._t0, self.cpu_seconds() - self._cpu0
        self._save_open()

    def close(self, ended: str, timings: dict[str, float] | None = None, reused: int = 0) -> Segment:
        """End the sitting (``finished``, ``interrupted`` or ``failed``), counting up to now, and keep it."""
        segment = self._segment()
        self.record("end of sitting")
        segment.ended, segment.timings, segment.reused = ended, dict(timings or {}), reused
        self._append(segment)
        (self.folder / OPEN).unlink(missing_ok=True)
        self.current = None
        return segment

    def _segment(self) -> Segment:
        if self.current is None:
            raise RuntimeError("no sitting is open: call start() first")
        return self.current

    def _save_open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / OPEN).write_text(json.dumps(asdict(self._segment())), encoding="utf-8")

    def _append(self, segment: Segment) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / CLOSED).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(asdict(segment)) + "\n")

    def _fold_killed(self) -> None:
        """A sitting that left its open file behind was killed: keep it, counted up to its last event."""
        path = self.folder / OPEN
        if not path.exists():
            return
        segment = Segment(**json.loads(path.read_text(encoding="utf-8")))
        segment.ended = "killed"
        self._append(segment)
        path.unlink()


def total(segments: list[Segment], attribute: str) -> Any:
    """Sum of a number (``wall``, ``cpu``, ``cells``) or of a per-key mapping over segments."""
    values = [getattr(s, attribute) for s in segments]
    if values and isinstance(values[0], dict):
        summed: dict[str, float] = {}
        for mapping in values:
            for key, value in mapping.items():
                summed[key] = summed.get(key, 0.0) + value
        return summed
    return sum(values)
