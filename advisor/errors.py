"""Errors the user can act on.

Every error raised for bad input or a bad option is an :class:`AdvisorError`: the CLI prints it as
``file:line: message`` plus a hint and exits with status 2, never with a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AdvisorError", "ConfigError", "InputError"]


@dataclass
class AdvisorError(Exception):
    """Base class: a message, an optional hint saying what to do, an optional code (spaCy-style)."""

    message: str
    hint: str | None = None
    code: str = "E000"

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def render(self) -> str:
        text = f"[{self.code}] {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.render()


@dataclass
class InputError(AdvisorError):
    """A problem with a data file, located by file and (when known) line number."""

    file: str | None = None
    line: int | None = None
    code: str = "E100"

    def render(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        text = f"{where}{self.message} [{self.code}]"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


@dataclass
class ConfigError(AdvisorError):
    """A bad option or setting (unknown name, impossible grid, missing model)."""

    code: str = "E200"
