"""The executor: train cells in worker processes and yield ``(cell, result, seconds)`` as they finish.

The worker state (features, splits, subset orders, training config) reaches each worker through the
pool initializer: with ``fork`` the feature matrices are shared copy-on-write, never pickled through
a pipe, and the parent process sets no module state before forking. Results are identical whatever
the worker count: each cell's seed and subset come from the cell, not from the worker.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from advisor._error_codes import E211
from advisor.grid import Cell, subset_indices

__all__ = ["CellOutcome", "WorkerState", "cell_lr", "train_cells", "train_one", "worker_count"]

#: What a worker needs: ``features`` (per embedding: train/dev/test features, or random tables per
#: seed), ``splits``, ``orders`` (subset order per seed), ``config`` (``TrainConfig.to_dict()``) and
#: ``lrs`` (the learning rate chosen per family; a cell's own ``lr`` wins, ``config``'s is the fallback).
WorkerState = dict[str, Any]
CellOutcome = tuple[Cell, Any, float]  # (cell, trainers.TrainResult, seconds)

_STATE: WorkerState = {}  # filled in each worker by _worker_init; the parent never writes it


def worker_count(requested: int | None, device: str, n_cells: int) -> int:
    """Parallel CPU workers (one torch thread each); CUDA cannot be used from forked workers."""
    if requested is not None:
        if requested < 1:
            raise E211(option="--workers", requirement="be at least 1")
        return 1 if device.startswith("cuda") else min(requested, n_cells)
    if device.startswith("cuda") or sys.platform != "linux":
        return 1
    return max(1, min(os.cpu_count() or 1, 8, n_cells))


def _worker_init(state: WorkerState) -> None:
    import torch

    _STATE.update(state)
    torch.set_num_threads(1)  # before any op: keeps OpenMP from spawning threads after the fork
    # Ctrl-C and the app's Stop reach the whole process group; only the parent decides what they
    # mean (runs end KILLED). Workers ignore both and are killed by the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _features_for(cell: Cell, state: WorkerState, idx: Any) -> tuple[Any, Any, Any, Any]:
    """Train, dev and test features of ``cell``, and which train items it reads (``None``: all).

    Shared features are not copied per cell (a full-size layer stack is ~1.5 GB): the cell's train
    rows are read from them batch by batch (``fit_and_evaluate(train_items=...)``).
    """
    splits = state["splits"]
    entry = state["features"][cell.embedding]
    if isinstance(entry, dict):  # random: one table per seed; its rows are read per batch, never copied
        table = entry[cell.seed]
        return (
            table.table_view(splits.train.subset(idx)),
            table.table_view(splits.dev),
            table.table_view(splits.test),
            None,
        )
    train_feats, dev_feats, test_feats = entry
    return train_feats, dev_feats, test_feats, idx


def cell_lr(cell: Cell, state: WorkerState) -> float:
    """A trial's own rate, else the family's chosen one, else the config's (``--lr`` or the default)."""
    return cell.lr or state.get("lrs", {}).get(cell.embedding) or state["config"]["lr"]


def train_one(cell: Cell, state: WorkerState) -> CellOutcome:
    """Train and evaluate one cell from ``state`` (a worker's, or the one Ray ships per task)."""
    from trainers import TrainConfig, fit_and_evaluate

    t0 = time.perf_counter()
    splits = state["splits"]
    idx = subset_indices(state["orders"][cell.seed], cell.size)
    train_feats, dev_feats, test_feats, items = _features_for(cell, state, idx)
    config = TrainConfig(**{**state["config"], "seed": cell.seed, "lr": cell_lr(cell, state)})
    result = fit_and_evaluate(
        train_feats,
        splits.train.subset(idx),
        dev_feats,
        splits.dev,
        test_feats,
        splits.test,
        config,
        train_items=items,
    )
    return cell, result, time.perf_counter() - t0


def _train_in_worker(cell: Cell) -> CellOutcome:
    return train_one(cell, _STATE)


class _InChildOrder:
    """Hands outcomes on so that each child run (embedding, seed) gets its cells in grid order.

    MLflow orders a metric's history by time, so a child's size-N cell must be logged after its
    smaller ones even when two of them ran side by side and the larger finished first.
    """

    def __init__(self, cells: list[Cell]) -> None:
        self._expected: dict[tuple[str, int], deque[Cell]] = {}
        for cell in cells:
            self._expected.setdefault((cell.embedding, cell.seed), deque()).append(cell)
        self._held: dict[Cell, CellOutcome] = {}

    def release(self, outcome: CellOutcome) -> list[CellOutcome]:
        cell = outcome[0]
        self._held[cell] = outcome
        expected = self._expected[(cell.embedding, cell.seed)]
        ready = []
        while expected and expected[0] in self._held:
            ready.append(self._held.pop(expected.popleft()))
        return ready


def train_cells(cells: list[Cell], state: WorkerState, n_workers: int) -> Iterator[CellOutcome]:
    """Yield (cell, result, seconds) as cells finish, ``n_workers`` in flight in grid order.

    Each child run (embedding, seed) gets its outcomes in grid order (sizes ascending).
    """
    if n_workers <= 1:
        for cell in cells:
            yield train_one(cell, state)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(n_workers, mp_context=context, initializer=_worker_init, initargs=(state,))
    finished_cleanly = False
    in_order = _InChildOrder(cells)
    try:
        queue = list(cells)
        running = {pool.submit(_train_in_worker, queue.pop(0)) for _ in range(min(n_workers, len(queue)))}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                # Keep exactly n_workers cells in flight, in grid order (sizes ascending).
                if queue:
                    running.add(pool.submit(_train_in_worker, queue.pop(0)))
                yield from in_order.release(future.result())
        finished_cleanly = True
    finally:
        if not finished_cleanly:  # error or Ctrl-C: stop the workers now, not after their current cell
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()  # SIGKILL: workers ignore SIGINT/SIGTERM
        pool.shutdown(wait=True, cancel_futures=True)
