"""The left end of the grid: halve the smallest size until contextual's crossing of a cheaper family is bracketed.

When contextual's mean score already reaches a cheaper family's full-data mean at every size of the
grid, the data-efficiency figure is pinned at the grid's edge ("needs at most 1/16 of the data").
So the runner adds the next size down the powers-of-two series (every embedding, every seed: the
curves stay comparable, and the subsets stay nested prefixes of each seed's order) and trains it,
until contextual falls below the target at the smallest size or the next size would go under a
floor (50 items; for classification also 2 per class). What still matches there is reported
censored by the verdict.

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
    "with_size",
]

EXTENSION_FLOOR = 50  # items: below this a curve point says more about the subset drawn than the family
_CONTEXTUAL = "contextual"


@dataclass(frozen=True)
class Extension:
    """One step down: the size to add (None: the floor stops it) and why it is needed."""

    smallest: int  # the smallest size tried so far
    size: int | None  # the next size down, or None when it would go under the floor
    matched: tuple[str, ...]  # cheaper families whose full-data score contextual reaches at every size
    floor: int

    def describe(self) -> str:
        """One sentence for the progress display and the parent's tag."""
        who = f"contextual already reaches {' and '.join(self.matched)}'s full-data score at {self.smallest:,} items"
        if self.size is None:
            return (
                f"not extended below {self.smallest:,} items (floor {self.floor:,}): {who}, "
                "so the data-efficiency figure is censored"
            )
        return f"extended down to {self.size:,} items: {who}"


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


def next_extension(grid: GridPlan, scores: Mapping[CellKey, float], floor: int) -> Extension | None:
    """The next step down, or None when no cheaper family is matched at every size (bracketed)."""
    matched = matched_families(grid, scores)
    if not matched:
        return None
    smallest = min(grid.sizes)
    size = smaller_size(smallest, grid.full_size)
    return Extension(smallest, size if size >= max(floor, 1) else None, matched, floor)


def with_size(grid: GridPlan, size: int) -> GridPlan:
    """``grid`` with ``size`` added for every embedding and seed, its cells first (sizes ascending)."""
    cells = [Cell(e, size, seed) for seed in grid.seeds for e in grid.embeddings]
    return replace(grid, sizes=sorted({*grid.sizes, size}), cells=[*cells, *grid.cells])
