"""``advisor predict-gain RUN_ID|latest unlabeled.txt``: would context help on this production text?

Loads the gain model logged by ``advisor run`` (boosters + training-set statistics; nothing else from
the run), scores every unit of the unlabelled file (the task's gain unit, ``advisor.gain.unit_of``:
sentence, pair or NER token), and prints the expected share of units where contextual embeddings help
and the expected score gain, with intervals that combine a bootstrap over texts and the model's
cross-validated error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from advisor._error_codes import E830, E834, E834_OUT
from advisor.cli._app import app, console, err_console
from advisor.cli._options import annotated
from advisor.validate import check_limit

__all__ = ["predict_gain_command"]

UriOpt = annotated("tracking_uri")  # the store every command reads by default, said the same way


@app.command("predict-gain")
def predict_gain_command(
    run_id: Annotated[str, typer.Argument(help="an analysis run id, or 'latest'")],
    text: Annotated[
        Path,
        typer.Argument(
            help="unlabelled text: one text per line (a pair model: first text, tab, second text), "
            "or CoNLL tokens (tags ignored)"
        ),
    ],
    tracking_uri: UriOpt = None,
    format: Annotated[str, typer.Option("--format", help="auto, lines or conll")] = "auto",
    confidence: Annotated[float, typer.Option("--confidence", help="level of the intervals")] = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="seed of the bootstrap")] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", help="write the per-unit predictions here (.csv)")
    ] = None,
) -> None:
    """Expected share of items where context helps, and expected score gain, on unlabelled text."""
    from advisor.gain import predict_gain, read_unlabelled
    from advisor.tracking import load_gain_model, require_store

    _check_options(text, format, confidence, seed, out)  # before the model is downloaded and loaded
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # keep stderr for real messages

    model = load_gain_model(run_id, tracking_uri=require_store(tracking_uri))
    unlabelled = read_unlabelled(text, model.task, format=format)
    for warning in unlabelled.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    pair_split = unlabelled.pair_split or None  # a pair model's text: one pair per line
    forecast = predict_gain(model, unlabelled.tokens, seed=seed, confidence=confidence, pair_split=pair_split)
    console.print(
        f"gain model of run {escape(str(model.run_id))} ({escape(model.task)}, read {unlabelled.format} format)",
        highlight=False,
        soft_wrap=True,
    )
    for line in forecast.summary_lines():
        console.print(escape(line), highlight=False, soft_wrap=True)
    if out is not None:
        table = forecast.per_unit.copy()
        table.insert(1, "line", [unlabelled.line_numbers[i] for i in table["item"]])
        table.to_csv(out, index=False)
        console.print(f"per-unit predictions: {escape(str(out))}", highlight=False, soft_wrap=True)


def _check_options(text: Path, format: str, confidence: float, seed: int, out: Path | None) -> None:
    """Everything checkable without the run: the text file, the format, the numbers, the output folder."""
    from advisor.data import check_file
    from advisor.gain import FORMATS

    check_file(text)
    if format not in FORMATS:
        raise E830(name=format, choices=", ".join(FORMATS))
    if not 0 < confidence < 1:
        raise E834(option="--confidence", requirement=f"be in (0, 1), got {confidence}")
    if seed < 0:
        raise E834(option="--seed", requirement=f"be at least 0, got {seed}")
    check_limit(seed, "split_seed", "--seed")  # numpy takes 32-bit seeds
    if out is not None and not out.expanduser().resolve().parent.is_dir():
        raise E834_OUT(out=out, folder=out.expanduser().resolve().parent)
