"""The Typer application object; each command lives in its own module of this package.

Typer 0.29 labels every option with its Python type (``<bool>`` on flags, ``<list[str]>``) and
wraps required arguments in braces (``{data}``); :class:`_Command` gives help click's plain
metavars instead (``--sizes TEXT``, flags bare, ``DATA``), and docstrings render as markdown so
``code`` spans are not shown with their back-ticks.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from typer.core import TyperArgument, TyperCommand, TyperGroup

__all__ = ["app", "console", "err_console"]


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
console = Console()
err_console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Are contextual embeddings (BERT-class) worth their cost on your data?"""
