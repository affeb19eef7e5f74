"""Figures of the contextuality table, the layer sweep and the learned mix weights (computed results in, Figure out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn: the verdict imports this package
    from matplotlib.figure import Figure

__all__ = ["plot_contextuality", "plot_layer_sweep", "plot_mix_weights"]

_MEASURES = (
    ("self_similarity", "self-similarity"),
    ("intra_similarity", "intra-sentence similarity"),
    ("mev", "max. explainable variance"),
)


def plot_contextuality(table: pd.DataFrame) -> Figure:
    """Three panels (self-similarity, intra-sentence similarity, MEV) by layer: raw, baseline, adjusted."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.4))
    axes = fig.subplots(1, 3, sharex=True)
    layers = table["layer"].to_numpy()
    for ax, (column, title) in zip(axes, _MEASURES, strict=True):
        baseline = table["mev_baseline"] if column == "mev" else table["anisotropy"]
        ax.plot(layers, table[column], marker="o", label="raw")
        ax.plot(layers, baseline, linestyle=":", color="#8c8c8c", label="baseline")
        ax.plot(
            layers,
            table[f"{column}_adjusted" if column != "mev" else "mev_adjusted"],
            marker="s",
            label="raw − baseline",
        )
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("layer (0 = input embeddings)")
        ax.set_xticks(layers)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("cosine / share of variance")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_layer_sweep(table: pd.DataFrame, metric: str = "dev score") -> Figure:
    """Dev score of each single layer (mean and seeds) with the scalar mix as a horizontal band."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 3.6))
    ax = fig.subplots()
    single = table[table["layer"] != "mix"].copy()
    single["layer_index"] = single["layer"].astype(int)
    means = single.groupby("layer_index")["dev_score"].mean()
    ax.plot(means.index, means.to_numpy(), marker="o", label="single layer (mean)")
    ax.scatter(single["layer_index"], single["dev_score"], s=12, color="#1f77b4", alpha=0.5, label="seeds")
    mix = table.loc[table["layer"] == "mix", "dev_score"]
    if len(mix):
        ax.axhspan(float(mix.min()), float(mix.max()), color="#ff7f0e", alpha=0.2)
        ax.axhline(float(mix.mean()), color="#ff7f0e", label="scalar mix (mean, seed range)")
    ax.set_xticks(means.index)
    ax.set_xlabel("layer (0 = input embeddings)")
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_mix_weights(weights: pd.DataFrame) -> Figure:
    """Mean learned weight per layer (bars) at each training size: which layers the task used."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 3.4))
    ax = fig.subplots()
    pivot = weights.groupby(["size", "layer"])["weight"].mean().unstack("layer").sort_index()
    n_sizes = len(pivot)
    width = 0.8 / max(n_sizes, 1)
    for k, (size, row) in enumerate(pivot.iterrows()):
        ax.bar(
            np.asarray(row.index, float) + (k - (n_sizes - 1) / 2) * width,
            row.to_numpy(),
            width,
            label=f"{size:,}",
        )
    if len(pivot.columns):
        ax.axhline(1 / len(pivot.columns), color="#8c8c8c", linestyle=":", label="uniform")
    ax.set_xlabel("layer (0 = input embeddings)")
    ax.set_ylabel("softmax weight (mean over seeds)")
    ax.legend(title="training items", fontsize=7)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return fig
