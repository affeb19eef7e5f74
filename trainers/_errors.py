"""The errors both packages raise: a message, a hint saying what to do, a code (spaCy-style).

They live here, at the bottom layer, so that ``trainers`` can raise them without importing
``advisor``; :mod:`advisor.errors` re-exports them under the same names, and the CLI turns any of
them into ``file:line: message`` plus a hint and exit status 2, never a traceback.
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
