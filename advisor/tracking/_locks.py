"""Exclusive file locks on a store: the first use of a new sqlite database and the open-or-resume step.

``fcntl.flock`` is released by the kernel even on SIGKILL. The locks sit beside the database for
sqlite stores, else in the cache directory (one host only). Below :mod:`._store` (which locks its
first client) and :mod:`._lifecycle`.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["store_lock"]


def _lock_dir(tracking_uri: str) -> Path:
    if tracking_uri.startswith("sqlite:///"):
        return Path(tracking_uri.removeprefix("sqlite:///")).resolve().parent / ".advisor-locks"
    from advisor.cache import cache_dir

    digest = hashlib.sha256(tracking_uri.encode()).hexdigest()[:12]
    return cache_dir("locks") / digest


@contextlib.contextmanager
def store_lock(tracking_uri: str, name: str, timeout: float = 600.0) -> Iterator[None]:
    """An exclusive lock for ``name`` in this store, held by the open file (freed even on SIGKILL)."""
    import fcntl

    folder = _lock_dir(tracking_uri)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{name}.lock", "a+b")
    except OSError:
        yield  # a read-only place for locks: go on unlocked rather than fail
        return
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"lock {folder / name} held for over {timeout:.0f} s") from None
                time.sleep(0.05)
        yield
    finally:
        handle.close()
