"""Freed heap goes back to the system: the resident set falls once small blocks are freed and trimmed."""

from __future__ import annotations

import sys

import psutil
import pytest

from advisor.pipeline._memory import return_freed_memory


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
