"""The Typer application object; each command lives in its own module of this package."""

from __future__ import annotations

import typer
from rich.console import Console

__all__ = ["app", "console", "err_console"]

app = typer.Typer(
    name="advisor",
    help="Are contextual embeddings (BERT-class) worth their cost on your data?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Are contextual embeddings (BERT-class) worth their cost on your data?"""
