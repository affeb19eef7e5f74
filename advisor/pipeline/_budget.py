"""``--budget 10m`` (issue 31): train the cells that fit in a wall-time budget, evidence first.

What "fits" means. The budget is the wall time of the whole run, from reading the data to the report.
The cells train in the rounds of :func:`advisor.grid.evidence_rounds` (one seed of every family at the
largest size, then the next seed there, then the smaller sizes), whole rounds only: a cut never leaves
a family without the cells it is compared with, and no cell is ever stopped halfway. A round starts
only when two checks pass:

- the plan: the pre-run estimate's speeds (:func:`advisor.pipeline.machine_throughput`: the encoder's
  words/s, the seconds per step and steps per cell recorded on this machine, scaled to its load now)
  price the setup (encoder pass, learning-rate trials), every round and the analysis after the cells;
  the rounds so far plus this one must stay within the budget. That is the plan announced before the
  first cell, and a run faster than its estimate keeps to it (a resume uses what is left over);
- the clock: the wall time elapsed since the run started, plus this round's planned seconds scaled by
  how much slower the rounds so far ran than planned, plus the analysis, must stay within the budget.
  A round starts only while this holds, so an underestimate overruns by at most the one round that
  was already running.

The first round of a run that has no finished cell always runs, even when it does not fit: without it
there is nothing to judge (the stop then says the budget was shorter than one round). A budget stop
records what it left out on the parent (``advisor.budget_stop``), which the verdict states; a resume
with a larger budget, or none, trains only the cells still missing.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from advisor._error_codes import E248
from advisor.data import DataSplits
from advisor.grid import Cell, estimate_seconds, profiles
from advisor.pipeline._estimate import machine_throughput
from advisor.pipeline._execute import worker_count
from advisor.pipeline._plan import RunPlan
from advisor.progress import duration
from advisor.settings import RunSettings

__all__ = ["BudgetStop", "TimeBudget", "budget_text", "check_budget", "parse_budget", "plan_budget"]

_UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+(?:\.\d+)?)([hms])")
now: Callable[[], float] = time.perf_counter  # the clock the budget is checked against (tests plant one)


def parse_budget(text: str) -> float:
    """Seconds of a budget written ``90s``, ``10m``, ``1h``, ``1h30m`` (units in that order, each once)."""
    spoken = str(text).strip().lower().replace(" ", "")
    parts = _PART.findall(spoken)
    units = [unit for _, unit in parts]
    if not parts or "".join(n + u for n, u in parts) != spoken:
        raise E248(value=text, problem="is not a duration")
    if units != sorted(set(units), key="hms".index):
        raise E248(value=text, problem="names a unit twice or out of order (h, then m, then s)")
    seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise E248(value=text, problem="is no time at all")
    if seconds > 30 * 86400:
        raise E248(
            value=text, problem="is more than 30 days", hint="leave --budget out to train the whole grid"
        )
    return seconds


def check_budget(text: str | None) -> None:
    """``--budget`` is a duration (checked before any run exists); None: no budget."""
    if text is not None:
        parse_budget(text)


def budget_text(seconds: float) -> str:
    """How a budget is written back: ``90 s``, ``10 min``, ``1 h 30 min``."""
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    words = [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes) + [f"{secs} s"] * bool(secs)
    return " ".join(words) or "0 s"


@dataclass
class TimeBudget:
    """The budget of one process: the rounds it may start (module docstring), priced by the estimate."""

    seconds: float
    text: str
    started: float  # the run's start, on :data:`now`'s clock
    reserve: float  # the analysis after the cells
    setup: float  # encoder pass and learning-rate trials: paid by the first round this process trains
    cell_seconds: dict[tuple[str, int], float]  # (family, size) -> planned seconds of one cell
    workers: int = 1
    first: bool = False  # no cell of the grid was finished when the run started: the first round runs
    base: float = 0.0  # seconds the run had taken when the budget was planned (reading, planning)
    rounds: int = 0  # rounds this process trained
    planned: float = 0.0  # their planned seconds (setup included)
    spent: float = 0.0  # their wall seconds
    waived: bool = False  # the first round ran although it did not fit

    def work(self, cells: list[Cell]) -> float:
        """Planned wall seconds of a round's cells, spread over the workers."""
        known = self.cell_seconds.values()
        fallback = max(known) if known else 0.0
        work = sum(self.cell_seconds.get((c.embedding, c.size), fallback) for c in cells)
        return work / max(1, min(self.workers, len(cells)))

    def cost(self, cells: list[Cell]) -> float:
        """Planned wall seconds of a round: its cells, and the setup if this process trained nothing yet."""
        return (self.work(cells) + (0.0 if self.rounds else self.setup)) if cells else 0.0

    def admits(self, cells: list[Cell]) -> bool:
        """Whether the round of ``cells`` (those still to train) may start: by the plan and by the clock."""
        if not cells:
            return True
        cost = self.cost(cells)
        by_plan = self.base + self.planned + cost + self.reserve <= self.seconds
        slower = max(1.0, self.spent / self.planned) if self.planned else 1.0
        by_clock = now() - self.started + cost * slower + self.reserve <= self.seconds
        if by_plan and by_clock:
            return True
        if self.first and not self.rounds:  # nothing to judge without it: it runs, and the stop says so
            self.waived = True
        return self.waived and not self.rounds

    def elapsed(self) -> float:
        """Wall seconds since the run started."""
        return now() - self.started

    def train(self, cells: list[Cell], train: Callable[[list[Cell]], None]) -> None:
        """Train an admitted round, and count its planned and measured seconds."""
        cost, t0 = self.cost(cells), now()
        train(cells)
        self.planned, self.spent, self.rounds = self.planned + cost, self.spent + now() - t0, self.rounds + 1

    def planned_cells(self, rounds: list[list[Cell]]) -> int:
        """How many cells of ``rounds`` (those still to train) the plan admits, in order: the pre-run line."""
        total, count = self.base + self.reserve + (0.0 if self.rounds else self.setup), 0
        for cells in (r for r in rounds if r):
            if total + self.work(cells) > self.seconds and not (count == 0 and self.first):
                break
            total, count = total + self.work(cells), count + len(cells)
        return count


@dataclass(frozen=True)
class BudgetStop:
    """What the budget left out: the planned cells not trained, and why the next round did not start."""

    text: str
    seconds: float
    not_run: list[Cell]
    total: int
    elapsed: float
    waived: bool = False  # the budget was shorter than the first round, which ran anyway

    def tag(self) -> str:
        """The parent tag's JSON (read back into ``params["budget_stop"]`` for the verdict)."""
        return json.dumps(
            {
                "budget": self.text,
                "seconds": self.seconds,
                "total": self.total,
                "run": self.total - len(self.not_run),
                "not_run": [list(c.key) for c in self.not_run],
                "elapsed": round(self.elapsed, 1),
                "waived": self.waived,
            }
        )

    def describe(self) -> str:
        """The line printed when the budget stops the run."""
        run = self.total - len(self.not_run)
        waived = "; it was shorter than the first round, which ran anyway" if self.waived else ""
        return (
            f"budget {self.text}: {run} of {self.total} cells run after {duration(self.elapsed)}, the next "
            f"round does not fit{waived}; {len(self.not_run)} cells left out (resume with a larger --budget, "
            "or none, to train them)"
        )


def plan_budget(
    settings: RunSettings,
    splits: DataSplits,
    plan: RunPlan,
    pending: list[Cell],
    started: float,
    rates: dict[str, float],
) -> TimeBudget | None:
    """The run's :class:`TimeBudget` priced by the estimate's speeds (``rates``: the learning rates an
    earlier process chose, whose trials are not paid again); None without ``--budget`` or a cell to train."""
    if settings.budget is None or not pending:  # nothing to train: the grid is finished
        return None
    base = time.perf_counter() - started  # the run's start on the budget's clock (``now``, planted in tests)
    seconds, profile = parse_budget(settings.budget), profiles.get(settings.profile)
    workers = worker_count(settings.workers, plan.device, max(len(pending), 1))
    speed = machine_throughput(settings, splits, calibrate=False, workers=workers)
    families = [e for e in plan.grid.embeddings if any(c.embedding == e for c in pending)]
    setup_grid = replace(plan.grid, embeddings=families, cells=[])
    n_words = sum(len(t) for part in (splits.train, splits.dev, splits.test) for t in part.tokens)
    tune = settings.lr is None and not all(f in rates for f in families)
    args = (profile, len(splits.dev) + len(splits.test), workers, settings.max_steps)
    # estimate_seconds of a grid with no cell: the encoder pass + the rate trials + the fixed costs;
    # of one with no family and no size: the fixed costs alone (the analysis after the cells)
    reserve = estimate_seconds(replace(setup_grid, embeddings=[], sizes=[]), *args, tune_lr=False)
    setup = estimate_seconds(
        setup_grid, *args, tune_lr=tune, throughput=speed, n_words=n_words, projection=settings.projection
    )
    setup -= reserve
    cells = {(c.embedding, c.size) for c in pending}
    priced = {
        (e, z): speed.steps(z, e, profile, settings.max_steps) * speed.step_seconds(e, z) for e, z in cells
    }
    return TimeBudget(
        seconds,
        budget_text(seconds),
        now() - base,
        reserve,
        setup,
        priced,
        workers,
        first=len(pending) == len(plan.grid.cells),
        base=base,
    )
