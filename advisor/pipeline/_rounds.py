"""``--until decided`` (issue 31): train the grid round by round, evidence first, and stop once the
verdict is settled.

Why a module of its own: the runner trains a batch of cells per call; here the batches are the rounds
of :func:`advisor.grid.evidence_rounds` (one seed of every family at the largest size, then the next
seed there, …), and after each round at the largest size the early verdict
(:func:`advisor.verdict.early_verdict`, an alpha-spending rule over the looks) is printed and logged.
A settled look stops the run: the cells not trained are recorded on the parent (the verdict states
them) and the extension to smaller sizes is skipped. Unsettled after the last seed there, the rest of
the grid trains in one batch and the full verdict decides.

Resume: each look is computed from the finished cells of the rounds so far only (never from cells of
a later round an interrupted run left behind) with the seeded bootstrap, so a re-run re-derives the
same looks and the same stop, and trains nothing a stopped run did not train.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from advisor._error_codes import E232
from advisor.grid import Cell, evidence_rounds
from advisor.pipeline._plan import RunPlan
from advisor.pipeline._sink import CellSink
from advisor.progress import CellClock
from advisor.settings import UNTIL
from advisor.stats import item_scores
from advisor.tracking import EARLY_STOP_TAG, EARLY_VERDICT_TAG, written_analysis

__all__ = ["Stop", "check_until", "train_until_decided"]


def check_until(until: str) -> None:
    """``--until`` is one of :data:`advisor.settings.UNTIL` (checked before any run exists)."""
    if until not in UNTIL:
        raise E232(kind="--until value", name=until, choices=", ".join(UNTIL))


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
) -> Stop | None:
    """Train ``pending`` round by round (``train`` one batch per call), looking after each round at the
    largest size; the settled :class:`Stop`, or None when the whole grid was trained. ``clock``: the
    training ETA, which counts the later rounds too (the worst case: no stop)."""
    tracker, cells = sink.tracker, plan.grid.cells
    largest, looks = max(plan.grid.sizes), len(plan.grid.seeds)
    rounds, done = evidence_rounds(cells), []
    while rounds and rounds[0][0].size >= largest:  # the looks: one per seed at the largest size
        batch = rounds.pop(0)
        if clock is not None:  # ``train`` plans the batch itself; the clock holds the rounds after it
            clock.remaining.clear()
            clock.plan((c.embedding, c.size) for later in rounds for c in later if c in pending)
        _train_pending(batch, pending, train)
        done += batch
        if batch[0].size > largest:  # a family's own cells above the grid (none normally): no look
            continue
        early = _look(sink, done, looks, largest)
        if early is None:
            continue
        line = early.describe(len(done), len(cells))
        notify(event("early", len(done), len(cells), line))
        tracker.log_parent_tags({EARLY_VERDICT_TAG: line})
        not_run = [c for c in cells if not tracker.is_finished(c.embedding, c.size, c.seed)]
        if early.settled and not_run:
            stop = Stop(early, not_run, len(cells))
            tracker.log_parent_tags({EARLY_STOP_TAG: stop.tag()})
            return stop
    tracker.log_parent_tags({EARLY_STOP_TAG: ""})  # a re-run that finishes the grid clears an older stop
    if clock is not None:
        clock.remaining.clear()
    _train_pending([c for batch in rounds for c in batch], pending, train)  # the smaller sizes, at once
    return None


def _train_pending(batch: list[Cell], pending: list[Cell], train: Callable[[list[Cell]], None]) -> None:
    todo = [c for c in batch if c in pending]
    if todo:
        train(todo)


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
