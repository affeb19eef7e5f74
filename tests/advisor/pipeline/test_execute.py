"""The executor: each child run gets its cells in grid order, whatever order the workers (local or Ray)
finish them."""

from __future__ import annotations

import time

import pytest

from advisor.grid import Cell
from advisor.pipeline import _execute
from advisor.pipeline._execute import _in_flight, _InChildOrder, reusing, train_cells

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


# -- workers die with their parent (issue 28) ---------------------------------------------------------

_ORPHAN_SCRIPT = """
import sys, time
from advisor.grid import Cell
from advisor.pipeline import _execute

def stuck(cell, state):
    time.sleep(600)

_execute.train_one = stuck  # before the fork: the workers inherit it
if sys.argv[1] == "off":
    _execute._die_with_parent = lambda pid: None
outcomes = _execute.train_cells([Cell("static", 1, 0), Cell("static", 1, 1)], {}, n_workers=2)
next(outcomes)
"""


def _workers_of(pid: int, want: int, timeout: float = 60.0) -> list:
    import psutil

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = psutil.Process(pid).children(recursive=True)
        if len(children) >= want:
            return children
        time.sleep(0.2)
    raise AssertionError(f"no {want} workers appeared within {timeout} s")


def _survivors_of_kill_9(death_signal: str) -> list:
    """Start a run's worker pool in a subprocess, ``kill -9`` it, return the workers alive 15 s later."""
    import os
    import signal
    import subprocess
    import sys

    import psutil

    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_SCRIPT, death_signal])
    workers: list = []
    try:
        workers = _workers_of(parent.pid, 2)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        _, alive = psutil.wait_procs(workers, timeout=15)
        return alive
    finally:
        if parent.poll() is None:
            parent.kill()
        for worker in workers:
            if worker.is_running():
                worker.kill()


def test_workers_die_when_the_parent_is_killed_with_sigkill() -> None:
    """kill -9 of the run leaves no orphaned training worker (they were alive 180 s later before)."""
    assert _survivors_of_kill_9("on") == []


def test_without_the_death_signal_workers_outlive_the_parent() -> None:
    """The check above can fail: with the death signal switched off, both workers survive the kill."""
    assert len(_survivors_of_kill_9("off")) == 2


def test_reusing_hands_on_known_outcomes_once_in_child_order_and_trains_the_rest() -> None:
    cells = [Cell(e, size, 0) for size in (10, 20) for e in ("static", "random")]
    known = {Cell("static", 20, 0): (Cell("static", 20, 0), "trial", 1.0)}
    trained: list[Cell] = []

    def execute(batch: list[Cell]):
        for cell in batch:
            trained.append(cell)
            yield cell, "trained", 2.0

    handed = [(cell.embedding, cell.size, result) for cell, result, _ in reusing(known, execute)(cells)]
    assert trained == [c for c in cells if c != Cell("static", 20, 0)] and known == {}
    assert handed.index(("static", 10, "trained")) < handed.index(("static", 20, "trial"))  # child order
    assert sorted(handed) == sorted(
        [
            ("static", 10, "trained"),
            ("random", 10, "trained"),
            ("random", 20, "trained"),
            ("static", 20, "trial"),
        ]
    )
    assert [c for c, _, _ in reusing({}, execute)(cells[:1])] == cells[:1]  # nothing known: execute as is


def test_a_ray_task_asks_for_one_cpu_and_on_a_gpu_a_share_of_it() -> None:
    from advisor.pipeline._execute import CELLS_PER_GPU, ray_task_resources

    assert ray_task_resources("cpu") == {"num_cpus": 1, "num_gpus": 0}
    assert ray_task_resources("cuda:0") == {"num_cpus": 1, "num_gpus": 1 / CELLS_PER_GPU}
    assert CELLS_PER_GPU * ray_task_resources("cuda")["num_gpus"] == 1  # a one-GPU cluster: 8 at once


def test_a_gpu_gets_as_many_default_workers_as_its_free_memory_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import torch

    free = {"bytes": 3 * _execute.GPU_BYTES_PER_WORKER + 5}
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (free["bytes"], 80 * 2**30))
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert _execute.worker_count(None, "cuda", 100) == 3
    assert _execute.worker_count(6, "cuda", 100) == 6  # --workers is taken as given
    assert _execute.worker_count(None, "cpu", 100) == 8  # a CPU run does not ask the GPU
    free["bytes"] = 10
    assert _execute.worker_count(None, "cuda:0", 100) == 1
