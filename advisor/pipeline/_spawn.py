"""What spawned training workers receive: the run's state, its memory maps sent as file references.

Why spawned: a forked worker shares the parent's feature matrices copy-on-write, but a process
forked after its parent used CUDA cannot use CUDA, and a run on a GPU does (the encoder pass, the
device's name in the run's environment). Spawned workers start fresh, so several cells can train
on the one GPU at once: the small downstream models leave it idle between kernel launches
(``experiments/bench_gpu_workers.py``: 8 processes did 4.3× the steps per second of one, H100).

Why by reference: a spawned worker gets its state pickled, and a memory-mapped cache entry (a
full-size layer stack is ~1 GB) would be copied into every worker. While :func:`memmaps_by_reference`
is in effect, multiprocessing pickles a memmap as (file, position, dtype, shape, strides) and the
worker maps the same bytes again, read-only: the same pages of the page cache, nothing copied.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["memmaps_by_reference", "reduce_memmap", "start_method"]


def start_method(device: str) -> str:
    """How training workers start on ``device``: spawned on CUDA (see the module's docstring), else forked."""
    return "spawn" if device.startswith("cuda") else "fork"


def _remap(filename: str, position: int, dtype: np.dtype, shape: tuple, strides: tuple) -> np.ndarray:
    """The array at byte ``position`` of ``filename``, on a fresh read-only map of the file."""
    whole = np.memmap(filename, dtype=np.uint8, mode="r")
    return np.ndarray(shape, dtype, buffer=whole, offset=position, strides=strides)


def reduce_memmap(array: np.memmap) -> tuple[Any, tuple]:
    """Pickle a memmap (or a view of one) as a reference to its file's bytes; one without a backing
    file, or over a map open for writing (or copy-on-write), is pickled as its values."""
    if getattr(array, "_mmap", None) is None or array.filename is None or array.mode != "r":
        return np.asarray, (np.array(array),)
    mapped = np.frombuffer(array._mmap, dtype=np.uint8)  # the map's first byte (not the array's offset)
    map_start = array.offset - array.offset % mmap.ALLOCATIONGRANULARITY  # as np.memmap aligned it
    position = map_start + array.__array_interface__["data"][0] - mapped.__array_interface__["data"][0]
    return _remap, (str(array.filename), position, array.dtype, array.shape, array.strides)


@contextmanager
def memmaps_by_reference() -> Iterator[None]:
    """While inside, multiprocessing (not plain ``pickle``) sends memmaps by reference (:func:`reduce_memmap`)."""
    from multiprocessing.reduction import ForkingPickler

    reducers = ForkingPickler._extra_reducers  # register() has no counterpart that takes one back
    previous = reducers.get(np.memmap)
    ForkingPickler.register(np.memmap, reduce_memmap)
    try:
        yield
    finally:
        if previous is None:
            reducers.pop(np.memmap, None)
        else:
            reducers[np.memmap] = previous
