"""How every benchmark ends on Ctrl-C or ``kill``: one line and exit status 130, as ``advisor run`` does.

Why: a benchmark stopped by hand (to free the machine, or because it runs for hours) printed a
40-line ``KeyboardInterrupt`` traceback through the executor's wait, which reads like a crash. The
analyses it started end their MLflow runs KILLED and keep their finished cells, so the same command
resumes them. SIGTERM is taken the same way: a benchmark started in the background by a
non-interactive shell ignores SIGINT, so ``kill PID`` is the way to stop it, and without a handler
SIGTERM ended the process at once and left its runs RUNNING. Bad input (a data file that is not
there, a malformed option) ends as ``advisor`` ends it: the error's own line and exit status 2.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import Any

from advisor.errors import AdvisorError

__all__ = ["BAD_INPUT", "INTERRUPTED", "interruptible"]

INTERRUPTED = 130  # 128 + SIGINT, the status a shell gives a process Ctrl-C stopped
BAD_INPUT = 2  # the status ``advisor`` exits with for input the user can fix

_MESSAGE = "interrupted (the analyses a benchmark ran keep their finished cells: the same command resumes)"


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def interruptible(main: Callable[[], Any]) -> None:
    """Run a benchmark's ``main``; Ctrl-C or SIGTERM prints one line and exits 130, bad input prints the
    error and exits 2, instead of a traceback."""
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        main()
    except KeyboardInterrupt:
        print(_MESSAGE, file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None
    except AdvisorError as error:
        print(f"error: {error.render()}", file=sys.stderr)
        raise SystemExit(BAD_INPUT) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
