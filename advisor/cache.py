"""One cache root for everything advisor keeps between runs (features, parses, vectors, distilled models).

Why one root: the feature cache followed ``--cache-dir`` while the spaCy parses, the parsed vectors
files and the store locks went to the home directory, so a run pointed elsewhere (or a test) still
wrote under ``~``. Every cache now asks :func:`cache_dir` for its folder:

- the root is ``--cache-dir`` (``RunSettings.cache_dir``, made current for a run by
  :func:`using_cache_root`), else ``$ADVISOR_CACHE_DIR``, else ``~/.cache/advisor``;
- under a configured root the feature entries (and the vectors and distilled-model entries keyed
  beside them) sit at the top, as they always did; parses and locks get their own sub-folders.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["CACHE_ENV", "KINDS", "cache_dir", "cache_root", "using_cache_root"]

CACHE_ENV = "ADVISOR_CACHE_DIR"
#: What lives in the cache: encoder features (with parsed vectors files and distilled models beside
#: them), spaCy parses, the locks that guard a tracking server's store set-up, and the speeds this
#: machine measured (``advisor.pipeline._speed``: what the duration estimate before a run reads).
KINDS: tuple[str, ...] = ("features", "parses", "locks", "speed")


def cache_root() -> Path | None:
    """The configured root (``$ADVISOR_CACHE_DIR``), or None when the home-directory default applies."""
    value = os.environ.get(CACHE_ENV)
    return Path(value).expanduser() if value else None


def cache_dir(kind: str, root: str | os.PathLike[str] | None = None) -> Path:
    """The folder of one kind of cache under ``root`` (default: the configured root, else ``~/.cache/advisor``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}; known: {', '.join(KINDS)}")
    base = Path(root).expanduser() if root is not None else cache_root()
    if base is None:
        return Path.home() / ".cache" / "advisor" / kind
    return base if kind == "features" else base / kind


@contextlib.contextmanager
def using_cache_root(root: str | os.PathLike[str] | None) -> Iterator[None]:
    """Make ``root`` the cache root while the block runs (and in the worker processes it starts).

    The environment variable is the carrier because forked workers, a local Ray runtime and
    subprocesses all inherit it; the previous value comes back afterwards. ``None`` changes nothing.
    """
    if root is None:
        yield
        return
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(Path(root).expanduser())
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = previous
