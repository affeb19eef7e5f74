"""``advisor report RUN_ID|latest``: the verdict and an HTML + markdown report of a finished run.

The run is read back from MLflow (``advisor.tracking.load_analysis``), judged by the same
``advisor.verdict.recommend`` the app uses, written to a folder and logged as artifacts of the run.
The decision options (``--acceptable-loss``, ``--latency-budget-ms``, ``--latency-batch``,
``--monthly-items``, ``--price-per-hour``, ``--value-per-point``, ``--label-cost``) are ``advisor run``'s,
spelled and checked the same (:func:`advisor.validate.check_decision_inputs`); each one left out takes
the value the run was given, else the verdict's default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from advisor._error_codes import E211, E245
from advisor.cli._app import app, console, err_console
from advisor.cli._options import annotated, check_output_folder, check_store_file
from advisor.cli.run import UriOpt
from advisor.settings import setting
from advisor.validate import check_finite, check_limit
from advisor.verdict import (
    Recommendation,
    Thresholds,
    check_decision_inputs,
    recommend,
    render,
    run_thresholds,
)

__all__ = ["checked_options", "report"]

_DEFAULTS = Thresholds()
_MAX_BUDGET_ITEMS = 10**12


def checked_options(
    given: dict[str, Any],
    labelling_budget_items: int | None = _DEFAULTS.labelling_budget_items,
    labelling_budget_money: float | None = _DEFAULTS.labelling_budget_money,
    max_extrapolation: float = _DEFAULTS.max_extrapolation,
    min_seeds: int = _DEFAULTS.min_seeds,
    confidence: float = _DEFAULTS.confidence,
) -> dict[str, Any]:
    """Check the options before the run is read (bad values raise ConfigError naming the option); returns
    the thresholds that are not decision inputs (those ``given`` join the run's in :func:`run_thresholds`)."""
    check_decision_inputs(given)
    for option, value in (
        ("--labelling-budget-money", labelling_budget_money),
        ("--max-extrapolation", max_extrapolation),
        ("--confidence", confidence),
    ):
        check_finite(value, option)  # NaN passes every `value < 0` check of Thresholds
    check_limit(min_seeds, "seeds", "--min-seeds")
    if labelling_budget_items is not None and labelling_budget_items > _MAX_BUDGET_ITEMS:
        raise E245(
            option="--labelling-budget-items",
            limit=f"{_MAX_BUDGET_ITEMS:,}",
            value=labelling_budget_items,
            why="a labelling budget of a trillion items is beyond any real project",
        )
    others = {
        "labelling_budget_items": labelling_budget_items,
        "labelling_budget_money": labelling_budget_money,
        "max_extrapolation": max_extrapolation,
        "min_seeds": min_seeds,
        "confidence": confidence,
    }
    if labelling_budget_money is not None and labelling_budget_money < 0:
        raise E211(
            option="--labelling-budget-money", requirement=f"not be negative, got {labelling_budget_money}"
        )
    Thresholds(**(others | {"labelling_budget_money": None}))  # its own range checks, up front
    return others


RunIdArg = Annotated[str, typer.Argument(help="an analysis run id, or 'latest'")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="output folder (default: reports/RUN_ID)")]
_RUNS = "; left out: what `advisor run` was given"
AcceptableLossOpt = Annotated[
    float | None, typer.Option("--acceptable-loss", help=setting("acceptable_loss").help + _RUNS)
]
LatencyBudgetOpt = annotated("latency_budget_ms")
LatencyBatchOpt = Annotated[
    int | None, typer.Option("--latency-batch", help=setting("latency_batch").help + _RUNS + ", else 1")
]
MonthlyItemsOpt = annotated("monthly_items")
PriceOpt = annotated("price_per_hour")
ValuePerPointOpt = annotated("value_per_point")
LabelCostOpt = annotated("label_cost")
BudgetItemsOpt = Annotated[
    int | None,
    typer.Option(
        "--labelling-budget-items", help="extra items you could label (default: as many as you have)"
    ),
]
BudgetMoneyOpt = Annotated[
    float | None, typer.Option("--labelling-budget-money", help="money for labelling (needs --label-cost)")
]
MaxExtrapolationOpt = Annotated[
    float, typer.Option("--max-extrapolation", help="trust learning-curve fits up to this × the largest size")
]
MinSeedsOpt = Annotated[
    int, typer.Option("--min-seeds", help="seeds per embedding at full data needed for a verdict")
]
ConfidenceOpt = Annotated[float, typer.Option("--confidence", help="level of every interval")]
LogOpt = Annotated[bool, typer.Option("--log/--no-log", help="log the report files as artifacts of the run")]


@app.command()
def report(
    run_id: RunIdArg = "latest",
    tracking_uri: UriOpt = None,
    out: OutOpt = None,
    acceptable_loss: AcceptableLossOpt = None,
    latency_budget_ms: LatencyBudgetOpt = None,
    latency_batch: LatencyBatchOpt = None,
    monthly_items: MonthlyItemsOpt = None,
    price_per_hour: PriceOpt = None,
    value_per_point: ValuePerPointOpt = None,
    label_cost: LabelCostOpt = None,
    labelling_budget_items: BudgetItemsOpt = None,
    labelling_budget_money: BudgetMoneyOpt = None,
    max_extrapolation: MaxExtrapolationOpt = _DEFAULTS.max_extrapolation,
    min_seeds: MinSeedsOpt = _DEFAULTS.min_seeds,
    confidence: ConfidenceOpt = _DEFAULTS.confidence,
    log_artifacts: LogOpt = True,
) -> None:
    """Write the verdict and an HTML + markdown report for a finished ``advisor run``.

    Decision options left out (acceptable loss, budgets, volume, prices) take what the run was given.
    """
    from advisor.report import write_report
    from advisor.tracking import close_stale_runs, load_analysis, require_store

    given = {
        "acceptable_loss": acceptable_loss,
        "latency_budget_ms": latency_budget_ms,
        "latency_batch": latency_batch,
        "monthly_items": monthly_items,
        "price_per_hour": price_per_hour,
        "value_per_point": value_per_point,
        "label_cost": label_cost,
    }
    others = checked_options(
        given, labelling_budget_items, labelling_budget_money, max_extrapolation, min_seeds, confidence
    )
    if out is not None:
        check_output_folder(out, "report folder", "--out")  # before the run is read and judged
    store = require_store(tracking_uri)
    check_store_file(store)  # a text file named as the store: said, not an sqlalchemy traceback
    close_stale_runs(store)  # an analysis whose process died is reported KILLED, not RUNNING
    analysis = load_analysis(run_id, tracking_uri=store)
    thresholds = run_thresholds(analysis.params, given, **others)  # the run's inputs, overridden by these
    recommendation = recommend(analysis, thresholds)
    out_dir = out if out is not None else Path("reports") / (analysis.run_id or run_id)
    html_path, md_path = write_report(analysis, out_dir, thresholds, recommendation=recommendation)
    if log_artifacts and analysis.run_id:
        _log(analysis.run_id, tracking_uri, html_path, md_path, recommendation.to_dict())
    _print_verdict(analysis.status, recommendation, html_path, md_path)


def _print_verdict(status: str | None, recommendation: Recommendation, html: Path, md: Path) -> None:
    """The partial-run notice (if any), the verdict's summary and where the two report files are."""
    from advisor.report import partial_notice

    notice = partial_notice(status)
    if notice:
        console.print(f"[bold yellow]{escape(notice)}[/]", highlight=False, soft_wrap=True)
    for line in render(recommendation).summary_lines():
        console.print(escape(line), highlight=False, soft_wrap=True)
    console.print()
    console.print(f"HTML report: {escape(str(html))}", highlight=False, soft_wrap=True)
    console.print(f"Markdown report: {escape(str(md))}", highlight=False, soft_wrap=True)


def _log(run_id: str, tracking_uri: str | None, html: Path, md: Path, verdict: dict) -> None:
    """Both report files, the figures the markdown links, and the verdict JSON, under ``report/``."""
    from advisor.tracking import client_for

    client = client_for(tracking_uri)
    try:
        client.log_artifact(run_id, str(html), "report")
        client.log_artifact(run_id, str(md), "report")
        figures = md.parent / "figures"
        if figures.is_dir():
            client.log_artifacts(run_id, str(figures), "report/figures")
        client.log_dict(run_id, verdict, "report/verdict.json")
    except Exception as error:  # the report on disk is still useful when the store is read-only
        err_console.print(
            f"[yellow]warning:[/] could not log the report to run {run_id}: {escape(str(error))}"
        )
