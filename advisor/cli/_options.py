"""Options shared by the commands that read a dataset, so they are spelled the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from advisor.data import DataSplits, read_splits

__all__ = ["DevOpt", "LabelColOpt", "SeedOpt", "StrictOpt", "TaskOpt", "TestOpt", "TextColOpt", "load_splits"]

TaskOpt = Annotated[str, typer.Option("--task", "-t", help="ner or classify")]
DevOpt = Annotated[
    Path | None, typer.Option("--dev", help="dev file (default: a seeded split of the train file)")
]
TestOpt = Annotated[
    Path | None, typer.Option("--test", help="evaluation file (default: a seeded split of the train file)")
]
TextColOpt = Annotated[str | None, typer.Option("--text-col", help="text column of a CSV/TSV/JSONL file")]
LabelColOpt = Annotated[str | None, typer.Option("--label-col", help="label column of a CSV/TSV/JSONL file")]
SeedOpt = Annotated[int, typer.Option("--split-seed", help="seed of the train/dev/test split")]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="items with a label but no text are an error, not skipped")
]


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
