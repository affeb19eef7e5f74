"""Command-line interface: ``advisor inspect | run | metrics | report | predict-gain | layers | contextuality | ui``.

Every command turns an :class:`~advisor.errors.AdvisorError` into ``file:line: message`` plus a
hint on stderr and exit status 2; nothing the user can fix ends in a traceback.
"""

from __future__ import annotations

import sys

from rich.markup import escape

from advisor.cli._app import app, err_console
from advisor.cli._storage import storage_error
from advisor.errors import AdvisorError

# Importing a command module registers its command on ``app``.
from advisor.cli import inspect as _inspect  # noqa: F401  isort: skip
from advisor.cli import metrics as _metrics  # noqa: F401  isort: skip
from advisor.cli import run as _run  # noqa: F401  isort: skip
from advisor.cli import report as _report  # noqa: F401  isort: skip
from advisor.cli import ui as _ui  # noqa: F401  isort: skip
from advisor.cli import predict_gain as _predict_gain  # noqa: F401  isort: skip
from advisor.cli import layers as _layers  # noqa: F401  isort: skip
from advisor.cli import contextuality as _contextuality  # noqa: F401  isort: skip

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point: usage errors exit 2 (click), user-fixable errors exit 2 (ours)."""
    try:
        app()
    except AdvisorError as error:
        err_console.print(f"[bold red]error:[/] {escape(error.render())}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/]")
        sys.exit(130)
    except Exception as error:  # a full or read-only disk met while writing: said, with its path
        found = storage_error(error, sys.argv)
        if found is None:
            raise
        err_console.print(f"[bold red]error:[/] {escape(found.render())}", highlight=False, soft_wrap=True)
        sys.exit(2)
