"""Where the grid's cells train: ``local`` worker processes (:mod:`advisor.pipeline`) or a Ray cluster.

The Ray backend keeps the runner's contract: an iterator of ``(cell, result, seconds)`` in the order
cells finish, with the driver logging every result to MLflow exactly as the local backend does.
What travels to the cluster is put in the object store once — the features of each embedding, the
splits, the subset orders — and each task gets references, so a 45-cell grid ships each feature
matrix once, not 45 times. Cells are submitted in grid order (sizes ascending) with at most as many
in flight as the cluster has CPUs, so an interrupted run leaves curve prefixes behind, as locally.
Each task calls the same training function as a local worker, with the same seed: scores are
identical to ``--backend local``.

Without ``--ray-address`` a local Ray runtime is started (``--workers`` CPUs, default one per core)
and shut down at the end. With an address (``ray://head:10001`` or ``auto``) the nodes must have the
same ``advisor`` installed (``pip install "advisor[ray]"``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Iterator
from typing import Any

from advisor._error_codes import E201, E217, E218
from advisor.grid import Cell

__all__ = ["BACKENDS", "check_backend", "ray_train_cells"]

BACKENDS = ("local", "ray")


def check_backend(backend: str, ray_address: str | None) -> None:
    """A known backend; ``ray`` needs the optional extra; an address makes sense only with ``ray``."""
    if backend not in BACKENDS:
        raise E201(kind="backend", name=backend, choices=", ".join(BACKENDS))
    if ray_address and backend != "ray":
        raise E217(option="--ray-address", requirement="--backend ray")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise E218(feature="--backend ray", package="Ray", extra="advisor[ray]") from None


def _train_remote(
    cell: Cell, features: Any, splits: Any, orders: Any, config: dict[str, Any]
) -> tuple[Cell, Any, float]:
    """One cell on a Ray worker: the local training function, fed with this cell's state only."""
    import torch

    from advisor.pipeline import train_one

    torch.set_num_threads(1)  # one CPU per task, as a local worker process
    state = {"features": {cell.embedding: features}, "splits": splits, "orders": orders, "config": config}
    return train_one(cell, state)


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


def ray_train_cells(
    cells: list[Cell],
    state: dict[str, Any],
    workers: int | None = None,
    address: str | None = None,
    device: str = "cpu",
) -> Iterator[tuple[Cell, Any, float]]:
    """Yield ``(cell, result, seconds)`` as Ray tasks finish; pending tasks are cancelled on exit.

    ``state`` is what the runner gives its local workers (features, splits, orders, config, lrs).
    """
    from advisor.pipeline import cell_lr

    with _ray_runtime(address, workers) as ray:
        gpu = 1 if device.startswith("cuda") else 0
        task = ray.remote(num_cpus=1, num_gpus=gpu, max_retries=0)(_train_remote)
        needed = {c.embedding for c in cells}
        feature_refs = {name: ray.put(state["features"][name]) for name in needed}
        splits_ref, orders_ref = ray.put(state["splits"]), ray.put(state["orders"])
        capacity = int(ray.cluster_resources().get("CPU", 1))
        window = max(1, min(workers or capacity, capacity, len(cells)))
        queue = list(cells)
        running: list[Any] = []
        finished_cleanly = False

        def submit() -> None:
            cell = queue.pop(0)
            config = {**state["config"], "lr": cell_lr(cell, state)}  # as train_one reads it locally
            running.append(task.remote(cell, feature_refs[cell.embedding], splits_ref, orders_ref, config))

        try:
            for _ in range(min(window, len(queue))):
                submit()
            while running:
                done, running[:] = ray.wait(running, num_returns=1)
                if queue:  # keep ``window`` cells in flight, in grid order (sizes ascending)
                    submit()
                yield ray.get(done[0])
            finished_cleanly = True
        finally:
            if not finished_cleanly:  # error or Ctrl-C: stop the tasks now, not after their cell
                for ref in running:
                    with contextlib.suppress(Exception):
                        ray.cancel(ref, force=True)
