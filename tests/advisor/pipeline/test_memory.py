"""Freed heap goes back to the system: the resident set falls once small blocks are freed and trimmed,
and a run's collections scan only what the run allocated."""

from __future__ import annotations

import gc
import sys
import weakref

import psutil
import pytest

from advisor.pipeline._memory import frozen_heap, return_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_freed_small_blocks_leave_the_resident_set_after_the_trim() -> None:
    process = psutil.Process()
    blocks = [bytearray(4096) for _ in range(60_000)]  # ~250 MB of heap blocks below mmap's threshold
    blocks = blocks[-1:]  # free all but the last, which pins the heap's top: only a trim returns the rest
    before = process.memory_info().rss
    return_freed_memory()
    after = process.memory_info().rss
    assert before - after > 100 * 2**20
    assert len(blocks) == 1


class _Cycle:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_a_frozen_heap_collects_what_the_run_made_and_hands_the_rest_back() -> None:
    older = weakref.ref(_Cycle())  # garbage from before the run: frozen, left alone inside
    with frozen_heap():
        assert gc.get_freeze_count() > 0
        newer = weakref.ref(_Cycle())
        gc.collect()
        assert newer() is None and older() is not None
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert older() is None
