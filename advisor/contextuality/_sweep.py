"""Layer sweep: the same downstream model trained on each single encoder layer and on the learned scalar mix.

Why: a frozen encoder's word information sits in different layers for different models and tasks
(a sentence-embedding model's last layer is among its worst for tagging). Training the run's own
downstream model on every layer at one mid-size training set, with a couple of seeds, shows which
layers carry the task and whether the scalar mix (the run's default) finds them. Every layer is read
from the same all-layer feature cache, so the encoder runs at most once. The record layer
(``advisor.tracking.log_layer_sweep``) saves a sweep as its own MLflow run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from advisor.contextuality._describe import encoder_name
from advisor.data import DataSplits
from advisor.grid import plan_grid, profiles, subset_indices, subset_order
from advisor.settings import DEFAULT_POOLING
from advisor.vocabulary import primary_metric

__all__ = ["LayerSweep", "all_layers_encoder", "layer_sweep", "sweep_summary"]


@dataclass
class LayerSweep:
    """One row per (layer, seed): layer is "0" … "L" or "mix"; scores on the [0, 1] scale."""

    table: pd.DataFrame  # layer, seed, size, dev_score, test_score, steps, under_trained, train_seconds
    mix_weights: pd.DataFrame  # seed, layer, weight (the mix rows' learned weights)
    task: str
    primary_metric: str
    size: int
    seeds: list[int]
    encoder: dict[str, Any] = field(default_factory=dict)  # the embedding's describe()
    data: str = ""  # what it was trained on, as the user named it (set when read back from a run)
    pair_encoding: str | None = None  # pair data: how the encoder read the two texts (joint | separate)


def sweep_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max dev score and mean test score per layer, single layers in order, mix last."""
    grouped = table.groupby("layer").agg(
        dev_mean=("dev_score", "mean"),
        dev_min=("dev_score", "min"),
        dev_max=("dev_score", "max"),
        test_mean=("test_score", "mean"),
        n_seeds=("seed", "nunique"),
    )
    order = sorted((k for k in grouped.index if k != "mix"), key=int) + [
        k for k in grouped.index if k == "mix"
    ]
    return grouped.loc[order].reset_index()


def layer_sweep(
    splits: DataSplits,
    *,
    contextual: str | None = None,
    pooling: str = DEFAULT_POOLING,
    size: int | None = None,
    seeds: int = 2,
    profile: str = "default",
    max_steps: int | None = None,
    cache_dir: str | None = None,
    device: str | None = None,
    progress: Callable[[str], None] | None = None,
    on_batch: Callable[[int, int], None] | None = None,
    pair_encoding: str | None = None,
) -> LayerSweep:
    """Train on each layer and on the mix; ``size`` defaults to the middle size of the profile's grid.

    ``on_batch``: the encoder's batch callback (``advisor.progress.FeaturizeMeter``: items/s, ETA).
    ``pair_encoding``: how a pair task's two texts are read (None: the encoder's default, joint); the
    feature cache keeps joint and separate apart, so either can be swept after the other."""
    say = progress or (lambda message: None)
    chosen = profiles.get(profile)
    size = _sweep_size(splits, chosen, size, seeds)
    embedding = all_layers_encoder(contextual, pooling, cache_dir, device, pair_encoding)
    embedding.on_progress = on_batch
    say(f"featurizing every layer with {encoder_name(embedding.model_ref)}")
    features = tuple(embedding.featurize(part) for part in (splits.train, splits.dev, splits.test))
    ceiling = max_steps or chosen.max_steps
    config: dict[str, Any] = {
        "max_steps": ceiling,
        "min_steps": min(chosen.min_steps, ceiling),
        "patience": chosen.patience,
    }
    if device:
        config["device"] = device
    rows: list[dict[str, Any]] = []
    weights: list[dict[str, Any]] = []
    for seed in range(seeds):
        seed_rows, seed_weights = _sweep_one_seed(splits, features, config, size, seed, say)
        rows += seed_rows
        weights += seed_weights
    return LayerSweep(
        table=pd.DataFrame(rows),
        mix_weights=pd.DataFrame(weights, columns=["seed", "layer", "weight"]),
        task=splits.train.task,
        primary_metric=primary_metric(splits.train.task),
        size=size,
        seeds=list(range(seeds)),
        encoder=embedding.describe(),
        pair_encoding=embedding.pair_encoding if splits.train.is_pair else None,
    )


def _sweep_size(splits: DataSplits, chosen: Any, size: int | None, seeds: int) -> int:
    """The training-set size: the given one, else the middle of the profile's grid; never above the data."""
    if size is None:
        sizes = plan_grid(len(splits.train), ["contextual"], chosen, None, None, seeds).sizes
        size = sizes[len(sizes) // 2]
    return min(int(size), len(splits.train))


def all_layers_encoder(
    contextual: str | None,
    pooling: str,
    cache_dir: str | None,
    device: str | None,
    pair_encoding: str | None = None,
) -> Any:
    """The contextual embedding read as a mix, so its features keep every layer (one encoder pass);
    a pair task's texts read as ``pair_encoding`` says (its own feature cache entry). ``None``: the
    embedding's default. Used by the layer sweep and by ``advisor contextuality``."""
    from advisor.embeddings import make_embedding

    options: dict[str, Any] = {"layer": "mix", "pooling": pooling}
    for key, value in (
        ("model", contextual),
        ("cache_dir", cache_dir),
        ("device", device),
        ("pair_encoding", pair_encoding),
    ):
        if value:
            options[key] = str(value)
    return make_embedding("contextual", **options)


def _sweep_one_seed(
    splits: DataSplits,
    features: tuple[Any, ...],
    config: dict[str, Any],
    size: int,
    seed: int,
    say: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every single layer, then the mix, on one seed's subset: each layer sees the same items."""
    from trainers import TaskScoring, TrainConfig, fit_and_evaluate

    train, dev, test = features
    scoring = TaskScoring(splits.task, primary_metric(splits.task))  # the headline of the task spec
    idx = subset_indices(subset_order(splits.train, seed), size)
    corpus_seed = splits.train.subset(idx)  # its features: rows of ``train`` read per batch, no copy
    rows, weights = [], []
    for layer in [str(i) for i in range(train.n_layers)] + ["mix"]:
        started = time.perf_counter()
        pick = (lambda f: f) if layer == "mix" else (lambda f, i=int(layer): f.layer(i))
        result = fit_and_evaluate(
            pick(train),
            corpus_seed,
            pick(dev),
            splits.dev,
            pick(test),
            splits.test,
            TrainConfig(**config, seed=seed),
            train_items=idx,
            scoring=scoring,
        )
        rows.append(
            {
                "layer": layer,
                "seed": seed,
                "size": size,
                "dev_score": result.dev_score,
                "test_score": result.score,
                "steps": result.steps,
                "under_trained": result.under_trained,
                "train_seconds": result.train_seconds,
            }
        )
        weights += [{"seed": seed, "layer": i, "weight": w} for i, w in enumerate(result.layer_weights)]
        say(f"layer {layer}, seed {seed}: dev {result.dev_score:.3f} ({time.perf_counter() - started:.0f} s)")
    return rows, weights
