"""The left end of the grid: halve the smallest size until contextual's crossing of a cheaper family is bracketed.

When contextual's mean score already reaches a cheaper family's full-data mean at every size of the
grid, the data-efficiency figure is pinned at the grid's edge ("needs at most 1/16 of the data").
So the runner adds the next size down the powers-of-two series (every embedding, every seed: the
curves stay comparable, and the subsets stay nested prefixes of each seed's order) and trains it,
until contextual falls below the target at the smallest size or the next size would go under a
floor (50 items; for classification also 2 per class). What still matches there is reported
censored by the verdict.

A cheaper family whose full-data cells are under-trained (a seed reached the step ceiling while dev
still improved) is not chased: its full-data score understates it, so bracketing contextual's match
with it would spend cells on a figure that overstates contextual's data efficiency (the verdict
already flags those cells). Its figure stays censored at the grid's edge, and the tag says why.

Every decision is a pure function of the finished scores, so a resumed run re-derives the same
extension and computes only its missing cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from advisor.grid import Cell, CellKey, GridPlan
from advisor.vocabulary import FAMILIES, one_label_per_item

__all__ = [
    "EXTENSION_FLOOR",
    "Extension",
    "extension_floor",
    "finished_scores",
    "matched_families",
    "next_extension",
    "smaller_size",
    "step_from_rows",
    "under_trained_cells",
    "with_size",
]

EXTENSION_FLOOR = 50  # items: below this a curve point says more about the subset drawn than the family
_CONTEXTUAL = "contextual"


@dataclass(frozen=True)
class Extension:
    """One step down: the size to add (None: nothing more is trained) and why it is needed.

    ``matched``: the converged cheaper families whose full-data score contextual reaches at every
    size; ``under_trained``: families it reaches too, not chased because their full-data cells are
    under-trained."""

    smallest: int  # the smallest size tried so far
    size: int | None  # the next size down; None under the floor or with nothing converged to chase
    matched: tuple[str, ...]
    floor: int
    under_trained: tuple[str, ...] = ()

    def describe(self) -> str:
        """One sentence for the progress display and the parent's tag."""
        if not self.matched:
            return f"not extended below {self.smallest:,} items: {self._not_chased()}"
        who = (
            f"contextual already reaches {_names(self.matched)}'s full-data score at {self.smallest:,} items"
        )
        if self.size is None:
            censored = "so the data-efficiency figure is censored"
            text = f"not extended below {self.smallest:,} items (floor {self.floor:,}): {who}, {censored}"
        else:
            text = f"extended down to {self.size:,} items: {who}"
        return f"{text}; {self._not_chased()}" if self.under_trained else text

    def _not_chased(self) -> str:
        """Why the under-trained families' matching sizes are not bracketed."""
        names = _names(self.under_trained)
        return (
            f"{names}'s full-data cells are under-trained (that score understates {names}), so contextual's "
            f"match with it at {self.smallest:,} items or fewer is not chased and its figure stays censored"
        )


def _names(families: tuple[str, ...]) -> str:
    return " and ".join(families)


def extension_floor(corpus: Any) -> int:
    """The smallest size the extension may add: 50 items, and 2 per class for classification and pairs."""
    if one_label_per_item(corpus.task):
        return max(EXTENSION_FLOOR, 2 * len(set(corpus.labels)))
    return EXTENSION_FLOOR


def smaller_size(smallest: int, full: int) -> int:
    """The next size below ``smallest`` in the grid's series ``round(full / 2**k)`` (0 when none)."""
    for k in range(1, 64):
        size = round(full / 2**k)
        if size < smallest:
            return max(size, 0)
    return 0


def finished_scores(rows: Mapping[CellKey, Mapping[str, Any]]) -> dict[CellKey, float]:
    """``(embedding, size, seed) -> score`` of the finished cells (the tracker's cell rows)."""
    return {key: float(row["score"]) for key, row in rows.items() if row.get("score") is not None}


def under_trained_cells(rows: Mapping[CellKey, Mapping[str, Any]]) -> frozenset[CellKey]:
    """Finished cells that reached the step ceiling while dev still improved (the tracker's cell rows)."""
    return frozenset(
        key
        for key, row in rows.items()
        if row.get("score") is not None and float(row.get("under_trained") or 0) > 0
    )


def _mean(scores: Mapping[CellKey, float], embedding: str, size: int, seeds: list[int]) -> float:
    """Mean over ``seeds`` in seed order (NaN when a cell is missing: an unfinished size proves nothing)."""
    values = [scores.get((embedding, size, seed), np.nan) for seed in sorted(seeds)]
    return float(np.mean(values)) if values else float("nan")


def matched_families(grid: GridPlan, scores: Mapping[CellKey, float]) -> tuple[str, ...]:
    """Cheaper families whose full-data mean contextual's mean curve reaches at every size of ``grid``.

    The same rule as the verdict's matching size (status "bound"), so the extension stops exactly
    where the efficiency figure stops being pinned at the grid's edge.
    """
    from advisor.verdict import matching_size  # the verdict's import cost only when asked

    if _CONTEXTUAL not in grid.embeddings or grid.full_size not in grid.sizes:
        return ()
    cost = FAMILIES[_CONTEXTUAL].cost
    sizes = sorted(grid.sizes)
    curve = np.array([_mean(scores, _CONTEXTUAL, size, grid.seeds) for size in sizes])
    matched = []
    for name in grid.embeddings:
        if name not in FAMILIES or FAMILIES[name].cost >= cost:
            continue
        target = _mean(scores, name, grid.full_size, grid.seeds)
        if np.isfinite(target) and matching_size(np.array(sizes, float), curve, target)[1] == "bound":
            matched.append(name)
    return tuple(matched)


def next_extension(
    grid: GridPlan,
    scores: Mapping[CellKey, float],
    floor: int,
    under_trained: frozenset[CellKey] = frozenset(),
) -> Extension | None:
    """The next step down, or None when no cheaper family is matched at every size (bracketed).

    A matched family with an under-trained full-data cell is named but not chased; when only such
    families are matched, the step has no size (nothing more is trained)."""
    matched = matched_families(grid, scores)
    if not matched:
        return None
    unconverged = tuple(
        name for name in matched if any((name, grid.full_size, seed) in under_trained for seed in grid.seeds)
    )
    chased = tuple(name for name in matched if name not in unconverged)
    smallest = min(grid.sizes)
    size = smaller_size(smallest, grid.full_size)
    if not chased:
        return Extension(smallest, None, (), floor, unconverged)
    return Extension(smallest, size if size >= max(floor, 1) else None, chased, floor, unconverged)


def step_from_rows(grid: GridPlan, rows: Mapping[CellKey, Mapping[str, Any]], floor: int) -> Extension | None:
    """:func:`next_extension` read from the tracker's cell rows (scores and under-trained flags)."""
    return next_extension(grid, finished_scores(rows), floor, under_trained_cells(rows))


def with_size(grid: GridPlan, size: int) -> GridPlan:
    """``grid`` with ``size`` added for every embedding and seed, its cells first (sizes ascending)."""
    cells = [Cell(e, size, seed) for seed in grid.seeds for e in grid.embeddings]
    return replace(grid, sizes=sorted({*grid.sizes, size}), cells=[*cells, *grid.cells])
