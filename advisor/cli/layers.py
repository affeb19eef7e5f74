"""``advisor layers DATA --task …``: dev score of the downstream model on each encoder layer and on the scalar mix.

One mid-size training subset (the middle size of the profile's grid unless ``--size``), 2 seeds by
default, every layer read from the all-layer feature cache; the result is printed and logged to
MLflow as its own run (tag ``advisor.kind=layers``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from advisor._error_codes import E211
from advisor.cli._app import app, console, err_console
from advisor.cli._options import (
    DEFAULT_PAIR_ENCODING,
    DataOptions,
    PairEncodingOpt,
    check_pair_option,
    with_data_options,
)
from advisor.cli.run import (
    ContextualOpt,
    DeviceOpt,
    ExperimentOpt,
    PoolingOpt,
    ProgressDisplay,
    UriOpt,
    featurize_meter,
)
from advisor.runner import ProgressEvent
from advisor.settings import DEFAULT_POOLING
from advisor.validate import check_limit

__all__ = ["layers_command", "render_layer_sweep"]


def render_layer_sweep(sweep) -> Table:
    """One row per layer (then the mix): dev score per seed, mean, and the test score."""
    from advisor.contextuality import sweep_summary

    metric = sweep.primary_metric
    encoding = f", pair encoding {sweep.pair_encoding}" if sweep.pair_encoding else ""
    table = Table(
        title=f"dev {metric} × 100 by layer at {sweep.size:,} training items ({len(sweep.seeds)} seeds{encoding}); "
        "0 = input embeddings",
        title_justify="left",
    )
    for column in ("layer", "dev (seeds)", "dev mean", f"test {metric} mean"):
        table.add_column(column, justify="right")
    summary = sweep_summary(sweep.table)
    best = summary.loc[summary["layer"] != "mix", "dev_mean"].max()
    for row in summary.itertuples():
        per_seed = sweep.table[sweep.table["layer"] == row.layer].sort_values("seed")["dev_score"]
        mark = " ◀ best layer" if row.layer != "mix" and row.dev_mean == best else ""
        table.add_row(
            "scalar mix" if row.layer == "mix" else row.layer,
            " ".join(f"{100 * v:.1f}" for v in per_seed),
            f"{100 * row.dev_mean:.1f}{mark}",
            f"{100 * row.test_mean:.1f}",
        )
    return table


CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir", help="feature cache (default: $ADVISOR_CACHE_DIR or ~/.cache/advisor/features)"
    ),
]


def _check_numbers(seeds: int, size: int | None, max_steps: int | None) -> None:
    """The sweep's numbers, before the data is read (E211, or the limit a run has)."""
    if seeds < 1:
        raise E211(option="--seeds", requirement="be at least 1")
    if size is not None and size < 1:
        raise E211(option="--size", requirement="be at least 1")
    if max_steps is not None and max_steps < 1:
        raise E211(option="--max-steps", requirement="be at least 1")
    check_limit(seeds, "seeds")
    check_limit(max_steps, "max_steps")


@app.command("layers")
@with_data_options
def layers_command(
    data_options: DataOptions,
    contextual: ContextualOpt = None,
    pooling: PoolingOpt = DEFAULT_POOLING,
    pair_encoding: PairEncodingOpt = DEFAULT_PAIR_ENCODING,
    size: Annotated[
        int | None,
        typer.Option("--size", help="training items (default: the middle size of the profile's grid)"),
    ] = None,
    seeds: Annotated[int, typer.Option("--seeds", help="seeds per layer")] = 2,
    profile: Annotated[
        str, typer.Option("--profile", help="quick, default or thorough (step budget, grid)")
    ] = "default",
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", help="step ceiling per model (default from the profile)")
    ] = None,
    cache_dir: CacheDirOpt = None,
    device: DeviceOpt = None,
    tracking_uri: UriOpt = None,
    experiment: ExperimentOpt = "advisor",
) -> None:
    """Which encoder layers carry your task: train on each single layer and on the learned scalar mix."""
    from advisor.contextuality import layer_sweep
    from advisor.tracking import log_layer_sweep

    _check_numbers(seeds, size, max_steps)
    encoding = check_pair_option(data_options.task, pair_encoding)  # E255 before any data or model is read
    splits = data_options.load()
    for warning in dict.fromkeys(splits.warnings):
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    with ProgressDisplay() as display:  # the featurize progress of `advisor run`: items, items/s, ETA
        parts = [len(splits.train), len(splits.dev), len(splits.test)]
        sweep = layer_sweep(
            splits,
            contextual=contextual,
            pooling=pooling,
            size=size,
            seeds=seeds,
            profile=profile,
            max_steps=max_steps,
            cache_dir=str(cache_dir) if cache_dir else None,
            device=device,
            progress=lambda message: display(ProgressEvent("layers", message=message)),
            on_batch=featurize_meter(display, "contextual", parts),
            pair_encoding=encoding,
        )
    console.print(render_layer_sweep(sweep))
    if not sweep.mix_weights.empty:
        weights = sweep.mix_weights.groupby("layer")["weight"].mean()
        console.print(
            "scalar-mix weights (mean over seeds): "
            + ", ".join(f"layer {int(k)} {v:.2f}" for k, v in weights.items()),
            highlight=False,
        )
    run_id = log_layer_sweep(sweep, tracking_uri, experiment, str(data_options.data))
    console.print(f"logged to MLflow run {run_id}", highlight=False)
