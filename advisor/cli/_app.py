"""The Typer application object; each command lives in its own module of this package.

Typer 0.29 labels every option with its Python type (``<bool>`` on flags, ``<list[str]>``) and
wraps required arguments in braces (``{data}``); :class:`_Command` gives help click's plain
metavars instead (``--sizes TEXT``, flags bare, ``DATA``), and docstrings render as markdown so
``code`` spans are not shown with their back-ticks.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console, ConsoleDimensions
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup

__all__ = ["PIPED_WIDTH", "app", "console", "err_console", "titled_table"]


_TYPE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "path": "PATH", "bool": ""}


def _tidy(param: Any) -> None:
    """Give a parameter click's style of metavar (once): NAME for arguments, TYPE for options, none for flags."""
    if getattr(param, "metavar", "") is not None:
        return
    if isinstance(param, TyperArgument):
        param.metavar = (param.name or "value").upper()
        param.display_type_rich = lambda ctx: None  # the name column already says DATA
        return
    kind = str(param.bare_type()).removeprefix("list[").removesuffix("]")
    param.metavar = _TYPE_NAMES.get(kind, kind.upper())


class _Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            _tidy(param)
        return params

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = param.metavar or ""
                pieces.append(name if param.required else f"[{name}]")
        return pieces


class _Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            _tidy(param)
        return params


class _App(typer.Typer):
    def command(self, *args: Any, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        return super().command(*args, cls=cls or _Command, **kwargs)


app = _App(
    name="advisor",
    help="Are contextual embeddings (BERT-class) worth their cost on your data?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    cls=_Group,
)
#: Width of output that goes to a file or a pipe, where no terminal decides: wide enough that no run
#: id, path or table row is wrapped (Rich's default of 80 split a run id across two lines, issue 29).
PIPED_WIDTH = 1000


class _Console(Console):
    """Rich's console, except that output to a file or a pipe is not wrapped at 80 columns.

    A terminal keeps its own width, and ``$COLUMNS`` still wins; decided at each print, so a test
    runner's captured stdout and a real pipe are both "not a terminal".
    """

    def _size(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and "COLUMNS" not in self._environ and not self.is_terminal:
            return ConsoleDimensions(PIPED_WIDTH, size.height)
        return size

    size = property(_size, Console.size.fset)  # type: ignore[assignment]


console = _Console()
err_console = _Console(stderr=True)


def titled_table(title: str | Text, **options: Any) -> Table:
    """A table with a left-aligned title, at least as wide as the title where the console allows.

    Rich wraps a title at its table's width, so a narrow table split the path or model id in its
    title even on a wide console; ``title`` is markup when a string.
    """
    text = Text.from_markup(title) if isinstance(title, str) else title
    return Table(title=title, title_justify="left", min_width=text.cell_len, **options)


@app.callback()
def _root() -> None:
    """Are contextual embeddings (BERT-class) worth their cost on your data?"""
