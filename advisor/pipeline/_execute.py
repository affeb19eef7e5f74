"""The executor: train cells in worker processes and yield ``(cell, result, seconds)`` as they finish.

The worker state (features, splits, subset orders, training config) reaches each worker through the
pool initializer: with ``fork`` the feature matrices are shared copy-on-write, never pickled through
a pipe, and the parent process sets no module state before forking. Results are identical whatever
the worker count: each cell's seed and subset come from the cell, not from the worker.

With a :class:`Prelude` (the contextual encoder pass), the cheap families' cells start on half the
workers while the parent encodes in a background thread on the other cores; the encoder's cells are
released when its feature cache is committed, and each worker opens that cache itself
(:class:`DeferredFeatures`). Whatever the schedule, each child run (embedding, seed) gets its cells
in grid order, sizes ascending.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from advisor._error_codes import E211
from advisor.grid import Cell, subset_indices

__all__ = [
    "CellOutcome",
    "DeferredFeatures",
    "Prelude",
    "WorkerState",
    "train_cells",
    "train_one",
    "worker_count",
]

#: What a worker needs: ``features`` (per embedding: train/dev/test features, or random tables per
#: seed), ``splits``, ``orders`` (subset order per seed) and ``config`` (``TrainConfig.to_dict()``).
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


@dataclass(frozen=True)
class DeferredFeatures:
    """An embedding's train/dev/test features that a worker opens itself, from the feature cache.

    The workers were started while the parent was still encoding; by the time a cell of this
    embedding reaches a worker, the parent has committed the cache entry, so this is a read of the
    same float16 rows the parent got (should the entry be missing, the worker encodes: same values).
    """

    name: str
    options: dict[str, Any]

    def load(self, splits: Any) -> tuple[Any, Any, Any]:
        from advisor.embeddings import make_embedding

        embedding = make_embedding(self.name, **self.options)
        embedding.fit(splits.train)
        train, dev, test = (embedding.featurize(part) for part in (splits.train, splits.dev, splits.test))
        return train, dev, test


def _features_for(cell: Cell, state: WorkerState, idx: Any) -> tuple[Any, Any, Any, Any]:
    """Train, dev and test features of ``cell``, and which train items it reads (``None``: all).

    Shared features are not copied per cell (a full-size layer stack is ~1.5 GB): the cell's train
    rows are read from them batch by batch (``fit_and_evaluate(train_items=...)``).
    """
    splits = state["splits"]
    entry = state["features"][cell.embedding]
    if isinstance(entry, DeferredFeatures):  # opened once per worker, then kept like forked features
        entry = state["features"][cell.embedding] = entry.load(splits)
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


def train_one(cell: Cell, state: WorkerState) -> CellOutcome:
    """Train and evaluate one cell from ``state`` (a worker's, or the one Ray ships per task)."""
    from trainers import TrainConfig, fit_and_evaluate

    t0 = time.perf_counter()
    splits = state["splits"]
    idx = subset_indices(state["orders"][cell.seed], cell.size)
    train_feats, dev_feats, test_feats, items = _features_for(cell, state, idx)
    config = TrainConfig(**{**state["config"], "seed": cell.seed})
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


@dataclass
class Prelude:
    """Work the parent does in a background thread while the first cells train, and what waits for it.

    ``run`` (the encoder pass) runs in a thread; ``then`` gets its result in the calling thread (the
    tracker is only used there); ``cells`` are released to the workers after ``then``. ``poll`` is
    called from the calling thread while waiting (progress events queued by ``run``), and ``stop``
    is set when the run is abandoned, so ``run`` can end at its next batch.
    """

    run: Callable[[], Any]
    then: Callable[[Any], None]
    cells: list[Cell]
    poll: Callable[[], None] = lambda: None
    stop: threading.Event = field(default_factory=threading.Event)


class _Background:
    """``prelude.run`` in a daemon thread; its result or exception handed back to the caller."""

    def __init__(self, prelude: Prelude) -> None:
        self.prelude = prelude
        self._outcome: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
        self._thread = threading.Thread(target=self._work, name="advisor-prelude", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        try:
            self._outcome.put((True, self.prelude.run()))
        except BaseException as error:  # handed to the caller, which re-raises it
            self._outcome.put((False, error))

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> Any:
        ok, value = self._outcome.get()
        if not ok:
            raise value
        return value


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


def train_cells(
    cells: list[Cell], state: WorkerState, n_workers: int, prelude: Prelude | None = None
) -> Iterator[CellOutcome]:
    """Yield (cell, result, seconds) as cells finish, ``n_workers`` in flight in grid order.

    With a ``prelude``, ``cells`` (the cheap families) start on half the workers beside it, and
    ``prelude.cells`` join the queue, in grid order, once ``prelude.then`` has run.
    """
    if n_workers <= 1:
        if prelude is not None:
            prelude.then(prelude.run())
            cells = sorted([*cells, *prelude.cells], key=_grid_position(cells, prelude))
        for cell in cells:
            yield train_one(cell, state)
        return
    yield from _train_in_pool(cells, state, n_workers, prelude)


def _grid_position(cells: list[Cell], prelude: Prelude | None) -> Callable[[Cell], tuple[int, int]]:
    """Sort key of the grid's order (sizes ascending, then the order the plan lists cells in)."""
    listed = [*cells, *(prelude.cells if prelude else [])]
    rank = {cell: i for i, cell in enumerate(listed)}
    return lambda cell: (cell.size, rank[cell])


def _train_in_pool(
    cells: list[Cell], state: WorkerState, n_workers: int, prelude: Prelude | None
) -> Iterator[CellOutcome]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(n_workers, mp_context=context, initializer=_worker_init, initargs=(state,))
    in_order = _InChildOrder([*cells, *(prelude.cells if prelude else [])])
    position = _grid_position(cells, prelude)
    queue_ = sorted(cells, key=position)
    limit = max(1, n_workers // 2) if prelude else n_workers
    running: set[Future] = set()
    background: _Background | None = None
    finished_cleanly = False

    def top_up() -> None:  # keep `limit` cells in flight, in grid order (sizes ascending)
        while queue_ and len(running) < limit:
            running.add(pool.submit(_train_in_worker, queue_.pop(0)))

    try:
        top_up()  # the first submit forks every worker, before any thread of ours exists
        if prelude is not None:
            background = _Background(prelude)
        while running or queue_ or background is not None:
            if background is not None and background.done():
                assert prelude is not None
                prelude.then(background.result())
                background, limit = None, n_workers
                queue_ = sorted([*queue_, *prelude.cells], key=position)
                top_up()
            timeout = 0.25 if background is not None else None
            if not running:  # only the prelude is left: wait for it
                time.sleep(timeout or 0)
                _poll(prelude)
                continue
            done, running = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
            _poll(prelude)
            for future in done:
                yield from in_order.release(future.result())
            top_up()
        finished_cleanly = True
    finally:
        if prelude is not None:
            prelude.stop.set()
        if not finished_cleanly:  # error or Ctrl-C: stop the workers now, not after their current cell
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()  # SIGKILL: workers ignore SIGINT/SIGTERM
        pool.shutdown(wait=True, cancel_futures=True)


def _poll(prelude: Prelude | None) -> None:
    if prelude is not None:
        prelude.poll()
