"""Matplotlib figures of a run and of its verdict; every function takes computed results only.

Figures are built with :class:`matplotlib.figure.Figure` directly (the Agg canvas, no pyplot): no
global backend state, safe in servers, threads, MLflow ``log_figure`` and ``st.pyplot``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from advisor.analysis import Analysis
from advisor.verdict import (
    COST_COLUMNS,
    MIN_MEASURABLE_MB,
    CostComparison,
    DataEfficiency,
    Extrapolation,
    LearningCurveFit,
    curve_summary,
    readable_number,
)
from advisor.vocabulary import FAMILIES, ordered

__all__ = [
    "OTHER_COLOR",
    "embedding_colors",
    "plot_costs",
    "plot_data_efficiency",
    "plot_difficulty_gaps",
    "plot_extrapolation",
    "plot_learning_curves",
]

#: The colour of a name that is no registered family.
OTHER_COLOR = "#17becf"


def embedding_colors() -> dict[str, str]:
    """One colour per registered family, the same in every figure (each family declares its own)."""
    return {name: declared.colour for name, declared in FAMILIES.items()}


def _color(name: str) -> str:
    return FAMILIES[name].colour if name in FAMILIES else OTHER_COLOR


def _unit(values: Any) -> np.ndarray:
    """Scores clipped to [0, 1]: a t-band or a fitted curve must not promise an F1 of 1.25 or −0.1."""
    return np.clip(np.asarray(values, dtype=float), 0.0, 1.0)


def _score_axis(ax: Any) -> None:
    """Keep the score axis inside [0, 1] (autoscaling adds margins beyond the possible range)."""
    low, high = ax.get_ylim()
    ax.set_ylim(max(low, 0.0), min(high, 1.0))


def _metric_label(analysis_metric: str) -> str:
    return {"f1": "entity micro-F1 (strict IOB2)", "accuracy": "accuracy"}.get(
        analysis_metric, analysis_metric
    )


def plot_learning_curves(
    analysis: Analysis, fits: Mapping[str, LearningCurveFit] | None = None, confidence: float = 0.95
) -> Figure:
    """Mean score per size with a ``confidence`` t-band over seeds per embedding, on a log size axis.

    With ``fits`` the chosen learning-curve fit of each embedding is drawn dashed over the data range.
    """
    summary = curve_summary(analysis, confidence)
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for name in analysis.embedding_names:
        rows = summary[summary["embedding"] == name].sort_values("size")
        color = _color(name)
        ax.plot(
            rows["size"], rows["mean"], marker="o", color=color, label=f"{name} (n={rows['n_seeds'].max()})"
        )
        _draw_interval(ax, rows.dropna(subset=["lo", "hi"]), color)
        fit = (fits or {}).get(name)
        if fit is not None and fit.best is not None and len(rows) > 1:
            grid = np.geomspace(rows["size"].min(), rows["size"].max(), 100)
            ax.plot(grid, _unit(fit.best.predict(grid)), linestyle="--", color=color, linewidth=1, alpha=0.8)
    ax.set_xscale("log")
    sizes = analysis.sizes
    if sizes:
        ax.set_xticks(sizes, [f"{s:,}" for s in sizes])
        ax.minorticks_off()
    ax.set_xlabel("training items (log scale)")
    ax.set_ylabel(_metric_label(analysis.primary_metric))
    ax.set_title(f"Learning curves: mean and {confidence:.0%} CI over seeds")
    _score_axis(ax)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best")  # not over the data: a near-zero family sits where "lower right" was
    return fig


def _draw_interval(ax: Any, band: pd.DataFrame, color: str) -> None:
    """The seeds' interval per size: a band along the curve, or an error bar where the family has one
    size only (a run stopped settled trains contextual at the largest size alone; a band of one point
    draws nothing, and the title promises an interval)."""
    if len(band) == 1:
        mean, lo, hi = (float(_unit(band[k]).item()) for k in ("mean", "lo", "hi"))
        yerr = [[max(mean - lo, 0.0)], [max(hi - mean, 0.0)]]
        ax.errorbar(band["size"], [mean], yerr=yerr, color=color, capsize=4, linestyle="none")
    elif len(band):
        ax.fill_between(
            band["size"], _unit(band["lo"]), _unit(band["hi"]), color=color, alpha=0.2, linewidth=0
        )


def _label_place(x: float, y: float, xs: Sequence[float], ys: Sequence[float]) -> dict[str, Any]:
    """Where a point's label goes so it stays inside the axes: beside the point on the side with more
    room (log x), below it when the point sits near the top."""
    lo, hi = min(xs), max(xs)
    x_share = math.log(x / lo) / math.log(hi / lo) if hi > lo > 0 and x > 0 else 0.5
    y_lo, y_hi = min(ys), max(ys)
    y_share = (y - y_lo) / (y_hi - y_lo) if y_hi > y_lo else 0.5
    dx = 8 if x_share < 0.5 else -8
    dy = -8 if y_share > 0.8 else 6
    return {
        "textcoords": "offset points",
        "xytext": (dx, dy),
        "ha": "left" if dx > 0 else "right",
        "va": "top" if dy < 0 else "bottom",
    }


def _draw_match(ax: Any, eff: DataEfficiency, xs: Sequence[float], ys: Sequence[float]) -> None:
    """A baseline's target line, and where contextual matches it (with the interval) or that it never does."""
    color = _color(eff.baseline)
    ax.axhline(
        eff.target, color=color, linestyle=":", label=f"{eff.baseline} with all {eff.full_size:,} items"
    )
    if math.isfinite(eff.size_needed) and eff.status in ("matches", "bound"):
        if math.isfinite(eff.ratio_lo) and math.isfinite(eff.ratio_hi) and eff.ratio_lo > 0:
            left = eff.full_size / eff.ratio_hi
            right = eff.full_size / eff.ratio_lo
            ax.plot([left, right], [eff.target, eff.target], color=color, linewidth=6, alpha=0.3)
        marker = "<" if eff.censored else "D"  # censored: the true size lies further left
        ax.plot([eff.size_needed], [eff.target], marker=marker, color=color, markersize=9, linestyle="none")
        needs = f"≤ 1/{eff.ratio:.1f} (censored)" if eff.censored else f"1/{eff.ratio:.1f}"
        place = _label_place(eff.size_needed, eff.target, xs, ys)
        ax.annotate(f"{eff.embedding} needs {needs}", (eff.size_needed, eff.target), color=color, **place)
    elif eff.status == "never":
        place = _label_place(eff.full_size, eff.target, xs, ys)
        ax.annotate(f"never matches {eff.baseline}", (eff.full_size, eff.target), color=color, **place)


def plot_data_efficiency(efficiency: Sequence[DataEfficiency]) -> Figure:
    """Contextual's mean curve against each baseline's full-data score, with the matching size and its CI."""
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    drawn = [e for e in efficiency if math.isfinite(e.target)]
    xs = [float(v) for e in efficiency for v in (*e.sizes, e.full_size) if v and v > 0]
    xs += [e.size_needed for e in drawn if math.isfinite(e.size_needed) and e.size_needed > 0]
    ys = [float(v) for e in efficiency for v in e.curve if math.isfinite(v)] + [e.target for e in drawn]
    curve = next((e for e in efficiency if e.sizes), None)
    if curve is not None:
        ax.plot(
            curve.sizes,
            curve.curve,
            marker="o",
            color=_color(curve.embedding),
            label=f"{curve.embedding} (mean)",
        )
    for eff in drawn:
        _draw_match(ax, eff, xs or [1.0], ys or [0.0])
    ax.set_xscale("log")
    _readable_log_axis(ax.xaxis)
    ax.set_xlabel("training items (log scale)")
    ax.set_ylabel("score")
    ax.set_title("Data efficiency: where contextual matches full-data baselines")
    _score_axis(ax)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right")
    return fig


def _draw_fit(ax: Any, name: str, fit: LearningCurveFit, trusted: bool, right: float) -> None:
    """Observed means as points; the fitted curve, extended to ``right`` only when its extrapolation is trusted."""
    color = _color(name)
    if fit.sizes:
        ax.plot(
            fit.sizes,
            fit.mean_scores,
            marker="o",
            linestyle="none",
            color=color,
            label=f"{name} (observed)",
        )
    if fit.best is not None and fit.sizes:
        end = right if trusted else max(fit.sizes)
        grid = np.geomspace(min(fit.sizes), end, 200)
        label = f"{name}: {fit.best.model} fit" + ("" if trusted else " (not extrapolated: unreliable)")
        ax.plot(grid, _unit(fit.best.predict(grid)), color=color, linestyle="--", label=label)


def _draw_targets(ax: Any, extrapolations: Sequence[Extrapolation], largest: float, right: float) -> None:
    """The target score as a horizontal line; where a curve reaches it within view, a vertical line
    (dashed when unreliable)."""
    for x in extrapolations:
        if not math.isfinite(x.target):
            continue
        ax.axhline(x.target, color="black", linestyle=":", linewidth=1)
        if x.status == "extrapolated" and math.isfinite(x.items_needed) and x.items_needed <= right:
            style = "-" if x.reliable else (0, (2, 2))
            ax.axvline(x.items_needed, color=_color(x.embedding), linestyle=style, linewidth=1)
    targets = [x.target for x in extrapolations if math.isfinite(x.target)]
    if targets:
        low, high = ax.dataLim.intervaly  # what is drawn so far: the observed means and the target
        near_top = high > low and (targets[0] - low) / (high - low) > 0.8
        ax.annotate(  # pinned to the left edge: inside the axes however the sizes spread
            "target: contextual full-data score − acceptable loss",
            (0.01, targets[0]),
            xycoords=("axes fraction", "data"),
            textcoords="offset points",
            xytext=(2, -4 if near_top else 3),
            va="top" if near_top else "bottom",
            fontsize=8,
        )


def plot_extrapolation(
    fits: Mapping[str, LearningCurveFit], extrapolations: Sequence[Extrapolation], max_factor: float = 4.0
) -> Figure:
    """Observed means and fitted curves, extended to ``max_factor`` × the largest size only where trusted.

    A fit is drawn beyond the data only for an embedding whose extrapolation is reliable (good fit,
    passing backtest); otherwise it stops at the largest size trained on. Curves are clipped to [0, 1].
    """
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    largest = max((max(f.sizes) for f in fits.values() if f.sizes), default=1)
    right = largest * max_factor
    trusted = {x.embedding for x in extrapolations if x.reliable and x.status != "no fit"}
    for name, fit in fits.items():
        _draw_fit(ax, name, fit, name in trusted, right)
    _draw_targets(ax, extrapolations, largest, right)
    ax.axvspan(largest, right, color="grey", alpha=0.08)
    ax.set_xscale("log")
    _readable_log_axis(ax.xaxis)
    ax.set_xlabel("training items (log scale; shaded: extrapolated)")
    ax.set_ylabel("score")
    ax.set_title("Learning-curve extrapolation")
    ax.set_xlim(right=right * 1.05)
    _score_axis(ax)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right", fontsize=8)
    return fig


def _readable_log_axis(axis: Any) -> None:
    """A log axis labelled in plain numbers (100, 1,000, 0.01: no 10^x), with minor labels only where
    they cannot crowd: every one within 0.6 of a decade, 2× and 5× within 2.5 decades, none beyond."""

    def minor(value: float, _pos: Any) -> str:
        lo, hi = sorted(axis.get_view_interval())
        if lo <= 0 or value <= 0:
            return ""
        decades = math.log10(hi / lo)
        mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
        if abs(mantissa - round(mantissa)) > 1e-6 or decades > 2.5:
            return ""
        return readable_number(value) if decades <= 0.6 or round(mantissa) in (2, 5) else ""

    axis.set_major_formatter(FuncFormatter(lambda value, _pos: readable_number(value)))
    axis.set_minor_formatter(FuncFormatter(minor))


def _cost_label(column: str, value: float) -> str:
    """A bar's value label; a training peak memory under what sampling resolves says so instead of 0."""
    if pd.notna(value):
        return readable_number(value)
    return f"< {MIN_MEASURABLE_MB:g} MB (not resolved)" if column == "peak_memory_mb" else "not measured"


def plot_costs(costs: CostComparison) -> Figure:
    """Horizontal bars per embedding for the main costs (log scale: contextual is often 10-100× dearer)."""
    shown = [
        (col, label, unit)
        for col, label, unit in COST_COLUMNS
        if col in ("latency_ms_per_item", "train_seconds", "peak_memory_mb", "embedding_mb")
        and costs.table[col].notna().any()
    ]
    fig = Figure(figsize=(7.0, 1.2 + 1.4 * max(len(shown), 1)), layout="constrained")
    if not shown:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no cost measurements in this run", ha="center", va="center")
        ax.set_axis_off()
        return fig
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    names = ordered(costs.table.index)
    for ax, (col, label, unit) in zip(axes, shown, strict=True):
        values = costs.table.loc[names, col].astype(float)
        measured = values.dropna()
        logged = bool((measured > 0).all() and measured.max() / measured.min() > 20)
        ax.barh(names, values.fillna(0), color=[_color(n) for n in names])
        for y, value in enumerate(values):
            ax.annotate(  # a missing bar's label starts at the axis' left edge
                _cost_label(col, value),
                (value, y) if pd.notna(value) else (0, y),
                xycoords="data" if pd.notna(value) else ("axes fraction", "data"),
                textcoords="offset points",
                xytext=(3, -3),
                fontsize=8,
            )
        if logged:
            ax.set_xscale("log")
            _readable_log_axis(ax.xaxis)
        else:
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: readable_number(v)))
        ax.set_title(f"{label} [{unit}]", fontsize=9, loc="left")
        ax.margins(x=0.15)
    return fig


def plot_difficulty_gaps(slices: pd.DataFrame | None) -> Figure | None:
    """The difficulty module's gap figure when it is installed; None otherwise (render the table instead)."""
    if slices is None or slices.empty:
        return None
    try:
        from advisor.difficulty import plot_gaps
    except ImportError:
        return None
    return plot_gaps(slices)
