"""The run's layer stages: contextuality of the encoder on the training data, and the learned mix weights.

Called from ``advisor.runner`` with a few lines, so the runner stays about orchestration. Tables are
written as ``analysis/contextuality.json`` and ``analysis/mix_weights.json`` (MLflow's table JSON,
replaced on every analysis rather than appended), the figures under ``figures/``.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from advisor.contextuality._measures import ContextualityResult, measure_contextuality
from advisor.contextuality._plot import plot_contextuality, plot_mix_weights
from advisor.vocabulary import child_runs_filter

__all__ = [
    "CONTEXTUALITY_TABLE",
    "MIX_WEIGHTS_TABLE",
    "contextuality_for",
    "log_contextuality",
    "log_mix_weights",
    "mix_weights_frame",
    "mix_weights_table",
    "run_contextuality_stage",
    "write_table",
]

CONTEXTUALITY_TABLE = "analysis/contextuality.json"
MIX_WEIGHTS_TABLE = "analysis/mix_weights.json"


def write_table(client: Any, run_id: str, frame: pd.DataFrame, artifact_file: str) -> None:
    """Log ``frame`` in MLflow's table JSON layout, replacing any earlier version (``log_table`` appends)."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value.item() if hasattr(value, "item") else value

    payload = {
        "columns": [str(c) for c in frame.columns],
        "data": [[clean(v) for v in row] for row in frame.itertuples(index=False, name=None)],
    }
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / Path(artifact_file).name
        local.write_text(json.dumps(payload), encoding="utf-8")
        client.log_artifact(run_id, str(local), str(Path(artifact_file).parent))


def contextuality_for(options: dict[str, Any], corpus: Any) -> ContextualityResult:
    """Measure the encoder of the contextual ``options`` on ``corpus`` (the all-layer cache, no forward pass if cached)."""
    from advisor.embeddings import make_embedding

    embedding = make_embedding("contextual", **options)
    stack = embedding.featurize_layers(corpus)
    return measure_contextuality(stack, corpus.tokens)


def log_contextuality(
    client: Any, run_id: str, result: ContextualityResult, log_params: Callable[[dict], None] | None = None
) -> None:
    """Table, figure and a few params (the verdict's sentence reads them) on the run.

    ``log_params`` logs the params the run lacks (the runner passes its tracker's, which keeps them).
    """
    from mlflow.entities import Param

    write_table(client, run_id, result.table, CONTEXTUALITY_TABLE)
    figure = plot_contextuality(result.table)
    client.log_figure(run_id, figure, "figures/contextuality.png")
    params = {f"contextuality_{k.removeprefix('n_')}": str(v) for k, v in result.summary().items()}
    if log_params is not None:
        log_params(params)
        return
    current = client.get_run(run_id).data.params
    new = [Param(k, v) for k, v in params.items() if k not in current]
    if new:
        client.log_batch(run_id, params=new)


def run_contextuality_stage(
    options: dict[str, Any],
    corpus: Any,
    client: Any,
    run_id: str,
    log_params: Callable[[dict], None] | None = None,
) -> float:
    """The runner's hook: measure once per run (skipped when the run already has the table); returns seconds."""
    started = time.perf_counter()
    if any(a.path == CONTEXTUALITY_TABLE for a in client.list_artifacts(run_id, "analysis")):
        return 0.0
    log_contextuality(client, run_id, contextuality_for(options, corpus), log_params)
    return time.perf_counter() - started


MIX_COLUMNS = ["embedding", "seed", "size", "layer", "weight"]


def mix_weights_table(client: Any, parent_id: str, experiment_id: str) -> pd.DataFrame:
    """Learned weights of every finished contextual cell: embedding, seed, size, layer, weight."""
    children = client.search_runs(
        [experiment_id],
        filter_string=child_runs_filter(parent_id),
        max_results=5000,
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
                        "embedding": child.data.tags.get("advisor.embedding", ""),
                        "seed": int(child.data.tags.get("advisor.seed", 0)),
                        "size": int(metric.step),
                        "layer": layer,
                        "weight": float(metric.value),
                    }
                )
    frame = pd.DataFrame(rows, columns=MIX_COLUMNS)
    return frame.sort_values(["embedding", "size", "seed", "layer"]).reset_index(drop=True)


def mix_weights_frame(weights: dict[tuple[str, int, int], list[float]]) -> pd.DataFrame:
    """The same table from weights held in memory: ``(embedding, size, seed) -> weight per layer``."""
    rows = [
        {"embedding": emb, "seed": int(seed), "size": int(size), "layer": layer, "weight": float(weight)}
        for (emb, size, seed), per_layer in weights.items()
        for layer, weight in enumerate(per_layer)
    ]
    frame = pd.DataFrame(rows, columns=MIX_COLUMNS)
    return frame.sort_values(["embedding", "size", "seed", "layer"]).reset_index(drop=True)


def log_mix_weights(
    client: Any, parent_id: str, experiment_id: str, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Log the per-cell weights as the parent's table and figure (nothing when no cell used a mix).

    ``frame``: the weights as the caller holds them; by default they are read from the children.
    """
    frame = mix_weights_table(client, parent_id, experiment_id) if frame is None else frame
    if frame.empty:
        return frame
    write_table(client, parent_id, frame, MIX_WEIGHTS_TABLE)
    client.log_figure(parent_id, plot_mix_weights(frame), "figures/mix_weights.png")
    return frame
