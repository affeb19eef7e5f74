"""The learning rate of each family, chosen on dev with the same small grid for every family.

One learning rate for all families favours whichever family it happens to suit: a 50-d GloVe table
and an 800-d random table behind the same projection want different step sizes. So, before the
grid, each frozen family trains one model per learning rate of the profile's grid and per tuning
seed (the grid's first ``Profile.lr_seeds`` seeds) at one middle size with the run's step budget, and the rate with the
best **mean dev** score (never test) is used at every size of that family. One seed was not enough:
two rates a seed's noise apart were picked by chance and moved small cells by up to 7 points
(``experiments/bench_convergence.py``). Every family gets exactly the same tuning effort.

The choice is stored on the parent run (tag ``advisor.lr.<family>``, table ``analysis/tuning.json``)
so a resumed run reuses it and never mixes rates within a family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from advisor.grid import Cell, GridPlan
from advisor.tracking import LR_TAG, known_rates

__all__ = ["LR_TAG", "TUNING_TABLE", "LearningRates", "choose_learning_rates", "known_rates", "tuning_size"]

TUNING_TABLE = "analysis/tuning.json"


@dataclass
class LearningRates:
    """The rate per family and the dev scores it was chosen from (empty when nothing was tuned now)."""

    rates: dict[str, float]
    table: pd.DataFrame  # embedding, size, seed, lr, dev_score, steps, under_trained, chosen


def tuning_size(grid: GridPlan) -> int:
    """The middle size of the grid (the lower middle for an even count): cheap, yet on the curve."""
    return grid.sizes[(len(grid.sizes) - 1) // 2]


def _best(rows: list[dict[str, Any]], lr_grid: tuple[float, ...]) -> float:
    """The rate with the best mean dev score over the tuning seeds; a tie goes to the grid's middle."""
    middle = lr_grid[(len(lr_grid) - 1) // 2]
    mean_dev = pd.DataFrame(rows).groupby("lr")["dev_score"].mean()
    return float(max(mean_dev.index, key=lambda lr: (mean_dev[lr], -abs(lr - middle))))


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
        for cell, result, _ in train(cells)
    ]
    table = pd.DataFrame(
        rows, columns=["embedding", "size", "seed", "lr", "dev_score", "steps", "under_trained"]
    )
    rates = {f: _best([r for r in rows if r["embedding"] == f], lr_grid) for f in table["embedding"].unique()}
    table["chosen"] = [rates[e] == lr for e, lr in zip(table["embedding"], table["lr"], strict=True)]
    return LearningRates(rates, table)
