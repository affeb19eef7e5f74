"""``advisor run`` and ``advisor demo``: the main job, with a progress bar and a leaderboard at the end."""

from __future__ import annotations

import inspect
import os
import signal
import sys
import time
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from advisor._error_codes import E240
from advisor.cli._app import app, console, err_console
from advisor.cli._options import annotated, parameter
from advisor.runner import ProgressEvent, RunOutcome, run_analysis
from advisor.settings import SETTINGS, RunSettings, from_cli
from advisor.tracking import browse_hint
from advisor.vocabulary import task_spec

__all__ = ["ProgressDisplay", "demo", "featurize_meter", "print_leaderboard", "run"]


class ProgressDisplay:
    """Progress by stage: a Rich bar with ETA on a terminal, plain lines otherwise (logs, CI, the app).

    The words come from :func:`advisor.progress.describe`, as in the app; with ``ADVISOR_PROGRESS_FILE``
    set (the app sets it) the latest event is also kept in that file for the app to poll.
    """

    def __init__(self) -> None:
        from advisor.progress import PROGRESS_FILE_ENV, ProgressFile

        self.live = console.is_terminal
        self.progress: Progress | None = None
        self.task_id: Any = None
        target = os.environ.get(PROGRESS_FILE_ENV)
        self.file = ProgressFile(target) if target else None
        self._last_plain = 0.0

    def __enter__(self) -> ProgressDisplay:
        return self  # the bar starts at the first event: settings the run rejects show no bar

    def _bar(self) -> Progress:
        if self.progress is None:
            self.progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[eta]}"),  # the run's own ETA (advisor.progress), not the bar's pace
                console=console,
            )
            self.progress.__enter__()
            self.task_id = self.progress.add_task("reading the data", total=None, unit="", eta="")
        return self.progress

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def __call__(self, event: ProgressEvent) -> None:
        from advisor.progress import STAGES, describe, duration, time_left

        if self.file is not None:
            self.file(event)
        if event.stage == "warning":  # stderr, worded as `advisor inspect` words it
            err_console.print(f"[yellow]warning:[/] {escape(event.message)}", highlight=False, soft_wrap=True)
            return
        text = describe(event)
        if not self.live:
            now, counting = time.monotonic(), event.stage == "featurize" and event.total
            if counting and event.done < event.total and now - self._last_plain < 10:
                return  # plain logs: a featurize line every 10 s, not every batch (the first one at once)
            self._last_plain = now if counting else 0.0
            print(text + time_left(event), flush=True)
            return
        bar = self._bar()
        eta = f"ETA {duration(event.eta)}" if event.eta is not None else ""
        if event.stage == "featurize" and event.total:
            bar.update(
                self.task_id,
                total=event.total,
                completed=event.done,
                description=escape(f"featurizing {event.message}"),  # the bar reads it as markup
                unit="items",
                eta=eta,
            )
        elif event.stage in ("plan", "cell") or (event.stage == "tune" and event.cell is not None):
            trials = event.stage == "tune"
            what = ("learning rates", "trials") if trials else ("training", "cells")
            bar.update(
                self.task_id, total=event.total, completed=event.done, description=what[0], unit=what[1]
            )
            if event.stage != "plan":  # a plan event keeps the last ETA until the next cell measures one
                bar.update(self.task_id, eta=eta or "ETA –")
            bar.console.print(escape(text), highlight=False)  # file and label names are not markup
        else:
            bar.update(self.task_id, description=escape(STAGES.get(event.stage, event.stage)), eta="")
            if event.message:
                bar.console.print(escape(text), highlight=False)


def featurize_meter(display: ProgressDisplay, name: str, part_sizes: list[int]) -> Any:
    """An encoder's batch callback that shows items, items/s and the ETA on ``display``, as ``run`` does
    (``advisor layers`` and ``advisor contextuality`` featurize through it too)."""
    from advisor.progress import FeaturizeMeter

    return FeaturizeMeter(name, part_sizes, display, ProgressEvent)


def _embedding_costs(embeddings: Any) -> dict[str, dict[str, float]]:
    """Per embedding: its size on disk and the serving pass's batch-1 latency and memory (NaN if absent).

    The serving figures come from the dedicated pass from raw text (``advisor.costs``), not from the
    training cells, whose timings depend on the feature cache.
    """
    columns = ("embedding_bytes", "serving_ms_per_item_b1", "serving_memory_mb")
    if embeddings is None or embeddings.empty or "embedding" not in embeddings:
        return {}
    return {
        str(row["embedding"]): {c: float(row[c]) for c in columns if c in row and row[c] is not None}
        for _, row in embeddings.iterrows()
    }


def print_leaderboard(run_id: str, tracking_uri: str) -> None:
    """Score at each size (mean ± std over seeds, in points) and, beside it, the cost of each embedding."""
    from advisor.tracking import load_analysis

    analysis = load_analysis(run_id, tracking_uri)
    curves = analysis.curves
    if curves.empty:
        console.print("no finished cells")
        return
    sizes = analysis.sizes
    scores = Table(
        title=f"{analysis.primary_metric} × 100 by training-set size (mean ± std over seeds)",
        title_justify="left",
    )
    scores.add_column("embedding", style="bold")
    for size in sizes:
        scores.add_column(f"{size:,}", justify="right")
    costs = Table(
        title="cost: training at the largest size (median over seeds); serving from raw text, batch 1",
        title_justify="left",
    )
    costs.add_column("embedding", style="bold")
    for column in ("train s", "serving ms/item", "serving MB", "params", "embedding MB"):
        costs.add_column(column, justify="right")
    per_embedding = _embedding_costs(analysis.embeddings)
    for name in analysis.embedding_names:
        rows = curves[curves["embedding"] == name]
        cells = []
        for size in sizes:
            values = rows.loc[rows["size"] == size, "score"] * 100
            spread = values.std(ddof=1) if len(values) > 1 else 0.0
            mark = "*" if _under_trained(rows[rows["size"] == size]) else ""
            cells.append(f"{values.mean():.1f}±{spread:.1f}{mark}" if len(values) else "–")
        scores.add_row(name, *cells)
        full = rows[rows["size"] == rows["size"].max()]
        measured = per_embedding.get(name, {})
        costs.add_row(
            name,
            f"{full['train_seconds'].median():.1f}",
            f"{measured.get('serving_ms_per_item_b1', float('nan')):.2f}",
            f"{measured.get('serving_memory_mb', float('nan')):.1f}",
            f"{full['n_params'].median():,.0f}",
            _megabytes(measured.get("embedding_bytes")),
        )
    console.print(scores)
    if "under_trained" in curves.columns and curves["under_trained"].fillna(0).any():
        console.print(
            "* under-trained: a seed stopped at the step ceiling while dev still improved; raise --max-steps",
            highlight=False,
        )
    console.print(costs)


def _under_trained(cells: Any) -> bool:
    """Whether any of these cells stopped at the step ceiling while dev still improved."""
    return "under_trained" in cells.columns and bool(cells["under_trained"].fillna(0).any())


def _megabytes(value: float | None) -> str:
    """An embedding's size, or "–" for a family with no embedding table (the fine-tuned reference)."""
    return "–" if value is None or value != value else f"{value / 1e6:.1f}"


def _print_verdict(run_id: str, tracking_uri: str) -> None:
    from advisor.report import partial_notice
    from advisor.tracking import load_analysis
    from advisor.verdict import recommend, render

    analysis = load_analysis(run_id, tracking_uri)
    recommendation = recommend(analysis)
    notice = partial_notice(analysis.status)
    if notice:
        console.print(f"[bold yellow]{escape(notice)}[/]", highlight=False)
    for line in render(recommendation).summary_lines():
        console.print(escape(line), highlight=False)  # labels and slice names are not markup


def _on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # the app's Stop button sends SIGTERM: end the runs KILLED, keep finished cells


def _third_party_output(verbose: bool) -> None:
    """Model-loading bars and library chatter (transformers' "Loading weights") only with --verbose."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "0" if verbose else "1"
    os.environ["TRANSFORMERS_VERBOSITY"] = "info" if verbose else "error"
    if "huggingface_hub" in sys.modules:  # read at import: already imported, switch it directly
        import huggingface_hub.utils as hub

        (hub.enable_progress_bars if verbose else hub.disable_progress_bars)()
    if "transformers" in sys.modules:
        import transformers.utils.logging as hf_logging

        (hf_logging.enable_progress_bar if verbose else hf_logging.disable_progress_bar)()


def execute(settings: RunSettings, verbose: bool = False) -> RunOutcome:
    _third_party_output(verbose)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        with ProgressDisplay() as display:
            outcome = run_analysis(settings, progress=display)
    except KeyboardInterrupt:
        err_console.print(
            "interrupted: the MLflow runs ended KILLED and finished cells are kept; "
            "run the same command again to resume",
            highlight=False,
        )
        raise SystemExit(130) from None
    console.print(
        f"ran on [bold]{escape(outcome.device)}[/]: {len(outcome.computed)} cells computed, {len(outcome.reused)} reused "
        f"({outcome.timings['total']:.1f}s); MLflow run {outcome.run_id} in {escape(outcome.tracking_uri)}",
        highlight=False,
    )
    print_leaderboard(outcome.run_id, outcome.tracking_uri)
    _print_verdict(outcome.run_id, outcome.tracking_uri)
    # the runs table at a server's own URL (no credentials), or `mlflow ui …, then open <that page>`
    browse = browse_hint(outcome.tracking_uri, outcome.experiment_id)
    console.print(
        f"report: advisor report {outcome.run_id}   |   browse: {escape(browse)}",
        highlight=False,
        soft_wrap=True,
    )
    return outcome


EmbeddingsOpt = annotated("embeddings")
ProfileOpt = annotated("profile")
SizesOpt = annotated("sizes")
FractionsOpt = annotated("fractions")
SeedsOpt = annotated("seeds")
ContextualOpt = annotated("contextual")
StaticOpt = annotated("static")
LayerOpt = annotated("layer")
PoolingOpt = annotated("pooling")
DistillLayerOpt = annotated("distill_layer")
FinetuneSizesOpt = annotated("finetune_sizes")
FinetuneEpochsOpt = annotated("finetune_epochs")
FinetuneSeedsOpt = annotated("finetune_seeds")
UriOpt = annotated("tracking_uri")
ExperimentOpt = annotated("experiment")
ForceOpt = annotated("force")
WorkersOpt = annotated("workers")
PriceOpt = annotated("price_per_hour")
TagOpt = annotated("tags")
DeviceOpt = annotated("device")
BackendOpt = annotated("backend")
RayAddressOpt = annotated("ray_address")
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", help="also show third-party progress bars and logs (model loading)")
]


def run(**values: Any) -> None:
    """Train random, static and contextual embeddings over data-size curves; log to MLflow; give a verdict."""
    verbose = values.pop("verbose")
    execute(RunSettings(**from_cli(values)), verbose=verbose)  # run_analysis checks them first


# One option per run setting, from the schema (the app writes its argv from the same schema).
run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [parameter(item.name) for item in SETTINGS]
    + [inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=VerboseOpt)]
)
app.command()(run)


@app.command()
def demo(
    task: Annotated[str, typer.Option("--task", "-t", help="ner, classify or pair")] = "ner",
    profile: ProfileOpt = "default",
    tracking_uri: UriOpt = None,
    force: ForceOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Run the full analysis on the bundled demo data with the packaged models (works offline)."""
    task_spec(task)  # an unknown task names the registered ones
    from advisor.app import DEMO_DIR, demo_datasets  # package data: also there in an installed wheel

    found = demo_datasets()
    if task not in found:
        raise E240(folder=DEMO_DIR)
    files = {"train": found[task].train, "dev": found[task].dev, "test": found[task].test}
    err_console.print(
        escape(f"demo: {task} on {files['train']} (dev {files['dev'].name}, test {files['test'].name})"),
        highlight=False,
    )
    execute(
        RunSettings(
            data=str(files["train"]),
            task=task,
            dev=str(files["dev"]),
            test=str(files["test"]),
            profile=profile,
            tracking_uri=tracking_uri,
            experiment="advisor-demo",
            force=force,
        ),
        verbose=verbose,
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
