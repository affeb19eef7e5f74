"""Save and load the encoder-layer results: the contextuality table, the scalar-mix weights, a layer sweep.

Computed in :mod:`advisor.contextuality`; here only where they live. In an analysis run:
``analysis/contextuality.json`` with its figure and ``contextuality_*`` params (the verdict's
sentence reads them), ``analysis/mix_weights.json`` with its figure. A layer sweep is a run of its
own (tag ``advisor.kind=layers``): params, dev score by layer (step = layer), its tables and figure.
Tables are replaced, never appended (:func:`~advisor.tracking.write_json_table`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from advisor.contextuality import (
    ContextualityResult,
    LayerSweep,
    mix_weights_rows,
    plot_contextuality,
    plot_layer_sweep,
    plot_mix_weights,
    sweep_summary,
)
from advisor.tracking._layout import (
    CONTEXTUALITY_FIGURE,
    CONTEXTUALITY_KIND,
    CONTEXTUALITY_TABLE,
    EMBEDDING_TAG,
    KIND_TAG,
    LAYERS_FIGURE,
    LAYERS_KIND,
    LAYERS_MIX_TABLE,
    LAYERS_TABLE,
    MIX_WEIGHTS_FIGURE,
    MIX_WEIGHTS_TABLE,
    SEED_TAG,
    TASK_TAG,
    child_runs_filter,
)
from advisor.tracking._reader import find_runs
from advisor.tracking._store import client_for
from advisor.tracking._tables import read_json_table, write_json_table
from advisor.tracking._writer import AnalysisTracker

__all__ = [
    "find_layer_sweeps",
    "has_contextuality",
    "load_layer_sweep",
    "log_contextuality",
    "log_contextuality_run",
    "log_layer_sweep",
    "log_mix_weights",
    "mix_weights_table",
]


def has_contextuality(client: Any, run_id: str) -> bool:
    """Whether the run already holds its contextuality table (measured once per run)."""
    return any(a.path == CONTEXTUALITY_TABLE for a in client.list_artifacts(run_id, "analysis"))


def log_contextuality(
    client: Any, run_id: str, result: ContextualityResult, log_params: Callable[[dict], None] | None = None
) -> None:
    """Table, figure and a few params (the verdict's sentence reads them) on the run.

    ``log_params`` logs the params the run lacks (the runner passes its tracker's, which keeps them).
    """
    from matplotlib import pyplot as plt
    from mlflow.entities import Param

    write_json_table(client, run_id, result.table, CONTEXTUALITY_TABLE)
    figure = plot_contextuality(result.table)
    client.log_figure(run_id, figure, CONTEXTUALITY_FIGURE)
    plt.close(figure)
    params = {f"contextuality_{k.removeprefix('n_')}": str(v) for k, v in result.summary().items()}
    if log_params is not None:
        log_params(params)
        return
    current = client.get_run(run_id).data.params
    new = [Param(k, v) for k, v in params.items() if k not in current]
    if new:
        client.log_batch(run_id, params=new)


def log_contextuality_run(
    result: ContextualityResult,
    params: dict[str, Any],
    task: str,
    data_name: str,
    tracking_uri: str | None,
    experiment: str,
) -> str:
    """``advisor contextuality``'s own finished run (tag ``advisor.kind=contextuality``): ``params``
    (the data and the encoder), then the result as :func:`log_contextuality` logs it; its id."""
    from mlflow.entities import Param

    tracker = AnalysisTracker(tracking_uri, experiment)
    run = tracker.client.create_run(
        tracker.experiment_id,
        run_name=f"contextuality-{data_name}",
        tags={KIND_TAG: CONTEXTUALITY_KIND, TASK_TAG: task},
    )
    run_id = run.info.run_id
    tracker.client.log_batch(run_id, params=[Param(k, str(v)[:6000]) for k, v in params.items()])
    log_contextuality(tracker.client, run_id, result)
    tracker.client.set_terminated(run_id, "FINISHED")
    return run_id


def mix_weights_table(client: Any, parent_id: str, experiment_id: str) -> pd.DataFrame:
    """Learned weights of every finished contextual cell, read from the children's ``mix_weight.<layer>``
    metric histories (step = size): embedding, seed, size, layer, weight."""
    children = client.search_runs(
        [experiment_id], filter_string=child_runs_filter(parent_id), max_results=5000
    )
    rows = []
    for child in children:
        for key in child.data.metrics:
            if not key.startswith("mix_weight."):
                continue
            layer = int(key.removeprefix("mix_weight."))
            for metric in client.get_metric_history(child.info.run_id, key):
                rows.append(
                    {
                        "embedding": child.data.tags.get(EMBEDDING_TAG, ""),
                        "seed": int(child.data.tags.get(SEED_TAG, 0)),
                        "size": int(metric.step),
                        "layer": layer,
                        "weight": float(metric.value),
                    }
                )
    return mix_weights_rows(rows)


def log_mix_weights(
    client: Any, parent_id: str, experiment_id: str, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Log the per-cell weights as the parent's table and figure (nothing when no cell used a mix).

    ``frame``: the weights as the caller holds them; by default they are read from the children.
    """
    from matplotlib import pyplot as plt

    frame = mix_weights_table(client, parent_id, experiment_id) if frame is None else frame
    if frame.empty:
        return frame
    write_json_table(client, parent_id, frame, MIX_WEIGHTS_TABLE)
    figure = plot_mix_weights(frame)
    client.log_figure(parent_id, figure, MIX_WEIGHTS_FIGURE)
    plt.close(figure)
    return frame


def log_layer_sweep(sweep: LayerSweep, tracking_uri: str | None, experiment: str, data: str) -> str:
    """One finished MLflow run (tag ``advisor.kind=layers``): params, dev score by layer, tables, figure."""
    from mlflow.entities import Param

    tracker = AnalysisTracker(tracking_uri, experiment)
    client = tracker.client
    run = client.create_run(
        tracker.experiment_id,
        run_name="-".join(
            ["layers", data.rstrip("/").split("/")[-1], sweep.task, *filter(None, [sweep.pair_encoding])]
        ),
        tags={KIND_TAG: LAYERS_KIND, TASK_TAG: sweep.task},
    )
    run_id = run.info.run_id
    params = {
        "data": data,
        "task": sweep.task,
        "size": sweep.size,
        "seeds": len(sweep.seeds),
        "primary_metric": sweep.primary_metric,
        **({"pair_encoding": sweep.pair_encoding} if sweep.pair_encoding else {}),  # as `run` logs it
        **{f"encoder_{k}": v for k, v in sweep.encoder.items() if k != "layer"},
    }
    client.log_batch(
        run_id, metrics=_sweep_metrics(sweep), params=[Param(k, str(v)[:6000]) for k, v in params.items()]
    )
    write_json_table(client, run_id, sweep.table, LAYERS_TABLE)
    if not sweep.mix_weights.empty:
        write_json_table(client, run_id, sweep.mix_weights, LAYERS_MIX_TABLE)
    client.log_figure(run_id, plot_layer_sweep(sweep.table, f"dev {sweep.primary_metric}"), LAYERS_FIGURE)
    client.set_terminated(run_id, "FINISHED")
    return run_id


def _sweep_metrics(sweep: LayerSweep) -> list[Any]:
    """Mean dev score per single layer (step = layer) and of the mix (``dev_score_mix``)."""
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    summary = sweep_summary(sweep.table)
    metrics = [
        Metric("dev_score_by_layer", float(r.dev_mean), now, int(r.layer))
        for r in summary.itertuples()
        if r.layer != "mix"
    ]
    return metrics + [
        Metric("dev_score_mix", float(r.dev_mean), now, 0) for r in summary.itertuples() if r.layer == "mix"
    ]


def find_layer_sweeps(tracking_uri: str | None = None, max_results: int = 50) -> list[Any]:
    """The store's ``advisor layers`` runs (tag ``advisor.kind=layers``), newest first."""
    return find_runs(LAYERS_KIND, tracking_uri, None, max_results)


def load_layer_sweep(run_id: str, tracking_uri: str | None = None) -> LayerSweep:
    """A sweep as :func:`log_layer_sweep` logged it: its tables, its params (``encoder`` holds the
    logged ``encoder_*`` params as text) and the data it ran on; layers as text ("0" … "L", "mix")."""
    client = client_for(tracking_uri)
    run = client.get_run(run_id)
    params = run.data.params
    logged = {a.path for a in client.list_artifacts(run_id, "analysis")}
    mix = (
        read_json_table(client, run_id, LAYERS_MIX_TABLE)
        if LAYERS_MIX_TABLE in logged
        else pd.DataFrame(columns=["seed", "layer", "weight"])
    )
    table = read_json_table(client, run_id, LAYERS_TABLE)
    table["layer"] = table["layer"].astype(str)
    return LayerSweep(
        table=table,
        mix_weights=mix,
        task=params.get("task", run.data.tags.get(TASK_TAG, "")),
        primary_metric=params.get("primary_metric", "score"),
        size=int(params.get("size", 0) or 0),
        seeds=list(range(int(params.get("seeds", 0) or 0))),
        encoder={k.removeprefix("encoder_"): v for k, v in params.items() if k.startswith("encoder_")},
        data=params.get("data", ""),
        pair_encoding=params.get("pair_encoding"),
    )
