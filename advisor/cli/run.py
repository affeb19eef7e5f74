"""``advisor run`` and ``advisor demo``: the main job, with a progress bar and a leaderboard at the end."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from advisor._error_codes import E215
from advisor.cli._app import app, console, err_console
from advisor.cli._options import DevOpt, LabelColOpt, SeedOpt, TaskOpt, TestOpt, TextColOpt
from advisor.errors import ConfigError
from advisor.grid import profiles
from advisor.runner import EMBEDDING_CHOICES, ProgressEvent, RunOutcome, RunSettings, run_analysis
from advisor.validate import validate_settings
from advisor.vocabulary import PAPER_FAMILIES

__all__ = ["demo", "print_leaderboard", "run"]

DEFAULT_EMBEDDINGS = ",".join(PAPER_FAMILIES)  # the paper's three; distilled (and others) on request


def _csv_list(value: str | None, cast: type) -> list[Any] | None:
    if value is None:
        return None
    try:
        return [cast(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(
            f"cannot read {value!r} as a comma-separated list of {cast.__name__}", code="E210"
        ) from None


def _parse_tags(values: list[str]) -> dict[str, str]:
    tags = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key:
            raise E215(value=value)
        tags[key] = text
    return tags


class _Display:
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

    def __enter__(self) -> _Display:
        if self.live:
            self.progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
            )
            self.progress.__enter__()
            self.task_id = self.progress.add_task("reading the data", total=None, unit="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def __call__(self, event: ProgressEvent) -> None:
        from advisor.progress import STAGES, describe

        if self.file is not None:
            self.file(event)
        text = describe(event)
        if self.progress is None:
            now = time.monotonic()
            if event.stage == "featurize" and event.done < event.total and now - self._last_plain < 10:
                return  # plain logs: a featurize line every 10 s, not every batch
            self._last_plain = now
            print(text, flush=True)
            return
        bar = self.progress
        if event.stage == "featurize" and event.total:
            bar.update(
                self.task_id,
                total=event.total,
                completed=event.done,
                description=f"featurizing {event.message}",
                unit="items",
            )
        elif event.stage in ("plan", "cell"):
            bar.update(
                self.task_id, total=event.total, completed=event.done, description="training", unit="cells"
            )
            bar.console.print(text, highlight=False)
        else:
            bar.update(self.task_id, description=STAGES.get(event.stage, event.stage))
            if event.message:
                bar.console.print(text, highlight=False)


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
            cells.append(f"{values.mean():.1f}±{spread:.1f}" if len(values) else "–")
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
    console.print(costs)


def _megabytes(value: float | None) -> str:
    """An embedding's size, or "–" for a family with no embedding table (the fine-tuned reference)."""
    return "–" if value is None or value != value else f"{value / 1e6:.1f}"


def _print_verdict(run_id: str, tracking_uri: str) -> None:
    from advisor.report import partial_notice
    from advisor.tracking import load_analysis
    from advisor.verdict import recommend

    analysis = load_analysis(run_id, tracking_uri)
    recommendation = recommend(analysis)
    notice = partial_notice(analysis.status)
    if notice:
        console.print(f"[bold yellow]{notice}[/]", highlight=False)
    for line in recommendation.summary_lines():
        console.print(line, highlight=False)


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
        with _Display() as display:
            outcome = run_analysis(settings, progress=display)
    except KeyboardInterrupt:
        err_console.print(
            "interrupted: the MLflow runs ended KILLED and finished cells are kept; "
            "run the same command again to resume",
            highlight=False,
        )
        raise SystemExit(130) from None
    console.print(
        f"ran on [bold]{outcome.device}[/]: {len(outcome.computed)} cells computed, {len(outcome.reused)} reused "
        f"({outcome.timings['total']:.1f}s); MLflow run {outcome.run_id} in {outcome.tracking_uri}",
        highlight=False,
    )
    print_leaderboard(outcome.run_id, outcome.tracking_uri)
    _print_verdict(outcome.run_id, outcome.tracking_uri)
    uri = outcome.tracking_uri
    browse = uri if uri.startswith(("http://", "https://")) else f"mlflow ui --backend-store-uri {uri}"
    console.print(
        f"report: advisor report {outcome.run_id}   |   browse: {browse}", highlight=False, soft_wrap=True
    )
    return outcome


EmbeddingsOpt = Annotated[
    str, typer.Option("--embeddings", "-e", help=f"comma-separated, from: {', '.join(EMBEDDING_CHOICES)}")
]
ProfileOpt = Annotated[
    str, typer.Option("--profile", "-p", help=f"grid and training effort: {', '.join(profiles.names())}")
]
SizesOpt = Annotated[
    str | None, typer.Option("--sizes", help="training-set sizes, e.g. 100,200,400 (overrides the profile)")
]
FractionsOpt = Annotated[
    str | None, typer.Option("--fractions", help="fractions of the training set, e.g. 0.25,0.5,1")
]
SeedsOpt = Annotated[int | None, typer.Option("--seeds", help="seeds per cell (default from the profile)")]
ContextualOpt = Annotated[
    str | None,
    typer.Option("--contextual", help="HF encoder id or local dir (default: packaged all-MiniLM-L6-v2)"),
]
StaticOpt = Annotated[
    str | None,
    typer.Option("--static", help="GloVe/word2vec/fastText text file (default: packaged GloVe 6B 50d)"),
]
LayerOpt = Annotated[
    str,
    typer.Option(
        "--layer",
        help="how the encoder's layers are read: mix (learned scalar mix of all layers, default), "
        "last, an index (0 = input embeddings), or mean-last-K",
    ),
]
PoolingOpt = Annotated[str, typer.Option("--pooling", help="sub-word pooling: first or mean")]
DistillLayerOpt = Annotated[
    str | None,
    typer.Option(
        "--distill-layer",
        help="layer the distilled family's static vectors come from: an index (0 = input embeddings) or last "
        "(default 1: lower layers distil best, Ethayarajh 2019)",
    ),
]
FinetuneSizesOpt = Annotated[
    str | None,
    typer.Option(
        "--finetune-sizes",
        help="fine-tuned reference (encoder trained end to end with a linear head) at these sizes: full, mid, "
        "a list such as 500,full, or off (default: off; the thorough profile runs mid,full)",
    ),
]
FinetuneEpochsOpt = Annotated[
    int | None, typer.Option("--finetune-epochs", help="epochs of the fine-tuned reference (default 3)")
]
FinetuneSeedsOpt = Annotated[
    int | None,
    typer.Option(
        "--finetune-seeds", help="seeds of the fine-tuned reference: the grid's first N (default all)"
    ),
]
UriOpt = Annotated[
    str | None,
    typer.Option(
        "--tracking-uri", help="MLflow store (default: $MLFLOW_TRACKING_URI or sqlite:///mlruns/mlflow.db)"
    ),
]
ExperimentOpt = Annotated[str, typer.Option("--experiment", help="MLflow experiment name")]
ForceOpt = Annotated[bool, typer.Option("--force", help="recompute cells that already finished")]
WorkersOpt = Annotated[
    int | None, typer.Option("--workers", help="parallel training processes on CPU (default: one per core)")
]
PriceOpt = Annotated[
    float | None,
    typer.Option("--price-per-hour", help="serving machine price per hour: the verdict prices 1M items"),
]
TagOpt = Annotated[
    list[str] | None, typer.Option("--tag", help="KEY=VALUE tag for the MLflow parent run (repeatable)")
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", help="also show third-party progress bars and logs (model loading)")
]
DeviceOpt = Annotated[
    str | None, typer.Option("--device", help="cpu, cuda, cuda:1 … (default: a GPU when visible)")
]
BackendOpt = Annotated[
    str,
    typer.Option("--backend", help="where cells train: local processes or ray (pip install advisor[ray])"),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address", help="Ray cluster address, e.g. ray://head:10001 (default: start one locally)"
    ),
]


@app.command()
def run(
    data: Annotated[
        str, typer.Argument(help="training file, a saved/parquet directory, or hf:NAME[:CONFIG]")
    ],
    task: TaskOpt,
    dev: DevOpt = None,
    test: TestOpt = None,
    text_col: TextColOpt = None,
    label_col: LabelColOpt = None,
    split_seed: SeedOpt = 0,
    embeddings: EmbeddingsOpt = DEFAULT_EMBEDDINGS,
    sizes: SizesOpt = None,
    fractions: FractionsOpt = None,
    seeds: SeedsOpt = None,
    profile: ProfileOpt = "default",
    contextual: ContextualOpt = None,
    static: StaticOpt = None,
    layer: LayerOpt = "mix",
    pooling: PoolingOpt = "first",
    distill_layer: DistillLayerOpt = None,
    finetune_sizes: FinetuneSizesOpt = None,
    finetune_epochs: FinetuneEpochsOpt = None,
    finetune_seeds: FinetuneSeedsOpt = None,
    tracking_uri: UriOpt = None,
    experiment: ExperimentOpt = "advisor",
    force: ForceOpt = False,
    device: DeviceOpt = None,
    tag: TagOpt = None,
    workers: WorkersOpt = None,
    price_per_hour: PriceOpt = None,
    backend: BackendOpt = "local",
    ray_address: RayAddressOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="items with a label but no text are an error, not skipped")
    ] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Train random, static and contextual embeddings over data-size curves; log to MLflow; give a verdict."""
    settings = RunSettings(
        data=data,
        task=task,
        dev=str(dev) if dev else None,
        test=str(test) if test else None,
        text_col=text_col,
        label_col=label_col,
        split_seed=split_seed,
        embeddings=_csv_list(embeddings, str) or [],
        sizes=_csv_list(sizes, int),
        fractions=_csv_list(fractions, float),
        seeds=seeds,
        profile=profile,
        contextual=contextual,
        static=static,
        layer=layer,
        pooling=pooling,
        distill_layer=distill_layer,
        finetune_sizes=finetune_sizes,
        finetune_epochs=finetune_epochs,
        finetune_seeds=finetune_seeds,
        tracking_uri=tracking_uri,
        experiment=experiment,
        force=force,
        device=device,
        tags=_parse_tags(tag or []),
        workers=workers,
        price_per_hour=price_per_hour,
        strict=strict,
        backend=backend,
        ray_address=ray_address,
    )
    validate_settings(settings)  # every option, path, store and tag, before anything is created
    execute(settings, verbose=verbose)


@app.command()
def demo(
    task: Annotated[str, typer.Option("--task", "-t", help="ner or classify")] = "ner",
    profile: ProfileOpt = "default",
    tracking_uri: UriOpt = None,
    force: ForceOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Run the full analysis on the bundled demo data with the packaged models (works offline)."""
    if task not in ("ner", "classify"):
        raise ConfigError(f"unknown task {task!r}", hint="choose one of: ner, classify", code="E201")
    from advisor.app import DEMO_DIR, demo_datasets  # package data: also there in an installed wheel

    found = demo_datasets()
    if task not in found:
        raise ConfigError(
            f"demo data not found in {DEMO_DIR}",
            hint="reinstall the package (the demo data ships inside it), or in a checkout regenerate it: "
            "python experiments/make_demo.py",
            code="E240",
        )
    files = {"train": found[task].train, "dev": found[task].dev, "test": found[task].test}
    err_console.print(
        f"demo: {task} on {files['train']} (dev {files['dev'].name}, test {files['test'].name})"
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
