"""Disk-full and permission errors met while writing, said as such (E246, exit 2) instead of a traceback.

Validation checks the store, the cache and the output folders up front (``advisor.validate``), but a
disk can fill during a run: sqlite then reports "database or disk is full" through sqlalchemy and
MLflow, a report write an ``OSError`` ENOSPC. :func:`storage_error` finds such an error anywhere in an
exception's chain and words it with the path and the option that chose it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from advisor._error_codes import E246, E246_DISK_FULL
from advisor.errors import AdvisorError

__all__ = ["storage_error"]

_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_DENIED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
#: What sqlite says (through sqlalchemy and MLflow, as text) when its disk is full or read-only.
_SQLITE_FULL = ("database or disk is full",)
_SQLITE_DENIED = ("attempt to write a readonly database",)


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _store_path(argv: Sequence[str]) -> str:
    """The sqlite database the command used (``--tracking-uri``, ``$MLFLOW_TRACKING_URI`` or the default)."""
    from advisor.tracking import DEFAULT_TRACKING_URI

    uri = os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    for i, word in enumerate(argv):
        if word == "--tracking-uri" and i + 1 < len(argv):
            uri = argv[i + 1]
        elif word.startswith("--tracking-uri="):
            uri = word.partition("=")[2]
    return uri.removeprefix("sqlite:///") if uri.startswith("sqlite:///") else uri


def _option(path: str, argv: Sequence[str]) -> str:
    """The option that chose ``path``: the store's folder, the cache root, else an output option."""
    from advisor.cache import cache_dir

    resolved = Path(path).expanduser().resolve()
    store = Path(_store_path(argv)).expanduser().resolve().parent
    if resolved.is_relative_to(store):
        return "--tracking-uri"
    if resolved.is_relative_to(cache_dir("features").expanduser().resolve()):
        return "--cache-dir"
    return "--out (or --cache-dir, --tracking-uri: the option that named this folder)"


def storage_error(error: BaseException, argv: Sequence[str] = ()) -> AdvisorError | None:
    """E246 for a disk-full or permission error in ``error``'s chain (None when it is not one)."""
    for found in _chain(error):
        if isinstance(found, OSError) and found.errno in _FULL | _DENIED:
            # a copy (MLflow logging an artifact) names the source first and the destination second
            path = str(found.filename2 or found.filename or "a file it writes")
            entry = E246_DISK_FULL if found.errno in _FULL else E246
            return entry(what="writing", path=path, option=_option(path, argv))
        text = str(found).lower()
        if any(marker in text for marker in _SQLITE_FULL + _SQLITE_DENIED):
            entry = E246_DISK_FULL if any(m in text for m in _SQLITE_FULL) else E246
            return entry(what="MLflow store", path=_store_path(argv), option="--tracking-uri")
    return None
