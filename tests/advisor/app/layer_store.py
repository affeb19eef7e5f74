"""A store with the encoder-layer results the app shows, written by the project's own writers.

A finished synthetic analysis (:mod:`.synthetic_store`) gets planted scalar-mix weights on its
contextual cells (``mix_weight.<layer>`` metrics, step = size, as the trainer logs them) collected
by :func:`advisor.tracking.log_mix_weights`, and a planted contextuality table logged by
:func:`advisor.tracking.log_contextuality`; a layer sweep is logged by ``log_layer_sweep``.
The planted numbers are module constants, so tests compare the app's tables against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from advisor.contextuality import ContextualityResult, LayerSweep
from advisor.tracking import client_for, log_contextuality, log_layer_sweep
from advisor.tracking import log_mix_weights as collect_mix_weights

from .synthetic_store import SIZES, log_analysis

N_LAYERS = 3  # layers 0 (input embeddings), 1, 2


def planted_weights(size: int, seed: int) -> list[float]:
    """Softmax weights whose top layer moves from 0 at the smallest size to 2 at the largest."""
    top = SIZES.index(size)
    logits = np.array([2.0 if layer == top else 0.1 * seed for layer in range(N_LAYERS)])
    weights = np.exp(logits) / np.exp(logits).sum()
    return [float(w) for w in weights]


CONTEXTUALITY = pd.DataFrame(
    {
        "layer": [0, 1, 2],
        "self_similarity": [0.95, 0.80, 0.60],
        "self_similarity_adjusted": [0.70, 0.50, 0.25],
        "intra_similarity": [0.30, 0.45, 0.62],
        "intra_similarity_adjusted": [0.05, 0.15, 0.27],
        "mev": [0.90, 0.75, 0.55],
        "mev_baseline": [0.20, 0.22, 0.25],
        "mev_adjusted": [0.70, 0.53, 0.30],
        "anisotropy": [0.25, 0.30, 0.35],
        "static_share": [1.0, 0.875, 0.625],
    }
)

#: Dev score per (layer, seed) of the planted sweep: layer 1 is best, the mix 1 point below it.
SWEEP_DEV = {"0": (0.50, 0.52), "1": (0.70, 0.72), "2": (0.60, 0.62), "mix": (0.69, 0.71)}
SWEEP_SIZE = 32


@dataclass(frozen=True)
class LayerStore:
    uri: str
    analysis: str  # the analysis run with mix weights and contextuality
    sweep: str  # the layer-sweep run


def _plant_mix_weights(uri: str, parent_id: str) -> None:
    from mlflow.entities import Metric

    client = client_for(uri)
    parent = client.get_run(parent_id)
    children = client.search_runs(
        [parent.info.experiment_id], filter_string=f"tags.`mlflow.parentRunId` = '{parent_id}'"
    )
    for child in children:
        if child.data.tags.get("advisor.embedding") != "contextual":
            continue
        seed = int(child.data.tags["advisor.seed"])
        metrics = [
            Metric(f"mix_weight.{layer}", weight, 0, size)
            for size in SIZES
            for layer, weight in enumerate(planted_weights(size, seed))
        ]
        client.log_batch(child.info.run_id, metrics=metrics)
    collect_mix_weights(client, parent_id, parent.info.experiment_id)


def _sweep() -> LayerSweep:
    rows = [
        {
            "layer": layer,
            "seed": seed,
            "size": SWEEP_SIZE,
            "dev_score": dev,
            "test_score": dev - 0.05,
            "epochs": 4,
            "train_seconds": 1.0,
        }
        for layer, scores in SWEEP_DEV.items()
        for seed, dev in enumerate(scores)
    ]
    weights = [{"seed": s, "layer": i, "weight": w} for s in (0, 1) for i, w in enumerate((0.2, 0.5, 0.3))]
    return LayerSweep(
        table=pd.DataFrame(rows),
        mix_weights=pd.DataFrame(weights),
        task="ner",
        primary_metric="f1",
        size=SWEEP_SIZE,
        seeds=[0, 1],
        encoder={"model": "tiny-encoder", "dim": 32, "pooling": "first"},
    )


def build_layer_store(root: Path) -> LayerStore:
    """``sqlite:///root/mlflow.db``: one analysis with layer tables, one layer sweep."""
    root.mkdir(parents=True, exist_ok=True)
    uri = f"sqlite:///{root}/mlflow.db"
    analysis = log_analysis(uri, "layers")
    _plant_mix_weights(uri, analysis)
    result = ContextualityResult(
        table=CONTEXTUALITY, n_words=8, n_occurrences=80, n_sentences=40, min_count=5, max_occurrences=50
    )
    log_contextuality(client_for(uri), analysis, result)
    sweep = log_layer_sweep(_sweep(), uri, "app-test", "/data/synthetic.conll")
    return LayerStore(uri=uri, analysis=analysis, sweep=sweep)
