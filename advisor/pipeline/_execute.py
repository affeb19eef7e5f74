"""The executor: train cells locally or on Ray and yield ``(cell, result, seconds)`` in child order.

One module owns what every backend shares: the worker state, the per-cell function (:func:`train_one`)
and the ordering (cells submitted in grid order, ``window`` in flight; each child run (embedding, seed)
handed its outcomes in grid order). Local worker processes and Ray are two ways to run it.

Local: the state reaches each worker through the pool initializer; with ``fork`` the feature matrices
are shared copy-on-write, never pickled through a pipe, and the parent sets no module state before
forking. On a GPU the workers are spawned instead (CUDA does not survive a fork) and the feature
maps reach them as file references (:mod:`advisor.pipeline._spawn`). Ray (``pip install "advisor[ray]"``, imported only when used): the features of each embedding,
the splits and the subset orders go to the object store once and each task gets references; without
an address a local runtime is started and shut down at the end. Results are identical whatever the
backend or worker count: each cell's seed, subset and rate come from the cell, not from the worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from advisor._error_codes import E211
from advisor.grid import Cell, subset_indices
from advisor.pipeline._memory import return_freed_memory
from advisor.pipeline._spawn import memmaps_by_reference, start_method
from advisor.vocabulary import primary_metric

__all__ = [
    "CELLS_PER_GPU",
    "CellOutcome",
    "WorkerState",
    "cell_config",
    "ray_task_resources",
    "ray_train_cells",
    "reusing",
    "run_cells",
    "train_cells",
    "train_one",
    "worker_count",
]

#: What a worker needs: ``features`` (per embedding: train/dev/test features, or random tables per
#: seed), ``splits``, ``orders`` (subset order per seed), ``config`` (``TrainConfig.to_dict()``) and
#: ``chosen`` (per family, the ``lr`` and ``projection`` chosen on dev; a trial cell's own win, and
#: ``config``'s are the fallback).
WorkerState = dict[str, Any]
CellOutcome = tuple[Cell, Any, float]  # (cell, trainers.TrainResult, seconds)

_STATE: WorkerState = {}  # filled in each worker by _worker_init; the parent never writes it
_PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h): the signal a process gets when its parent dies


#: GPU memory set aside per spawned worker when choosing how many share a GPU: its CUDA context and
#: one small model with its batches. An assumption, not a measurement: generous, so a small GPU gets
#: fewer workers rather than an out-of-memory error halfway through a run.
GPU_BYTES_PER_WORKER = 2**30


def gpu_worker_room(device: str) -> int:
    """How many workers the free memory of ``device`` holds (any number off a GPU)."""
    if not device.startswith("cuda"):
        return sys.maxsize
    import torch

    try:
        free, _total = torch.cuda.mem_get_info(torch.device(device))
    except (RuntimeError, AssertionError):  # no usable CUDA here: validation says so before any run
        return 1
    return max(1, free // GPU_BYTES_PER_WORKER)


def worker_count(requested: int | None, device: str, n_cells: int) -> int:
    """Parallel training processes (one torch thread each): forked on a CPU, spawned on a GPU, where
    several cells share the one device (:mod:`advisor.pipeline._spawn`) as far as its free memory
    goes (:func:`gpu_worker_room`). ``--workers`` is taken as given."""
    if requested is not None:
        if requested < 1:
            raise E211(option="--workers", requirement="be at least 1")
        return min(requested, n_cells)
    if sys.platform != "linux":
        return 1
    return max(1, min(os.cpu_count() or 1, 8, n_cells, gpu_worker_room(device)))


# -- one cell ----------------------------------------------------------------------------------------


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


def cell_config(cell: Cell, state: WorkerState) -> dict[str, Any]:
    """The ``TrainConfig`` fields of ``cell``: a trial's own rate and width, else the family's chosen
    ones, else the config's (``--lr``/``--projection`` or the profile's)."""
    trial = {"lr": cell.lr, "projection": cell.projection}
    own = {name: value for name, value in trial.items() if value is not None}
    return {**state["config"], **state.get("chosen", {}).get(cell.embedding, {}), **own, "seed": cell.seed}


def train_one(cell: Cell, state: WorkerState) -> CellOutcome:
    """Train and evaluate one cell from ``state`` (a local worker's, or the slice a Ray task gets)."""
    from trainers import TaskScoring, TrainConfig, fit_and_evaluate

    t0 = time.perf_counter()
    splits = state["splits"]
    scoring = TaskScoring(splits.task, primary_metric(splits.task))  # the headline of the task spec
    idx = subset_indices(state["orders"][cell.seed], cell.size)
    train_feats, dev_feats, test_feats, items = _features_for(cell, state, idx)
    config = TrainConfig(**cell_config(cell, state))
    result = fit_and_evaluate(
        train_feats,
        splits.train.subset(idx),
        dev_feats,
        splits.dev,
        test_feats,
        splits.test,
        config,
        train_items=items,
        scoring=scoring,
    )
    seconds = time.perf_counter() - t0
    return_freed_memory()  # a worker's heap otherwise keeps every cell's per-batch arrays
    return cell, result, seconds


# -- the ordering, whatever runs the cells -----------------------------------------------------------


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


def _in_flight(
    cells: list[Cell],
    window: int,
    submit: Callable[[Cell], Any],
    wait_any: Callable[[list[Any]], tuple[list[CellOutcome], list[Any]]],
    stop: Callable[[list[Any]], None],
) -> Iterator[CellOutcome]:
    """Keep ``window`` cells in flight in grid order (sizes ascending), so an interrupted run leaves
    curve prefixes behind; hand outcomes on in child order; on error or Ctrl-C ``stop`` what still runs.
    """
    in_order = _InChildOrder(cells)
    queue = deque(cells)
    running = [submit(queue.popleft()) for _ in range(min(window, len(queue)))]
    finished_cleanly = False
    try:
        while running:
            outcomes, running = wait_any(running)
            for outcome in outcomes:
                if queue:
                    running.append(submit(queue.popleft()))
                yield from in_order.release(outcome)
        finished_cleanly = True
    finally:
        if not finished_cleanly:
            stop(running)


def reusing(
    done: dict[Cell, CellOutcome], execute: Callable[[list[Cell]], Iterator[CellOutcome]]
) -> Callable[[list[Cell]], Iterator[CellOutcome]]:
    """``execute``, except that a cell with an outcome in ``done`` (a learning-rate trial that is that
    cell) is handed on from there, once, instead of trained again; all in child order."""

    def run(cells: list[Cell]) -> Iterator[CellOutcome]:
        ready = [done.pop(cell) for cell in cells if cell in done]
        if not ready:
            yield from execute(cells)
            return
        in_order, have = _InChildOrder(cells), {outcome[0] for outcome in ready}
        rest = [cell for cell in cells if cell not in have]
        trained = execute(rest) if rest else iter(())
        try:
            for outcome in chain(ready, trained):  # trained ones as they finish
                yield from in_order.release(outcome)
        finally:
            getattr(trained, "close", lambda: None)()  # stops the workers when the caller stops early

    return run


# -- local worker processes --------------------------------------------------------------------------


def _die_with_parent(parent_pid: int) -> None:
    """End this worker when the parent ends, ``kill -9`` included (nothing else would stop it then).

    Linux: the kernel sends SIGKILL on the parent's death (``PR_SET_PDEATHSIG``); elsewhere a daemon
    thread polls the parent pid. Either way, a parent already gone before this ran ends the worker now.
    """
    if sys.platform == "linux":
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:
        import threading

        def watch() -> None:
            while os.getppid() == parent_pid:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="advisor-parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died between the fork and the line above
        os._exit(1)


def _worker_init(state: WorkerState, parent_pid: int | None = None) -> None:
    import torch

    if parent_pid is not None:
        _die_with_parent(parent_pid)
    _STATE.update(state)
    torch.set_num_threads(1)  # before any op: keeps OpenMP from spawning threads after the fork
    # Ctrl-C and the app's Stop reach the whole process group; only the parent decides what they
    # mean (runs end KILLED). Workers ignore both and are killed by the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _train_in_worker(cell: Cell) -> CellOutcome:
    return train_one(cell, _STATE)


def _import_what_every_worker_imports() -> None:
    """Import once here what each worker would import on its first cell, so forked workers inherit it.

    Why: the first ``torch.optim.Adam`` of a process imports ``torch._dynamo`` (~2 s CPU on this
    2-core machine), and every pool (learning-rate trials, the grid, its extension) forks fresh workers.
    """
    import torch._dynamo  # noqa: F401


def train_cells(
    cells: list[Cell], state: WorkerState, n_workers: int, start: str = "fork"
) -> Iterator[CellOutcome]:
    """Yield (cell, result, seconds) from ``n_workers`` processes started by ``start`` ("fork", or
    "spawn" on a GPU: :mod:`advisor.pipeline._spawn`); one worker trains in this process."""
    if n_workers <= 1:
        for cell in cells:
            yield train_one(cell, state)
        return
    if start == "fork":
        _import_what_every_worker_imports()
        yield from _pooled(cells, state, n_workers, start)
        return
    with memmaps_by_reference():  # the state is pickled to each spawned worker: maps go by reference
        yield from _pooled(cells, state, n_workers, start)


def _pooled(cells: list[Cell], state: WorkerState, n_workers: int, start: str) -> Iterator[CellOutcome]:
    """The cells on a pool of ``n_workers`` processes that die with this one and stop when it stops."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    context = multiprocessing.get_context(start)
    pool = ProcessPoolExecutor(
        n_workers, mp_context=context, initializer=_worker_init, initargs=(state, os.getpid())
    )

    def wait_any(running: list[Future]) -> tuple[list[CellOutcome], list[Future]]:
        done, pending = wait(running, return_when=FIRST_COMPLETED)
        return [future.result() for future in done], list(pending)

    def kill(_running: list[Future]) -> None:  # stop the workers now, not after their current cell
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()  # SIGKILL: workers ignore SIGINT/SIGTERM

    try:
        yield from _in_flight(
            cells, n_workers, lambda cell: pool.submit(_train_in_worker, cell), wait_any, kill
        )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- Ray ---------------------------------------------------------------------------------------------


def _train_remote(
    cell: Cell, features: Any, splits: Any, orders: Any, config: dict, chosen: dict
) -> CellOutcome:
    """One cell on a Ray worker: :func:`train_one`, fed with this cell's slice of the state."""
    import torch

    torch.set_num_threads(1)  # one CPU per task, as a local worker process
    state = {"features": {cell.embedding: features}, "splits": splits, "orders": orders}
    return train_one(cell, {**state, "config": config, "chosen": chosen})


@contextlib.contextmanager
def _ray_runtime(address: str | None, num_cpus: int | None) -> Iterator[Any]:
    """Connect to ``address`` or start a local runtime; shut down only what was started here.

    ``ray.init`` installs its own SIGTERM handler (exit): the caller's handler is put back, so the
    app's Stop still ends the runs KILLED.
    """
    import ray

    started = False
    if not ray.is_initialized():
        previous = signal.getsignal(signal.SIGTERM)
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.WARNING,  # no "Started a local Ray instance" in our output
        }
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=num_cpus or os.cpu_count() or 1, **options)
        started = True
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


#: Cells one GPU trains at once on Ray (each task asks for this share of it), as many as the local
#: backend's default workers at most: 8 processes sharing an H100 did 4.33x the steps per second of
#: one, 12 did 4.53x (``experiments/bench_gpu_workers.py``).
CELLS_PER_GPU = 8


def ray_task_resources(device: str) -> dict[str, float]:
    """What one cell's Ray task asks for: one CPU, and on a GPU a share of it, so a one-GPU cluster
    trains up to :data:`CELLS_PER_GPU` cells at once instead of one."""
    return {"num_cpus": 1, "num_gpus": 1 / CELLS_PER_GPU if device.startswith("cuda") else 0}


def ray_train_cells(
    cells: list[Cell],
    state: WorkerState,
    workers: int | None = None,
    address: str | None = None,
    device: str = "cpu",
) -> Iterator[CellOutcome]:
    """Yield (cell, result, seconds) from Ray tasks, at most one per cluster CPU (or ``workers``)."""
    with _ray_runtime(address, workers) as ray:
        task = ray.remote(**ray_task_resources(device), max_retries=0)(_train_remote)
        feature_refs = {name: ray.put(state["features"][name]) for name in {c.embedding for c in cells}}
        splits_ref, orders_ref = ray.put(state["splits"]), ray.put(state["orders"])
        config, chosen = state["config"], state.get("chosen", {})
        capacity = int(ray.cluster_resources().get("CPU", 1))

        def submit(cell: Cell) -> Any:
            return task.remote(cell, feature_refs[cell.embedding], splits_ref, orders_ref, config, chosen)

        def wait_any(running: list[Any]) -> tuple[list[CellOutcome], list[Any]]:
            done, pending = ray.wait(running, num_returns=1)
            return [ray.get(done[0])], list(pending)

        def cancel(running: list[Any]) -> None:  # stop the tasks now, not after their cell
            for ref in running:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)

        window = max(1, min(workers or capacity, capacity, len(cells)))
        yield from _in_flight(cells, window, submit, wait_any, cancel)


def run_cells(
    cells: list[Cell],
    state: WorkerState,
    backend: str = "local",
    workers: int | None = None,
    address: str | None = None,
    device: str = "cpu",
) -> Iterator[CellOutcome]:
    """The cells on ``backend`` (``local`` or ``ray``): same cells, seeds, results and order."""
    if backend == "ray":
        return ray_train_cells(cells, state, workers, address, device)
    return train_cells(cells, state, worker_count(workers, device, len(cells)), start_method(device))
