"""Figures read as plain numbers and keep their words inside the plot (issue 29): no overlapping log-axis
labels, no 10^x or 1.12e+03, no label outside the axes, and a peak memory under 1 MB said, not drawn as 0."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from advisor.plots import plot_costs, plot_data_efficiency, plot_difficulty_gaps, plot_extrapolation
from advisor.verdict import COST_COLUMNS, CostComparison, Thresholds, make_synthetic_analysis, recommend


def _drawn(fig: Figure) -> object:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _tick_labels(ax, renderer) -> list:
    """The x tick labels that are drawn with text, major and minor."""
    ticks = ax.xaxis.get_major_ticks() + ax.xaxis.get_minor_ticks()
    locs = list(ax.xaxis.get_majorticklocs()) + list(ax.xaxis.get_minorticklocs())
    low, high = sorted(ax.get_xlim())
    return [
        tick.label1
        for tick, loc in zip(ticks, locs, strict=False)
        if tick.label1.get_visible() and tick.label1.get_text() and low <= loc <= high
    ]


def _costs(latency: list[float], memory: list[float], train: list[float]) -> CostComparison:
    columns = [c for c, _, _ in COST_COLUMNS] + ["items_per_s", "epochs"]
    table = pd.DataFrame(np.nan, index=["random", "static", "contextual"], columns=columns)
    table["latency_ms_per_item"] = latency
    table["peak_memory_mb"] = memory
    table["train_seconds"] = train
    table["embedding_mb"] = [0.3, 900.0, 90.0]
    return CostComparison(table=table, ratios=pd.DataFrame(), size=9001)


@pytest.mark.parametrize(
    "latency",
    [[2.5, 2.7, 56.5], [1.1, 1.3, 1.9], [0.02, 0.05, 3_000.0], [0.7, 0.9, 30.0]],
    ids=["1.4 decades (the news run)", "within a decade", "five decades", "crossing 1"],
)
def test_cost_axes_labels_never_overlap_and_read_as_plain_numbers(latency: list[float]) -> None:
    fig = plot_costs(_costs(latency, [12.0, np.nan, 800.0], [300.0, 1120.0, 2400.0]))
    renderer = _drawn(fig)
    for ax in fig.axes:
        labels = _tick_labels(ax, renderer)
        assert labels, ax.get_title()
        boxes = [label.get_window_extent(renderer) for label in labels]
        for (a, la), (b, lb) in itertools.combinations(zip(boxes, labels, strict=True), 2):
            assert not a.overlaps(b), (ax.get_title(), la.get_text(), lb.get_text())
        texts = [label.get_text() for label in labels] + [t.get_text() for t in ax.texts]
        assert not [t for t in texts if "e+" in t or "e-" in t or "10^" in t or "times" in t], texts


def test_cost_bars_use_thousands_separators_and_say_when_memory_is_below_1_mb() -> None:
    fig = plot_costs(_costs([2.5, 2.7, 56.5], [12.0, np.nan, 800.0], [300.0, 1120.0, 2400.0]))
    texts = {ax.get_title(loc="left").split(" [")[0]: [t.get_text() for t in ax.texts] for ax in fig.axes}
    assert texts["training time (largest size)"] == ["300", "1,120", "2,400"]
    assert texts["training peak memory (process)"] == ["12", "< 1 MB (not resolved)", "800"]


def _inside(fig: Figure) -> list[str]:
    """The texts drawn on an axes whose box leaves that axes (1 pixel of tolerance)."""
    renderer = _drawn(fig)
    outside = []
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            if (
                box.x0 < frame.x0 - 1
                or box.x1 > frame.x1 + 1
                or box.y0 < frame.y0 - 1
                or box.y1 > frame.y1 + 1
            ):
                outside.append(text.get_text())
    return outside


@pytest.fixture(scope="module")
def synthetic_rec():
    return recommend(make_synthetic_analysis(slice_effects={}), Thresholds(n_boot=100))


def test_data_efficiency_labels_stay_inside_the_axes(synthetic_rec) -> None:
    """Random is matched at the smallest size tried: its label used to hang off the axes' left edge."""
    fig = plot_data_efficiency(synthetic_rec.efficiency)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 2 and all(t.startswith("contextual needs ") for t in texts)
    assert _inside(fig) == []
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "static with all 1,600 items" in legend


def test_extrapolation_target_label_stays_inside_the_axes(synthetic_rec) -> None:
    few_sizes = recommend(
        make_synthetic_analysis(full_size=40, n_sizes=2, slice_effects={}), Thresholds(n_boot=100)
    )
    for rec in (synthetic_rec, few_sizes):
        fig = plot_extrapolation(rec.fits, rec.extrapolations, rec.thresholds.max_extrapolation)
        assert [t.get_text() for t in fig.axes[0].texts] == [
            "target: contextual full-data score − acceptable loss"
        ]
        assert _inside(fig) == []
        labels = [t.get_text() for t in _tick_labels(fig.axes[0], _drawn(fig))]
        assert not [t for t in labels if "10^" in t or "$" in t], labels


def test_difficulty_gap_figure_is_in_points_as_the_verdict() -> None:
    slices = make_synthetic_analysis().slices
    fig = plot_difficulty_gaps(slices)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "score gap a − b (pts)"
    at = slices[(slices["metric"] == ax.get_title()) & (slices["size"] == slices["size"].max())]
    heights = [p.get_height() for p in ax.patches if np.isfinite(p.get_height())]
    assert max(abs(h) for h in heights) == pytest.approx(100 * at["gap"].abs().max())
    assert "(size 1,600)" in fig.get_suptitle()
