"""The training budget: optimizer steps with early stopping on dev, the same rule for every embedding.

A fixed number of *epochs* gives a 200-item cell a few dozen updates and a 14k-item cell thousands,
so small cells stopped long before they learned and the learning curves measured the budget. The
rule here counts optimizer steps instead:

- dev is scored every ``K`` steps, ``K`` = one epoch of the training set clamped to
  ``[EVAL_EVERY_MIN, EVAL_EVERY_MAX]`` steps (or ``TrainConfig.eval_every`` when set): often enough
  to see a small cell's curve, rarely enough that a large cell's dev passes stay a small share;
- a score better than the best so far (ties broken by a lower dev loss) is an improvement; the
  best-on-dev weights are kept;
- once dev has not improved for ``patience`` evaluations and at least ``min_steps`` steps (the
  floor) were taken, the learning rate is halved (an **anneal**, up to ``anneals`` times, patience
  counted afresh); the plateau after the last anneal stops training by **patience**. Without
  annealing, dev curves that creep up in small, noisy steps (static vectors at mid sizes) stopped
  on the first long plateau, 1-2 points below what a 4x budget reached; a halved rate settles them
  (``experiments/bench_convergence.py``). Training also stops at the **ceiling**, ``max_steps``;
- a cell that stopped at the ceiling stopped while dev was still improving (patience had not run
  out): it is *under-trained*, and callers flag it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "ANNEAL_FACTOR",
    "EVAL_EVERY_MAX",
    "EVAL_EVERY_MIN",
    "STOPPED_BY",
    "EarlyStopping",
    "eval_interval",
]

EVAL_EVERY_MIN = 20  # steps: a 200-item cell (4 steps an epoch) is still scored every 20 updates
EVAL_EVERY_MAX = 100  # steps: a 14k-item cell (220 steps an epoch) is scored ~2x an epoch
#: Why a cell stopped: patience ran out (converged on dev) or the step ceiling was reached.
ANNEAL_FACTOR = 0.5  # each anneal halves the learning rate
STOPPED_BY: tuple[str, ...] = ("patience", "ceiling")


def eval_interval(n_items: int, batch_size: int, eval_every: int | None = None) -> int:
    """Steps between two dev evaluations: ``eval_every`` if set, else one epoch clamped to [20, 100]."""
    if eval_every is not None:
        return eval_every
    steps_per_epoch = math.ceil(max(n_items, 1) / batch_size)
    return min(max(steps_per_epoch, EVAL_EVERY_MIN), EVAL_EVERY_MAX)


def _is_better(score: float, loss: float, best_score: float, best_loss: float) -> bool:
    return score > best_score or (score == best_score and loss < best_loss)


@dataclass
class EarlyStopping:
    """Reads each dev evaluation and says when to stop; remembers the best one and the history."""

    patience: int
    min_steps: int
    anneals: int = 0  # plateaus that halve the learning rate before the next one stops training
    annealed: int = 0
    best_score: float = -1.0
    best_loss: float = float("inf")
    best_step: int = 0
    since_best: int = 0
    history: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    def observe(self, step: int, score: float, loss: float) -> bool:
        """Record one evaluation; True when it is the best so far (the caller keeps these weights)."""
        self.history.append(score)
        self.steps.append(step)
        if _is_better(score, loss, self.best_score, self.best_loss):
            self.best_score, self.best_loss, self.best_step = score, loss, step
            self.since_best = 0
            return True
        self.since_best += 1
        return False

    def patience_ran_out(self, step: int) -> bool:
        """Dev has not improved for ``patience`` evaluations and the floor of steps is behind us."""
        return step >= self.min_steps and self.since_best >= self.patience

    def next_move(self, step: int) -> str:
        """After an evaluation: ``"train"`` on, ``"anneal"`` (halve the rate, patience afresh) or ``"stop"``."""
        if not self.patience_ran_out(step):
            return "train"
        if self.annealed < self.anneals:
            self.annealed += 1
            self.since_best = 0
            return "anneal"
        return "stop"
