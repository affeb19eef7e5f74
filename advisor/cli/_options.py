"""CLI options derived from the settings schema (:mod:`advisor.settings`), spelled the same everywhere.

``advisor run`` takes one option per run setting; the commands that only read a dataset (``inspect``,
``metrics``, ``layers``, ``contextuality``) take the schema's data options through
:func:`with_data_options`, so that list is written once.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor._error_codes import E211, E220_NOT_SQLITE
from advisor.data import DataSplits, read_splits
from advisor.settings import DATA_OPTIONS, Setting, default_of, setting

__all__ = [
    "DEFAULT_PAIR_ENCODING",
    "DataOptions",
    "DevOpt",
    "LabelColOpt",
    "PairEncodingOpt",
    "SeedOpt",
    "StrictOpt",
    "TaskOpt",
    "TestOpt",
    "TextColOpt",
    "annotated",
    "check_output_file",
    "check_output_folder",
    "check_pair_option",
    "check_store_file",
    "load_splits",
    "parameter",
    "with_data_options",
]

_TYPES: dict[str, type] = {
    "text": str,
    "path": Path,
    "int": int,
    "float": float,
    "flag": bool,
    "ints": str,
    "floats": str,
    "names": str,
    "tags": list[str],
}


def _help(item: Setting) -> str:
    """The schema's help with the registries' current choices filled in."""
    if "{" not in item.help:
        return item.help
    from advisor.validate import choices_of

    return item.help.format(
        embeddings=", ".join(choices_of("embeddings") or []),
        profiles=", ".join(choices_of("profile") or []),
        tasks=" or ".join(choices_of("task") or []),
    )


def annotated(name: str) -> Any:
    """``Annotated[type, typer.Option(...)]`` (or ``typer.Argument`` for the data) of setting ``name``."""
    item = setting(name)
    kind = _TYPES[item.kind]
    default = default_of(name)
    if default is None or item.kind == "tags":
        kind = kind | None  # type: ignore[operator]
    if not item.flags:
        return Annotated[kind, typer.Argument(help=_help(item))]
    flags = item.flags
    if item.kind == "flag" and default is True:
        flags = (f"{item.flag}/--no-{item.flag.removeprefix('--')}", *flags[1:])
    return Annotated[kind, typer.Option(*flags, help=_help(item))]


def parameter(name: str) -> inspect.Parameter:
    """The keyword parameter a Typer command declares for setting ``name`` (CLI default = settings default)."""
    default = default_of(name)
    item = setting(name)
    if default is MISSING:
        default = inspect.Parameter.empty
    elif item.kind in ("ints", "floats", "names", "tags"):
        default = item.to_cli(default) if default else None
    return inspect.Parameter(
        item.param, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotated(name)
    )


TaskOpt = annotated("task")
DevOpt = annotated("dev")
TestOpt = annotated("test")
TextColOpt = annotated("text_col")
LabelColOpt = annotated("label_col")
SeedOpt = annotated("split_seed")
StrictOpt = annotated("strict")
PairEncodingOpt = annotated("pair_encoding")  # also on `layers` and `contextuality`: they read pairs too
DEFAULT_PAIR_ENCODING: str = default_of("pair_encoding")


def check_pair_option(task: str, pair_encoding: str) -> str | None:
    """``--pair-encoding`` checked as ``advisor run`` checks it (a known task first, then E232 / E255),
    before any data or model is read; what the encoder takes: the choice for pairs, None otherwise."""
    from advisor.embeddings import check_pair_encoding
    from advisor.vocabulary import task_spec

    task_spec(task)  # an unknown task is named as such, not as a --pair-encoding mismatch
    check_pair_encoding(pair_encoding, task)
    return pair_encoding if task == "pair" else None


@dataclass(frozen=True)
class DataOptions:
    """The data options of a command (the schema's data section), read the way ``advisor run`` reads them."""

    data: str
    task: str
    dev: Path | None = None
    test: Path | None = None
    text_col: str | None = None
    label_col: str | None = None
    split_seed: int = 0
    strict: bool = False

    def load(self) -> DataSplits:
        return load_splits(
            self.data,
            self.task,
            self.dev,
            self.test,
            self.text_col,
            self.label_col,
            self.split_seed,
            self.strict,
        )


def with_data_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``command`` the data options first; its first parameter receives them as one :class:`DataOptions`."""
    own = list(inspect.signature(command, eval_str=True).parameters.values())[1:]

    @functools.wraps(command)
    def wrapper(**values: Any) -> Any:
        options = DataOptions(**{name: values.pop(name) for name in DATA_OPTIONS})
        return command(options, **values)

    params = [parameter(name) for name in DATA_OPTIONS]
    params += [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {}
    del wrapper.__wrapped__  # Typer must read the new signature, not the wrapped one's
    return wrapper


def load_splits(
    data: str | Path,
    task: str,
    dev: Path | None = None,
    test: Path | None = None,
    text_col: str | None = None,
    label_col: str | None = None,
    split_seed: int = 0,
    strict: bool = False,
) -> DataSplits:
    """The splits a run would use, read with the same options as ``advisor run``."""
    return read_splits(
        data,
        task,
        dev=dev,
        test=test,
        text_col=text_col,
        label_col=label_col,
        seed=split_seed,
        strict=strict,
    )


# -- outputs and stores, checked before anything is computed ----------------------------------------


def check_output_folder(folder: Path, what: str, option: str) -> None:
    """A folder the command will write into: not a file, writable, on a disk with room (E246 otherwise)."""
    from advisor.validate import check_writable_folder

    check_writable_folder(folder, what, option)


def check_output_file(out: Path, option: str) -> None:
    """A file the command will write: in an existing, writable folder, and not itself a folder.

    Checked before computing: ``advisor metrics --out missing/x.csv`` used to fail after the metrics.
    """
    path = out.expanduser()
    if path.is_dir():
        raise E211(
            option=option, requirement=f"name a file, but {out} is a folder", hint="e.g. --out items.csv"
        )
    parent = path.resolve().parent
    if not parent.is_dir():
        raise E211(
            option=option,
            requirement=f"be in an existing folder, but {parent} does not exist",
            hint="create the folder first, or write the file somewhere else",
        )
    check_output_folder(parent, "output folder", option)


def check_store_file(uri: str | None) -> None:
    """A local sqlite store that a reading command opens is an SQLite database (``advisor run`` checks the same)."""
    if not uri or not uri.startswith("sqlite:///"):
        return
    db = Path(uri.removeprefix("sqlite:///"))
    try:
        with open(db, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return  # missing or unreadable: the reader says so (E225)
    if head and head != b"SQLite format 3\x00":
        raise E220_NOT_SQLITE(uri=uri, db=db)
