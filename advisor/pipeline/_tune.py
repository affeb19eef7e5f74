"""The learning rate and projection width of each family, chosen on dev with the same small grid for
every family.

One learning rate for all families favours whichever family it happens to suit: a 50-d GloVe table
and an 800-d random table behind the same projection want different step sizes. So, before the
grid, each frozen family trains one model per (rate, width) of the profile's ``lr_grid`` x
``projections`` and per tuning seed (the grid's first ``Profile.lr_seeds`` seeds) at one middle size
with the run's step budget. Each setting is judged by a lower bound on its **dev** score (never test):
its mean over the tuning seeds less its own standard error (with two seeds, its worse seed). Among
the settings whose bound and mean both come within one standard error of the setting with the best
bound, the narrowest width wins, and at that width the largest rate; it is used at every size of that
family. Every family gets exactly the same tuning effort.

Why two seeds and the tie rule (``experiments/bench_convergence.py``): with one seed, rates a seed's
noise apart were picked by chance and moved small cells by up to 7 points. With the mean of two
seeds alone, WNUT-17 static still flipped between 3e-3 and 1e-2 (mean dev 38.0 vs 37.9 at 424
sentences) with the budget, and the two part at the full size: 1e-2 scored 29.5 / 30.6 test F1 at
1,697 / 3,394 sentences where 3e-3 scored 27.4 / 29.3 (default budget, 3 seeds each). Annealing
only ever lowers a rate, so among rates dev cannot tell apart the largest is the safe choice.

Why the width too (``bench_convergence.py --against projection=256``): one 64-d map in front of every
family widens 50-d GloVe and squeezes 384-d MiniLM. On TREC-6, static at 256 dimensions (dev 80.0 at
its best rate against 78.5) scored +1.0 / +2.6 / +2.6 test points at 1,227 / 2,454 / 4,907 items in
every seed; on WNUT-17 dev preferred 64 (38.2 against 36.7), and 256 scored 2.0-2.5 points lower at
212-848 sentences. Dev at the middle size told the two apart both times, so the width is chosen like
the rate. Among widths dev cannot tell apart the narrowest wins: it is cheaper and was never worse at
the small sizes.

Why a lower bound, not the mean: on the CoNLL-size proxy random's rate 1e-2 scored dev F1 25.7 on one
tuning seed and 6.9 on the other (a collapsed optimisation), and the mean rule still chose it,
because the pooled standard error that set the tie was itself widened by that collapse. A rate at
which one seed in two fails will fail seeds of the grid too. So the bound uses each rate's own
spread, and the tie uses the median of the rates' spreads, which one unstable rate cannot widen. A
tied rate must tie on the mean too: on MRPC, contextual's 1e-2 (dev 0.687 / 0.676, the majority label)
tied 1e-3 (0.717 / 0.681) on the bound alone, and as the larger rate it won and then stayed at the
majority label at every size (0.678-0.686 test accuracy where 1e-3 had reached 0.67-0.73).

The choice is stored on the parent run (tags ``advisor.lr.<family>`` and
``advisor.projection.<family>``; table ``analysis/tuning.json``) so a resumed run reuses it and never
mixes settings within a family. The trials at the chosen setting are the grid's cells at the tuning
size for the tuning seeds, trained exactly as the grid trains them; the runner logs them as those
cells instead of training them a second time (:attr:`LearningRates.trials`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from advisor.grid import Cell, GridPlan
from advisor.progress import CellClock
from advisor.tracking import LR_TAG, PROJECTION_TAG, known_rates, known_widths

__all__ = [
    "LR_TAG",
    "PROJECTION_TAG",
    "TUNING_TABLE",
    "LearningRates",
    "choose_learning_rates",
    "known_rates",
    "known_settings",
    "known_widths",
    "timed_trials",
    "trial_cells",
    "tuning_size",
]

TUNING_TABLE = "analysis/tuning.json"


@dataclass
class LearningRates:
    """The rate and width per family and the dev scores they were chosen from."""

    rates: dict[str, float]
    table: pd.DataFrame  # embedding, size, seed, lr, projection, dev_score, steps, under_trained, chosen
    #: The chosen setting's trial outcomes, keyed by the grid cell each one is.
    trials: dict[Cell, Any] = field(default_factory=dict)
    #: The projection width per family.
    widths: dict[str, int] = field(default_factory=dict)


def known_settings(tags: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The ``lr`` and (where one was tagged) ``projection`` of every family tuned earlier, from the
    parent run's tags: the ``TrainConfig`` fields the family's cells train with."""
    widths = known_widths(tags)
    return {
        e: {"lr": lr} | ({"projection": widths[e]} if e in widths else {})
        for e, lr in known_rates(tags).items()
    }


def tuning_size(grid: GridPlan) -> int:
    """The middle size of the grid (the lower middle for an even count): cheap, yet on the curve."""
    return grid.sizes[(len(grid.sizes) - 1) // 2]


def trial_cells(grid: GridPlan, families: Iterable[str], lr_seeds: list[int]) -> list[Cell]:
    """The grid cells the trials of ``families`` train at every setting: their features must exist before
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


#: How the setting is picked from the tuning table; part of the resume key (a new rule never mixes with old).
LR_CHOICE = "largest whose mean-minus-own-SE and mean are within 1 median SE of the best bound's"
#: The same with widths in the grid: among the tied settings the narrowest width, then the largest rate.
WIDTH_CHOICE = "narrowest width, then largest rate, among those within 1 median SE of the best bound's"


def _best(rows: list[dict[str, Any]]) -> tuple[float, int]:
    """The (rate, width) to use: among the settings whose lower bound (mean dev less its own standard
    error) and mean both come within one standard error of the setting with the best bound, the
    narrowest width, and at it the largest rate.

    The tie is one standard error from the median spread over settings. With one tuning seed both are
    zero and the best score wins outright (an exact tie: the narrowest width, the largest rate).
    """
    by_setting = pd.DataFrame(rows).groupby(["lr", "projection"])["dev_score"]
    seeds = int(by_setting.size().min())
    variance = by_setting.var(ddof=1).fillna(0.0)  # one seed: no spread (NaN), so 0
    mean = by_setting.mean()
    lower = mean - (variance / seeds) ** 0.5
    tolerance = float((variance.median() / seeds) ** 0.5) + 1e-12
    best = lower.idxmax()
    ties = (lower >= lower[best] - tolerance) & (mean >= mean[best] - tolerance)
    lr, width = min((setting for setting, tied in ties.items() if tied), key=lambda s: (s[1], -s[0]))
    return float(lr), int(width)


def choose_learning_rates(
    grid: GridPlan,
    families: Iterable[str],
    lr_grid: tuple[float, ...],
    lr_seeds: list[int],
    train: Callable[[list[Cell]], Iterator[tuple[Cell, Any, float]]],
    *,
    widths: tuple[int, ...],
    done: pd.DataFrame | None = None,
    keep: Callable[[pd.DataFrame], None] | None = None,
) -> LearningRates:
    """Train each family at :func:`tuning_size` per rate of ``lr_grid``, width of ``widths`` and tuning
    seed; the setting :func:`_best` picks on dev wins.

    ``done``: trials an interrupted process finished (tuning-table rows), not trained again;
    ``keep`` is handed every trial row so far after each trial ends, so an interruption loses none."""
    size = tuning_size(grid)
    cells = [
        Cell(f, size, seed, lr=lr, projection=width)
        for f in families
        for width in widths
        for lr in lr_grid
        for seed in lr_seeds
    ]
    known = _known_trials(done, cells)
    outcomes = []
    for cell, result, seconds in train([c for c in cells if c not in known]):
        outcomes.append((cell, result, seconds))
        known[cell] = _row(cell, result)
        if keep is not None:
            keep(pd.DataFrame(list(known.values()), columns=[*_COLUMNS]))
    rows = [known[cell] for cell in cells]
    table = pd.DataFrame(rows, columns=[*_COLUMNS])
    best = {f: _best([r for r in rows if r["embedding"] == f]) for f in table["embedding"].unique()}
    settings = zip(table["embedding"], table["lr"], table["projection"], strict=True)
    table["chosen"] = [best[e] == (lr, width) for e, lr, width in settings]
    rates, chosen_widths = ({f: choice[i] for f, choice in best.items()} for i in (0, 1))
    return LearningRates(rates, table, _grid_cells(outcomes, best), chosen_widths)


def _known_trials(done: pd.DataFrame | None, cells: list[Cell]) -> dict[Cell, dict[str, Any]]:
    """The rows of ``done`` that are trials of ``cells`` (same family, size, seed, rate and width)."""
    if done is None or done.empty:
        return {}
    wanted = set(cells)
    known = {}
    for row in done.to_dict("records"):
        setting = {"lr": float(row["lr"]), "projection": int(row["projection"])}
        cell = Cell(row["embedding"], int(row["size"]), int(row["seed"]), **setting)
        if cell in wanted:
            known[cell] = {k: row[k] for k in _COLUMNS} | {"under_trained": bool(row["under_trained"])}
    return known


_COLUMNS = ("embedding", "size", "seed", "lr", "projection", "dev_score", "steps", "under_trained")


def _row(cell: Cell, result: Any) -> dict[str, Any]:
    """One trial as a tuning-table row."""
    return {
        "embedding": cell.embedding,
        "size": cell.size,
        "seed": cell.seed,
        "lr": cell.lr,
        "projection": cell.projection,
        "dev_score": float(result.dev_score),
        "steps": int(result.steps),
        "under_trained": bool(result.under_trained),
    }


def _grid_cells(
    outcomes: list[tuple[Cell, Any, float]], best: dict[str, tuple[float, int]]
) -> dict[Cell, Any]:
    """The trials at each family's chosen (rate, width), as the grid cells they are: same size, seed,
    subset, setting and budget, so training that cell again would give the same result (the runner
    reuses them)."""
    kept = {}
    for cell, result, seconds in outcomes:
        if (cell.lr, cell.projection) == best[cell.embedding]:
            grid_cell = replace(cell, lr=None, projection=None)
            kept[grid_cell] = (grid_cell, result, seconds)
    return kept
