"""The executor: each child run gets its cells in grid order, whatever order the workers (local or Ray)
finish them."""

from __future__ import annotations

import time

import pytest

from advisor.grid import Cell
from advisor.pipeline import _execute
from advisor.pipeline._execute import _in_flight, _InChildOrder, train_cells

# A fake cell's duration: a child's first (smaller) cell is the slow one, so finish order != grid order.
_SECONDS = {1: 0.8, 2: 0.05}


def _fake_train_one(cell: Cell, state: dict) -> tuple[Cell, float, float]:
    """Forked workers run this instead of training: it returns the time the cell started."""
    started = time.time()
    time.sleep(_SECONDS[cell.size])
    return cell, started, time.time() - started


def test_outcomes_are_held_until_the_same_childs_smaller_cells_are_out() -> None:
    small, large, other = Cell("static", 1, 0), Cell("static", 2, 0), Cell("static", 2, 1)
    order = _InChildOrder([small, other, large])
    assert order.release((large, "L", 0.0)) == []  # its child's size-1 cell is not out yet
    assert order.release((other, "O", 0.0)) == [(other, "O", 0.0)]
    assert order.release((small, "S", 0.0)) == [(small, "S", 0.0), (large, "L", 0.0)]


def test_a_child_gets_its_cells_in_size_order_when_the_larger_finishes_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_execute, "train_one", _fake_train_one)  # before the fork: workers inherit it
    cells = [Cell("static", 1, 0), Cell("static", 2, 0)]
    outcomes = list(train_cells(cells, {}, n_workers=2))
    assert [cell for cell, _, _ in outcomes] == cells
    first_start, second_start = outcomes[0][1], outcomes[1][1]
    assert second_start < first_start + _SECONDS[1]  # they did run side by side


class _LastFirst:
    """A fake transport (as Ray or the process pool): the most recently submitted cell finishes first."""

    def __init__(self) -> None:
        self.submitted: list[Cell] = []
        self.stopped: list[Cell] | None = None

    def submit(self, cell: Cell) -> Cell:
        self.submitted.append(cell)
        return cell

    def wait_any(self, running: list[Cell]) -> tuple[list[tuple[Cell, str, float]], list[Cell]]:
        return [(running[-1], "r", 0.0)], running[:-1]

    def stop(self, running: list[Cell]) -> None:
        self.stopped = list(running)


def test_any_transport_gets_the_window_and_the_child_order() -> None:
    cells = [Cell("static", size, seed) for seed in (0, 1) for size in (1, 2, 3)]
    fake = _LastFirst()
    outcomes = list(_in_flight(cells, 2, fake.submit, fake.wait_any, fake.stop))
    assert fake.submitted == cells  # submitted in grid order
    by_child = {seed: [c.size for c, _, _ in outcomes if c.seed == seed] for seed in (0, 1)}
    assert by_child == {0: [1, 2, 3], 1: [1, 2, 3]}
    assert fake.stopped is None  # finished cleanly: nothing to stop


def test_leaving_early_stops_what_still_runs() -> None:
    first, second = Cell("static", 1, 0), Cell("static", 1, 1)
    fake = _LastFirst()
    outcomes = _in_flight([first, second], 2, fake.submit, fake.wait_any, fake.stop)
    assert next(outcomes)[0] == second
    outcomes.close()  # Ctrl-C or an error in the caller
    assert fake.stopped == [first]
