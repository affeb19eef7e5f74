"""The learning rate of each family, chosen on dev with the same small grid for every family.

One learning rate for all families favours whichever family it happens to suit: a 50-d GloVe table
and an 800-d random table behind the same projection want different step sizes. So, before the
grid, each frozen family trains one model per learning rate of the profile's grid and per tuning
seed (the grid's first ``Profile.lr_seeds`` seeds) at one middle size with the run's step budget.
Each rate is judged by a lower bound on its **dev** score (never test): its mean over the tuning
seeds less its own standard error (with two seeds, its worse seed). The largest rate whose bound and
mean both come within one standard error of the rate with the best bound is used at every size of
that family. Every family gets exactly the same tuning effort.

Why two seeds and the tie rule (``experiments/bench_convergence.py``): with one seed, rates a seed's
noise apart were picked by chance and moved small cells by up to 7 points. With the mean of two
seeds alone, WNUT-17 static still flipped between 3e-3 and 1e-2 (mean dev 38.0 vs 37.9 at 424
sentences) with the budget, and the two part at the full size: 1e-2 scored 29.5 / 30.6 test F1 at
1,697 / 3,394 sentences where 3e-3 scored 27.4 / 29.3 (default budget, 3 seeds each). Annealing
only ever lowers a rate, so among rates dev cannot tell apart the largest is the safe choice.

Why a lower bound, not the mean: on the CoNLL-size proxy random's rate 1e-2 scored dev F1 25.7 on one
tuning seed and 6.9 on the other (a collapsed optimisation), and the mean rule still chose it,
because the pooled standard error that set the tie was itself widened by that collapse. A rate at
which one seed in two fails will fail seeds of the grid too. So the bound uses each rate's own
spread, and the tie uses the median of the rates' spreads, which one unstable rate cannot widen. A
tied rate must tie on the mean too: on MRPC, contextual's 1e-2 (dev 0.687 / 0.676, the majority label)
tied 1e-3 (0.717 / 0.681) on the bound alone, and as the larger rate it won and then stayed at the
majority label at every size (0.678-0.686 test accuracy where 1e-3 had reached 0.67-0.73).

The choice is stored on the parent run (tag ``advisor.lr.<family>``, table ``analysis/tuning.json``)
so a resumed run reuses it and never mixes rates within a family. The trials at the chosen rate are the
grid's cells at the tuning size for the tuning seeds, trained exactly as the grid trains them; the
runner logs them as those cells instead of training them a second time (:attr:`LearningRates.trials`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from advisor.grid import Cell, GridPlan
from advisor.progress import CellClock
from advisor.tracking import LR_TAG, known_rates

__all__ = [
    "LR_TAG",
    "TUNING_TABLE",
    "LearningRates",
    "choose_learning_rates",
    "known_rates",
    "timed_trials",
    "trial_cells",
    "tuning_size",
]

TUNING_TABLE = "analysis/tuning.json"


@dataclass
class LearningRates:
    """The rate per family and the dev scores it was chosen from (empty when nothing was tuned now)."""

    rates: dict[str, float]
    table: pd.DataFrame  # embedding, size, seed, lr, dev_score, steps, under_trained, chosen
    #: The chosen rate's trial outcomes, keyed by the grid cell each one is.
    trials: dict[Cell, Any] = field(default_factory=dict)


def tuning_size(grid: GridPlan) -> int:
    """The middle size of the grid (the lower middle for an even count): cheap, yet on the curve."""
    return grid.sizes[(len(grid.sizes) - 1) // 2]


def trial_cells(grid: GridPlan, families: Iterable[str], lr_seeds: list[int]) -> list[Cell]:
    """The grid cells the trials of ``families`` train at every rate: their features must exist before
    tuning, even when the batch being trained (a round of ``--until decided``) holds none of them."""
    return [Cell(family, tuning_size(grid), seed) for family in families for seed in lr_seeds]


def timed_trials(
    execute: Callable[[list[Cell]], Iterator[Any]],
    notify: Callable[[Any], None],
    clock: CellClock,
    event: type,
) -> Callable[[list[Cell]], Iterator[Any]]:
    """``execute`` for the trials, reporting each (an ``event`` of stage "tune", with the ETA) as it ends."""

    def run(cells: list[Cell]) -> Iterator[Any]:
        clock.plan((c.embedding, c.size) for c in cells)
        for done, (cell, result, seconds) in enumerate(execute(cells), start=1):
            progress = event("tune", done, len(cells), cell=cell, score=result.dev_score, seconds=seconds)
            progress.eta = clock.finish(cell.embedding, cell.size, seconds, result.steps)
            progress.steps = result.steps
            notify(progress)
            yield cell, result, seconds

    return run


#: How the rate is picked from the tuning table; part of the resume key (a new rule never mixes with old).
LR_CHOICE = "largest whose mean-minus-own-SE and mean are within 1 median SE of the best bound's"


def _best(rows: list[dict[str, Any]]) -> float:
    """The largest rate whose lower bound (mean dev less its own standard error) and mean both come
    within one standard error of the rate with the best bound.

    The tie is one standard error from the median spread over rates. With one tuning seed both are
    zero and the best score wins outright (an exact tie: the largest rate).
    """
    by_rate = pd.DataFrame(rows).groupby("lr")["dev_score"]
    seeds = int(by_rate.size().min())
    variance = by_rate.var(ddof=1).fillna(0.0)  # one seed: no spread (NaN), so 0
    mean = by_rate.mean()
    lower = mean - (variance / seeds) ** 0.5
    tolerance = float((variance.median() / seeds) ** 0.5) + 1e-12
    best = lower.idxmax()
    ties = (lower >= lower[best] - tolerance) & (mean >= mean[best] - tolerance)
    return float(max(lr for lr, tied in ties.items() if tied))


def choose_learning_rates(
    grid: GridPlan,
    families: Iterable[str],
    lr_grid: tuple[float, ...],
    lr_seeds: list[int],
    train: Callable[[list[Cell]], Iterator[tuple[Cell, Any, float]]],
) -> LearningRates:
    """Train each family at :func:`tuning_size` per rate of ``lr_grid`` and tuning seed; best mean dev wins."""
    size = tuning_size(grid)
    cells = [Cell(f, size, seed, lr=lr) for f in families for lr in lr_grid for seed in lr_seeds]
    outcomes = list(train(cells))
    rows = [
        {
            "embedding": cell.embedding,
            "size": size,
            "seed": cell.seed,
            "lr": cell.lr,
            "dev_score": float(result.dev_score),
            "steps": int(result.steps),
            "under_trained": bool(result.under_trained),
        }
        for cell, result, _ in outcomes
    ]
    table = pd.DataFrame(
        rows, columns=["embedding", "size", "seed", "lr", "dev_score", "steps", "under_trained"]
    )
    rates = {f: _best([r for r in rows if r["embedding"] == f]) for f in table["embedding"].unique()}
    table["chosen"] = [rates[e] == lr for e, lr in zip(table["embedding"], table["lr"], strict=True)]
    return LearningRates(rates, table, _grid_cells(outcomes, rates))


def _grid_cells(outcomes: list[tuple[Cell, Any, float]], rates: dict[str, float]) -> dict[Cell, Any]:
    """The trials at each family's chosen rate, as the grid cells they are: same size, seed, subset,
    rate and budget, so training that cell again would give the same result (the runner reuses them)."""
    kept = {}
    for cell, result, seconds in outcomes:
        if cell.lr == rates[cell.embedding]:
            grid_cell = replace(cell, lr=None)
            kept[grid_cell] = (grid_cell, result, seconds)
    return kept
