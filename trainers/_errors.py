"""The errors both packages raise: a message, a hint saying what to do, a code (spaCy-style).

They live here, at the bottom layer, so that ``trainers`` can raise them without importing
``advisor``; :mod:`advisor.errors` re-exports them under the same names, and the CLI turns any of
them into ``file:line: message`` plus a hint and exit status 2, never a traceback.

The catalog mechanism (:class:`ErrorCode`, :func:`define_in`) lives here too: the trainers' codes
("T...", below) and advisor's ("E...", :mod:`advisor._error_codes`) are two catalogs of one kind.
Ranges: T1xx training settings, T2xx the features and corpora a model is trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CATALOG", "AdvisorError", "ConfigError", "ErrorCode", "InputError", "define", "define_in"]


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


@dataclass(frozen=True)
class ErrorCode:
    """One catalog entry; calling it builds the error (``kind`` "input": a data file, located by line)."""

    code: str
    template: str
    hint: str | None = None
    kind: str = "config"

    def __call__(
        self, *, hint: str | None = None, file: str | None = None, line: int | None = None, **fields: Any
    ) -> AdvisorError:
        message = self.template.format(**fields)
        if hint is None and self.hint is not None:
            hint = self.hint.format(**fields)
        if self.kind == "input":
            return InputError(message, hint=hint, code=self.code, file=file, line=line)
        return ConfigError(message, hint=hint, code=self.code)


def define_in(
    catalog: dict[str, ErrorCode], prefix: str, code: str, template: str, hint: str | None, kind: str
) -> ErrorCode:
    """Add ``code`` to ``catalog``: it must carry the catalog's ``prefix`` and be new to it.

    Why the prefix: each package keeps its own catalog (``trainers`` cannot import ``advisor``), and
    a letter per catalog keeps a code from meaning two things across them.
    """
    if not (code.startswith(prefix) and code[len(prefix) :].isdigit()):
        raise ValueError(f"error code {code!r} is not {prefix} followed by digits")
    if code in catalog:
        raise ValueError(f"error code {code} is defined twice ({catalog[code].template!r} and {template!r})")
    if kind not in ("config", "input"):
        raise ValueError(f"error kind must be 'config' or 'input', got {kind!r}")
    entry = ErrorCode(code, template, hint, kind)
    catalog[code] = entry
    return entry


#: The trainers' own codes ("T..."); ``advisor._error_codes.CATALOG`` holds the "E..." ones.
CATALOG: dict[str, ErrorCode] = {}


def define(code: str, template: str, hint: str | None = None, kind: str = "config") -> ErrorCode:
    """Add a trainers code ("T" and digits) to :data:`CATALOG`."""
    return define_in(CATALOG, "T", code, template, hint, kind)


_INPUT = "input"

# -- T1xx: training settings -------------------------------------------------------------------------
T101 = define("T101", "unknown classifier {classifier!r}", "choose one of: {choices}")
T102 = define("T102", "{name} must {requirement}, got {value}")

# -- T2xx: what a model is trained on ----------------------------------------------------------------
T201 = define("T201", "train/dev/eval corpora have different tasks: {tasks}")
T202 = define(
    "T202",
    "feature dimensions (layers, dim) differ between splits: {dims}",
    "featurize every split with the same fitted embedding",
    _INPUT,
)
T203 = define(
    "T203",
    "{name} features have {n_feats} items but the corpus has {n_items}",
    "featurize the same corpus you train on",
    _INPUT,
)
T204 = define(
    "T204",
    "{name} item {i} has {n_tokens} tokens but {n_rows} feature rows",
    "featurize the same corpus you train on (one vector per word)",
    _INPUT,
)
T205 = define("T205", "the {name} set is empty", kind=_INPUT)
T206 = define(
    "T206",
    "the {name} corpus is a sentence-pair task but gives {n_splits} pair splits for {n_items} items",
    "read pair data with a pair reader: each item records how many words its first text has",
    _INPUT,
)
T207 = define(
    "T207",
    "{name} pair item {i} has {n_tokens} words split after word {split}: both texts need a word",
    "give each pair item a first text and a second text of at least one word each",
    _INPUT,
)
