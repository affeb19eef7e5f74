"""The executor's schedule: a parallel pool starts the largest cells first (issue 17)."""

from __future__ import annotations

from advisor.grid import Cell
from advisor.pipeline._execute import _largest_first


def test_largest_cells_first_in_grid_order_within_a_size() -> None:
    grid = [Cell(e, size, seed) for size in (100, 200, 400) for seed in (0, 1) for e in ("random", "static")]
    order = _largest_first(grid)
    assert [c.size for c in order] == sorted((c.size for c in grid), reverse=True)
    assert [c for c in order if c.size == 200] == [c for c in grid if c.size == 200]
    assert sorted(order, key=grid.index) == grid  # every cell once
