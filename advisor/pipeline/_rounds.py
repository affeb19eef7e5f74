"""``--until decided`` (issue 31): train the grid round by round, evidence first, and stop once the
verdict is settled.

Why a module of its own: the runner trains a batch of cells per call; here the batches are the rounds
of :func:`advisor.grid.evidence_rounds` (one seed of every family at the largest size, then the next
seed there, …), and after each round at the largest size the early verdict
(:func:`advisor.verdict.early_verdict`, an alpha-spending rule over the looks) is printed and logged.
A settled look stops the run: the cells not trained are recorded on the parent (the verdict states
them) and the extension to smaller sizes is skipped. A settled "use contextual" first finishes the
cheaper families' curves that the "label more data" rule reads (:func:`advisor.verdict.curves_to_finish`:
their remaining rounds, contextual's cells left out; another cheaper family such as distilled gets its
remaining seeds at the largest size, :func:`advisor.verdict.seeds_to_finish`, so the best cheaper family
is chosen on the full grid's seeds), so the verdict can still say "label more data instead" where the
full grid would. Unsettled after the last seed there, the rest of the grid trains in
one batch and the full verdict decides.

Resume: each look is computed from the finished cells of the rounds so far only (never from cells of
a later round an interrupted run left behind) with the seeded bootstrap, so a re-run re-derives the
same looks and the same stop, and trains nothing a stopped run did not train.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from advisor._error_codes import E232
from advisor.grid import Cell, evidence_rounds
from advisor.pipeline._budget import BudgetStop, TimeBudget, check_budget
from advisor.pipeline._plan import RunPlan
from advisor.pipeline._sink import CellSink
from advisor.progress import CellClock
from advisor.settings import UNTIL
from advisor.stats import item_scores
from advisor.tracking import (
    BUDGET_STOP_TAG,
    BUDGET_TAG,
    EARLY_STOP_TAG,
    EARLY_VERDICT_TAG,
    written_analysis,
)

__all__ = ["Stop", "check_until", "train_until_decided"]


def check_until(until: str, budget: str | None = None) -> None:
    """``--until`` is one of :data:`advisor.settings.UNTIL`, ``--budget`` a duration or None (checked
    before any run exists)."""
    if until not in UNTIL:
        raise E232(kind="--until value", name=until, choices=", ".join(UNTIL))
    check_budget(budget)


@dataclass(frozen=True)
class Stop:
    """A settled stop: the early verdict that settled it and the planned cells that were not trained."""

    early: Any  # advisor.verdict.EarlyVerdict
    not_run: list[Cell]
    total: int

    def tag(self) -> str:
        """The parent tag's JSON (``advisor.verdict`` reads it back as the run's settled stop)."""
        e = self.early
        return json.dumps(
            {
                "verdict": e.verdict,
                "pair": e.pair,
                "gap": e.gap,
                "prob_above": e.prob_above,
                "size": e.size,
                "seeds": e.seeds,
                "looks": e.looks,
                "level": e.level,
                "total": self.total,
                "not_run": [list(c.key) for c in self.not_run],
            }
        )


def train_until_decided(
    plan: RunPlan,
    pending: list[Cell],
    sink: CellSink,
    train: Callable[[list[Cell]], None],
    notify: Callable[[Any], None],
    event: Callable[..., Any],
    clock: CellClock | None = None,
    budget: TimeBudget | None = None,
    decided: bool = True,
    started: float | None = None,
) -> Stop | BudgetStop | None:
    """Train ``pending`` round by round (``train`` one batch per call), looking after each round at the
    largest size when ``decided``; the settled :class:`Stop`, the :class:`BudgetStop` of a ``budget``
    whose next round does not fit (:mod:`advisor.pipeline._budget`), or None when the whole grid was
    trained. ``clock``: the training ETA, which counts the later rounds too (the worst case: no stop);
    ``started``: the run's start (``time.perf_counter``), for ``timings["first_early_verdict"]``."""
    tracker, cells = sink.tracker, plan.grid.cells
    largest, looks = max(plan.grid.sizes), len(plan.grid.seeds)
    rounds, done = evidence_rounds(cells), []
    if budget is not None:
        _announce(budget, rounds, pending, len(cells), notify, event)
    while rounds and (budget is not None or (decided and rounds[0][0].size >= largest)):
        if budget is not None and not budget.admits([c for c in rounds[0] if c in pending]):
            return _budget_stop(budget, cells, tracker, notify, event, decided)
        batch = rounds.pop(0)
        _plan_after(clock, rounds, pending)
        _train_round(batch, pending, train, budget)
        done += batch
        if not decided or batch[0].size != largest:  # a family's own cells above the grid: no look
            continue
        stop = _look_and_stop(sink, done, looks, largest, cells, notify, event, started)
        if stop is not None:
            return _finish_curves(stop, rounds, plan, pending, sink, train, notify, event, clock, budget)
    if decided:
        tracker.log_parent_tags({EARLY_STOP_TAG: ""})  # a re-run that finishes the grid clears an older stop
    if clock is not None:
        clock.remaining.clear()
    _train_round([c for batch in rounds for c in batch], pending, train, None)  # the smaller sizes, at once
    return _without_budget_stop(None, tracker, budget)


def _look_and_stop(
    sink: CellSink,
    done: list[Cell],
    looks: int,
    largest: int,
    cells: list[Cell],
    notify: Callable[[Any], None],
    event: Callable[..., Any],
    started: float | None,
) -> Stop | None:
    """The early verdict after a round at the largest size, printed and tagged; the stop when settled."""
    tracker = sink.tracker
    early = _look(sink, done, looks, largest)
    if early is None:
        return None
    line = early.describe(len(done), len(cells))
    if started is not None:  # seconds from the run's start to its first early verdict (the benchmark's)
        sink.timings.setdefault("first_early_verdict", time.perf_counter() - started)
    notify(event("early", len(done), len(cells), line))
    tracker.log_parent_tags({EARLY_VERDICT_TAG: line})
    not_run = _untrained(cells, tracker)
    if not (early.settled and not_run):
        return None
    stop = Stop(early, not_run, len(cells))
    tracker.log_parent_tags({EARLY_STOP_TAG: stop.tag()})
    return stop


def _finish_curves(
    stop: Stop,
    rounds: list[list[Cell]],
    plan: RunPlan,
    pending: list[Cell],
    sink: CellSink,
    train: Callable[[list[Cell]], None],
    notify: Callable[[Any], None],
    event: Callable[..., Any],
    clock: CellClock | None,
    budget: TimeBudget | None,
) -> Stop | BudgetStop | None:
    """After a settled stop: the remaining rounds of the families whose curves the verdict still reads
    (evidence first; the budget still applies), then the stop again with the cells that stayed untrained."""
    tracker, cells = sink.tracker, plan.grid.cells
    rest, line = _still_to_train(stop.early.verdict, rounds, plan)
    todo = [c for r in rest for c in r if c in pending]
    if todo:
        notify(event("early", len(cells) - len(stop.not_run), len(cells), f"{line} ({len(todo)} cells)"))
    if budget is None:  # no look and no budget between them: one batch keeps every worker busy
        rest = [[c for r in rest for c in r]] if rest else []
    while rest:
        if budget is not None and not budget.admits([c for c in rest[0] if c in pending]):
            return _budget_stop(budget, cells, tracker, notify, event, decided=False)  # keeps the stop
        batch = rest.pop(0)
        _plan_after(clock, rest, pending)
        _train_round(batch, pending, train, budget)
    not_run = _untrained(cells, tracker)
    stop = replace(stop, not_run=not_run)
    tracker.log_parent_tags({EARLY_STOP_TAG: stop.tag()})
    return _without_budget_stop(stop, tracker, budget)


def _still_to_train(claim: str, rounds: list[list[Cell]], plan: RunPlan) -> tuple[list[list[Cell]], str]:
    """The remaining rounds cut to the cells a run settled on ``claim`` still trains (the curves the
    verdict reads, and the other cheaper families' seeds at the largest size), and the line announcing them."""
    from advisor.verdict import curves_to_finish, seeds_to_finish

    finish = curves_to_finish(claim, plan.grid.embeddings)
    seeds_of, largest = seeds_to_finish(claim, plan.grid.embeddings), max(plan.grid.sizes)

    def wanted(c: Cell) -> bool:
        return c.embedding in finish or (c.embedding in seeds_of and c.size == largest)

    rest = [r for r in ([c for c in batch if wanted(c)] for batch in rounds) if r]
    line = f"settled; training {' and '.join(finish)} at every size for the 'label more data' option"
    if seeds_of:
        line += f", and {' and '.join(seeds_of)} at {largest:,} items to pick the best cheaper family"
    return rest, line


def _untrained(cells: list[Cell], tracker: Any) -> list[Cell]:
    """The planned cells the store holds no finished run of (what a stop states as not run)."""
    return [c for c in cells if not tracker.is_finished(c.embedding, c.size, c.seed)]


def _plan_after(clock: CellClock | None, later: list[list[Cell]], pending: list[Cell]) -> None:
    """The training ETA's plan before a round: ``train`` plans the round itself, the clock holds the
    rounds after it (the worst case: no stop)."""
    if clock is not None:
        clock.remaining.clear()
        clock.plan((c.embedding, c.size) for r in later for c in r if c in pending)


def _announce(
    budget: TimeBudget,
    rounds: list[list[Cell]],
    pending: list[Cell],
    total: int,
    notify: Callable[[Any], None],
    event: Callable[..., Any],
) -> None:
    """The plan before the first cell: how many of the cells still to train the budget fits."""
    todo = [[c for c in r if c in pending] for r in rounds]
    fits, left = budget.planned_cells(todo), sum(map(len, todo))
    already = f", {total - left} already finished" if total > left else ""
    line = f"budget {budget.text}: about {fits} of the {left} cells to compute fit (evidence first{already})"
    notify(event("budget", total - left, total, line))


def _train_round(
    batch: list[Cell], pending: list[Cell], train: Callable[[list[Cell]], None], budget: TimeBudget | None
) -> None:
    """The cells of ``batch`` still pending, in one ``train`` call (through ``budget`` when one is set)."""
    todo = [c for c in batch if c in pending]
    if todo and budget is not None:
        budget.train(todo, train)
    elif todo:
        train(todo)


def _budget_stop(
    budget: TimeBudget,
    cells: list[Cell],
    tracker: Any,
    notify: Callable[[Any], None],
    event: Callable[..., Any],
    decided: bool,
) -> BudgetStop:
    """The budget's stop: the cells not trained, on the parent and in the progress display."""
    not_run = _untrained(cells, tracker)
    stop = BudgetStop(budget.text, budget.seconds, not_run, len(cells), budget.elapsed(), budget.waived)
    tags = {BUDGET_TAG: budget.text, BUDGET_STOP_TAG: stop.tag()}
    tracker.log_parent_tags(tags | ({EARLY_STOP_TAG: ""} if decided else {}))  # the budget stopped it
    notify(event("budget", len(cells) - len(not_run), len(cells), stop.describe()))
    return stop


def _without_budget_stop(stop: Stop | None, tracker: Any, budget: TimeBudget | None) -> Stop | None:
    """A run that ended without the budget stopping it clears an older budget stop (``--budget`` or none)."""
    tags = {BUDGET_TAG: budget.text if budget is not None else "", BUDGET_STOP_TAG: ""}
    tracker.log_parent_tags({k: v for k, v in tags.items() if v or tracker.tags.get(k)})
    return stop


def _look(sink: CellSink, done: list[Cell], looks: int, size: int) -> Any:
    """The early verdict from the cells of the rounds so far (their predictions: this process's, or
    read back once for cells an earlier process finished)."""
    from advisor.verdict import early_verdict

    sink.reuse([c for c in done if c.key not in sink.predictions])
    keys = {c.key for c in done}
    scores = item_scores(sink.task, sink.test.labels, {k: sink.predictions[k] for k in keys})
    analysis = written_analysis(sink.tracker, {}, scores)
    curves = analysis.curves
    cut = curves[[k in keys for k in zip(curves["embedding"], curves["size"], curves["seed"], strict=True)]]
    return early_verdict(replace(analysis, curves=cut.reset_index(drop=True)), looks, size=size)
