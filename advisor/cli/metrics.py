"""``advisor metrics FILE --task ner|classify``: difficulty metric distributions and slice sizes, no training.

Metrics are scored on the evaluation (test) split against the train split, exactly as the gap
analysis of ``advisor run`` scores them, so the slice sizes printed here are the ones it will use.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from advisor import cache
from advisor._error_codes import E211, E503_CLI
from advisor.cli._app import app, console, err_console, titled_table
from advisor.cli._options import DataOptions, check_output_file, with_data_options
from advisor.difficulty import LEVELS, PartitionRule, check_parser_model, item_metrics, summarize_metrics
from advisor.registry import metrics as metric_registry

__all__ = ["metrics_command", "render_metric_summary"]


def _number(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, float):
        return "inf" if value == float("inf") else f"{value:.3g}"
    return str(value)


def _cut(row: dict) -> str:
    """The cut as read: ``>= 1.88``, or ``<= 0.25`` for a metric whose low values are difficult (overlap)."""
    if _number(row["threshold"]) == "-":  # None, or NaN once the summary's column is numeric
        return "no split"
    return f"{'>=' if row.get('higher_is_harder', True) else '<='} {_number(row['threshold'])}"


def render_metric_summary(summary, title: str) -> Table:
    """Rich table of :func:`advisor.difficulty.summarize_metrics` output, one column per metric."""
    table = titled_table(title)
    table.add_column("")
    records = summary.to_dict("records")
    for row in records:
        table.add_column(row["metric"], justify="right")
    statistics = [("min", "q0"), ("q25", "q25"), ("median", "q50"), ("q75", "q75"), ("q90", "q90")]
    statistics += [("max", "q100"), ("mean (finite)", "mean_finite")]
    for label, key in statistics:
        table.add_row(label, *(_number(row.get(key)) for row in records))
    table.add_row(
        "tied at mode",
        *(f"{r.get('share_modal', 0):.0%} at {_number(r.get('modal_value'))}" for r in records),
    )
    table.add_row("never seen (inf)", *(f"{r.get('share_inf', 0):.0%}" for r in records))
    table.add_row("difficult if", *(_cut(r) for r in records))
    table.add_row("difficult / easy", *(f"{r['n_difficult']:,} / {r['n_easy']:,}" for r in records))
    return table


@app.command("metrics")
@with_data_options
def metrics_command(
    options: DataOptions,
    level: Annotated[
        str | None, typer.Option("--level", help="NER unit: entity (default), token or sentence")
    ] = None,
    spacy_model: Annotated[
        str | None, typer.Option("--spacy-model", help="spaCy pipeline for the parse metric (classify, pair)")
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="cache root, as on run: parses go in its parses/ (default: $ADVISOR_CACHE_DIR or ~/.cache/advisor)",
        ),
    ] = None,
    difficult_share: Annotated[
        float, typer.Option("--difficult-share", help="target share of the difficult slice")
    ] = 0.5,
    out: Annotated[Path | None, typer.Option("--out", help="write the per-item table here (.csv)")] = None,
) -> None:
    """Difficulty metrics of the evaluation items: distributions, ties, unseen share, slice sizes."""
    task = options.task
    if level is not None and task in LEVELS and level not in LEVELS[task]:
        raise E503_CLI(level=level, task=task, choices=", ".join(LEVELS[task]))
    if not 0 < difficult_share < 1:  # NaN and inf fail too; checked before the data is read
        raise E211(
            option="--difficult-share",
            requirement=f"lie in (0, 1), got {difficult_share}",
            hint="the share of evaluation items called difficult, e.g. 0.5",
        )
    if out is not None:
        check_output_file(out, "--out")  # before the metrics are computed, not after
    if spacy_model and task != "ner":  # classify and pair parse their texts
        check_parser_model(spacy_model)
    started = time.perf_counter()
    splits = options.load()
    for warning in dict.fromkeys(splits.warnings):
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    loaded = time.perf_counter()
    parses = cache.cache_dir("parses", cache_dir)  # the root's parses/, as on run (None: the configured root)
    table = item_metrics(splits.train, splits.test, spacy_model, level=level, cache_dir=parses)
    summary = summarize_metrics(table, PartitionRule(target_share=difficult_share))
    computed = time.perf_counter()
    unit = {"entity": "entities", "token": "tokens"}.get(table.attrs["level"], "sentences")
    title = (
        f"{escape(str(options.data))}: {len(table):,} evaluation {unit} "
        f"({len(splits.test):,} test vs {len(splits.train):,} train sentences, {splits.split_method})"
    )
    console.print(render_metric_summary(summary, title))
    for name, line in zip(summary["metric"], summary["partition"], strict=True):
        unit = metric_registry.meta(name).get("unit", "")
        console.print(f"  {escape(line)} [dim](unit: {escape(unit)})[/]", highlight=False, soft_wrap=True)
    if out is not None:
        table.to_csv(out, index=False)
        console.print(f"per-item table: {escape(str(out))}", highlight=False, soft_wrap=True)
    console.print(
        f"[dim]read {loaded - started:.1f} s, metrics {computed - loaded:.1f} s[/]", highlight=False
    )
