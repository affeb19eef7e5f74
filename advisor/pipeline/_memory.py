"""Hand the heap a stage freed back to the system, so the resident set tracks what is still in use.

Why: glibc keeps freed heap pages mapped. Encoding a corpus allocates and frees hundreds of MB
(tokenizer output, windows, hidden states per batch), and every training process forked after it
starts with those pages; a training worker's heap grows the same way from per-batch arrays (~720 MB
after a few cells on SUBJ). Measured on 1,500 SUBJ sentences with the packaged MiniLM: 225 MB of 528
MB anonymous memory returned after featurizing.

Why the heap is frozen for a run: a full collection scans every object the process tracks, and a
process that has imported torch, transformers and mlflow tracks millions (0.46 s a collection in a
test process, 25 collections in a 2-size grid: 11 of its 29 s). Objects that exist before the run
are not its garbage, so :func:`frozen_heap` moves them out of the collector's sight for the run
(``gc.freeze``, which forked workers inherit) and hands them back after it.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["frozen_heap", "return_freed_memory"]


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Collections inside see only what the run allocates; everything older is theirs again after."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def return_freed_memory() -> None:
    """Collect garbage, then ask glibc to give free heap pages back (a no-op where there is no glibc)."""
    gc.collect()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl): nothing to trim
            pass
