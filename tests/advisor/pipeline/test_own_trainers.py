"""Cells of a family with a trainer of its own follow the executor's, in this process; closing the
iterator early stops the executor's workers (its ``close``) before any of them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from advisor.grid import Cell
from advisor.pipeline import then_own_trainers, trains_itself
from advisor.vocabulary import Family, register_family, unregister_family

OWN = "self-trained"


class Executed:
    """The executor's iterator as the runner gets it: yields cells, and ``close`` stops its workers."""

    def __init__(self, cells: list[Cell]) -> None:
        self.left, self.closed = list(cells), False

    def __iter__(self) -> Iterator[tuple[Cell, Any, float]]:
        return self

    def __next__(self) -> tuple[Cell, Any, float]:
        if not self.left:
            raise StopIteration
        return self.left.pop(0), "executor", 0.0

    def close(self) -> None:
        self.closed = True


@pytest.fixture()
def own_family() -> Iterator[list[tuple[Sequence[Cell], dict[str, Any]]]]:
    """A family whose trainer records what it was asked to train (and with which options)."""
    calls: list[tuple[Sequence[Cell], dict[str, Any]]] = []

    def train(
        cells: Sequence[Cell], options: dict[str, Any], splits: Any
    ) -> Iterator[tuple[Cell, Any, float]]:
        calls.append((list(cells), options))
        for cell in cells:
            yield cell, "own", 0.0

    register_family(
        Family(OWN, 55, "trains itself", "Self-trained", "#000001", None, frozen=False, train=train)
    )
    try:
        yield calls
    finally:
        unregister_family(OWN)


def test_own_cells_follow_the_executors_with_their_options_and_close_it(own_family: list) -> None:
    frozen = [Cell("static", 20, 0), Cell("contextual", 20, 0)]
    own = [Cell(OWN, 40, 0), Cell(OWN, 40, 1)]
    assert [trains_itself(c) for c in frozen + own] == [False, False, True, True]
    executed = Executed(frozen)
    options = {"static": {}, "contextual": {}, OWN: {"epochs": 2}}
    outcomes = list(then_own_trainers(executed, own, options, splits=None))
    assert [(c, source) for c, source, _ in outcomes] == [
        *((c, "executor") for c in frozen), *((c, "own") for c in own),
    ]  # fmt: skip
    assert own_family == [(own, {"epochs": 2})] and executed.closed


def test_closing_early_stops_the_executor_before_any_own_cell(own_family: list) -> None:
    executed = Executed([Cell("static", 20, 0), Cell("static", 40, 0)])
    cells = then_own_trainers(executed, [Cell(OWN, 40, 0)], {OWN: {}}, splits=None)
    assert next(cells)[0] == Cell("static", 20, 0)
    cells.close()  # the runner's finally: an error or Ctrl-C while logging
    assert executed.closed and own_family == []
