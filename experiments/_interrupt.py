"""How every benchmark ends on Ctrl-C: one line and exit status 130, as ``advisor run`` does.

Why: a benchmark stopped by hand (to free the machine, or because it runs for hours) printed a
40-line ``KeyboardInterrupt`` traceback through the executor's wait, which reads like a crash. The
analyses it started have already ended their MLflow runs KILLED and kept their finished cells, so the
same command resumes them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = ["INTERRUPTED", "interruptible"]

INTERRUPTED = 130  # 128 + SIGINT, the status a shell gives a process Ctrl-C stopped

_MESSAGE = "interrupted (the analyses a benchmark ran keep their finished cells: the same command resumes)"


def interruptible(main: Callable[[], Any]) -> None:
    """Run a benchmark's ``main``; Ctrl-C prints one line and exits 130 instead of a traceback."""
    try:
        main()
    except KeyboardInterrupt:
        print(_MESSAGE, file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None
