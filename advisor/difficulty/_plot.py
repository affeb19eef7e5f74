"""Figures of the gap analysis (drawing only; the numbers come from :func:`gap_analysis`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from advisor._error_codes import E540, E541
from advisor.difficulty._gaps import GAP_COLUMNS, PAIRS, SLICES
from advisor.difficulty._partition import metric_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_gaps"]

_PAIR_COLOURS = {"contextual-static": "#1f77b4", "contextual-random": "#d62728", "static-random": "#2ca02c"}


def plot_gaps(gaps: pd.DataFrame, size: int | None = None, all_sizes: bool = False) -> Figure:
    """Gaps per slice with bootstrap CI bars, one panel per metric.

    Default: bars at ``size`` (the largest size when omitted), grouped by slice, one bar per pair.
    ``all_sizes=True``: the gap on the difficult and easy slice against training size instead.
    """
    from matplotlib.figure import Figure  # imported here: the CLI should not pay for matplotlib

    missing = [c for c in GAP_COLUMNS if c not in gaps.columns and c != "p_value"]  # p_value: newer runs
    if missing:
        raise E540(columns=", ".join(missing))
    if gaps.empty:
        raise E541()
    metric_names = list(dict.fromkeys(gaps["metric"]))
    pairs = [f"{a}-{b}" for a, b in PAIRS if f"{a}-{b}" in set(gaps["pair"])]
    figure = Figure(figsize=(4.2 * len(metric_names), 3.6), layout="constrained")
    axes = figure.subplots(1, len(metric_names), squeeze=False)[0]
    chosen = int(gaps["size"].max()) if size is None else int(size)
    for axis, name in zip(axes, metric_names, strict=True):
        rows = gaps[gaps["metric"] == name]
        if all_sizes:
            _draw_over_sizes(axis, rows, pairs)
        else:
            _draw_bars(axis, rows[rows["size"] == chosen], pairs)
        axis.axhline(0.0, color="0.4", linewidth=0.8)
        axis.set_title(metric_label(name), wrap=True)
        axis.set_ylabel("score gap a − b (pts)")  # points, as the verdict states gaps
    figure.suptitle("Embedding gap on difficult vs easy items" + ("" if all_sizes else f" (size {chosen:,})"))
    return figure


def _draw_bars(axis, rows: pd.DataFrame, pairs: list[str]) -> None:
    width = 0.8 / max(len(pairs), 1)
    positions = np.arange(len(SLICES))
    for k, pair in enumerate(pairs):
        part = rows[rows["pair"] == pair].set_index("slice").reindex(list(SLICES))
        gap = 100 * np.clip(part["gap"].to_numpy(dtype=float), -1.0, 1.0)  # a score gap lies in [-1, 1]
        lo = 100 * np.clip(part["gap_lo"].to_numpy(float), -1.0, 1.0)
        hi = 100 * np.clip(part["gap_hi"].to_numpy(float), -1.0, 1.0)
        errors = np.clip(np.vstack([gap - lo, hi - gap]), 0.0, None)
        axis.bar(positions + (k - (len(pairs) - 1) / 2) * width, gap, width, yerr=np.nan_to_num(errors),
                 capsize=3, label=pair, color=_PAIR_COLOURS.get(pair))  # fmt: skip
    sizes = rows[rows["slice"] != SLICES[2]].drop_duplicates("slice").set_index("slice")["n_items"]
    axis.set_xticks(
        positions, [f"{s}\n(n={int(sizes.get(s, 0)):,})" if s in sizes else s for s in SLICES], fontsize=8
    )
    axis.legend(fontsize=7)


def _draw_over_sizes(axis, rows: pd.DataFrame, pairs: list[str]) -> None:
    for pair in pairs:
        for slice_name, style in ((SLICES[0], "-"), (SLICES[1], "--")):
            part = rows[(rows["pair"] == pair) & (rows["slice"] == slice_name)].sort_values("size")
            if part.empty:
                continue
            colour = _PAIR_COLOURS.get(pair)
            axis.plot(
                part["size"], 100 * part["gap"], style, marker="o", color=colour, label=f"{pair} {slice_name}"
            )
            low, high = 100 * np.clip(part["gap_lo"], -1.0, 1.0), 100 * np.clip(part["gap_hi"], -1.0, 1.0)
            axis.fill_between(part["size"], low, high, color=colour, alpha=0.12)
    axis.set_xscale("log")
    axis.set_xlabel("training items")
    axis.legend(fontsize=6)
