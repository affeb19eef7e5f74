"""Figures are built from computed results and show what they claim (bands, log axis, markers)."""

from __future__ import annotations

from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from advisor.plots import (
    plot_costs,
    plot_data_efficiency,
    plot_difficulty_gaps,
    plot_extrapolation,
    plot_learning_curves,
)
from advisor.verdict import Thresholds, analysis_from_scores, make_synthetic_analysis, recommend


def test_learning_curves_have_a_band_per_embedding_on_a_log_axis() -> None:
    analysis = make_synthetic_analysis(slice_effects={})
    rec = recommend(analysis, Thresholds(n_boot=100))
    fig = plot_learning_curves(analysis, rec.fits)
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    assert ax.get_xscale() == "log"
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["random (n=3)", "static (n=3)", "contextual (n=3)"]
    assert len(ax.lines) == 6  # mean line + dashed fit per embedding


def test_single_seed_curves_draw_without_bands() -> None:
    analysis = analysis_from_scores(
        {"contextual": {100: [0.5], 800: [0.8]}, "static": {100: [0.4], 800: [0.6]}}
    )
    ax = plot_learning_curves(analysis).axes[0]
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(ax.lines) == 2


def test_data_efficiency_marks_the_matching_size() -> None:
    rec = recommend(make_synthetic_analysis(slice_effects={}), Thresholds(n_boot=100))
    ax = plot_data_efficiency(rec.efficiency).axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("contextual needs 1/") for t in texts)
    static = rec.efficiency[0]
    markers = [line for line in ax.lines if list(line.get_xdata()) == [static.size_needed]]
    assert markers and list(markers[0].get_ydata()) == [static.target]


def test_extrapolation_and_costs_figures() -> None:
    rec = recommend(make_synthetic_analysis(slice_effects={}), Thresholds(n_boot=100))
    ax = plot_extrapolation(rec.fits, rec.extrapolations).axes[0]
    assert ax.get_xlim()[1] >= 4 * rec.full_size  # fits drawn over the extrapolated range
    costs = plot_costs(rec.costs)
    assert len(costs.axes) == 4
    assert [t.get_text() for t in costs.axes[0].get_yticklabels()] == ["random", "static", "contextual"]


def test_difficulty_gaps_without_slices_is_none() -> None:
    assert plot_difficulty_gaps(None) is None
