"""Cells a family trains itself (``Family.train``: the fine-tuned reference), after the executor's.

Why apart from the executor: such a family is no frozen feature table under a small head (the
fine-tuned reference trains a whole encoder), so its cells run in this process, one at a time, once
the executor's cells are done; which families do is read from the registry, not from their names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from advisor.data import DataSplits
from advisor.grid import Cell
from advisor.pipeline._execute import CellOutcome
from advisor.vocabulary import FAMILIES, family

__all__ = ["then_own_trainers", "trains_itself"]


def trains_itself(cell: Cell) -> bool:
    """Whether ``cell``'s family declares a trainer of its own (the rest go to the executor)."""
    return family(cell.embedding).train is not None


def then_own_trainers(
    executed: Iterator[CellOutcome],
    pending: Sequence[Cell],
    options: dict[str, dict[str, Any]],
    splits: DataSplits,
) -> Iterator[CellOutcome]:
    """The executor's cells as they finish, then each family's own cells of ``pending`` (registry
    order, plan order within a family) from its trainer; closing it stops the executor's workers too."""
    try:
        yield from executed
        for name, declared in FAMILIES.items():
            cells = [c for c in pending if c.embedding == name]
            if declared.train is not None and cells:
                yield from declared.train(cells, options[name], splits)
    finally:
        close = getattr(executed, "close", None)
        if close is not None:
            close()
