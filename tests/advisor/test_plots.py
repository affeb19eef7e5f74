"""Figures are built from computed results and show what they claim (bands, log axis, markers), within the
possible range of the metric."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from advisor.plots import (
    plot_costs,
    plot_data_efficiency,
    plot_difficulty_gaps,
    plot_extrapolation,
    plot_learning_curves,
)
from advisor.verdict import (
    Thresholds,
    analysis_from_scores,
    curve_summary,
    make_synthetic_analysis,
    recommend,
)


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


def test_a_family_measured_at_one_size_gets_its_interval_as_an_error_bar() -> None:
    """A run stopped settled trains contextual at the largest size only: a one-point band draws nothing,
    so its interval is an error bar from the same summary, and the legend keeps off the data."""
    analysis = analysis_from_scores(
        {
            "static": {100: [0.40, 0.42, 0.41], 800: [0.60, 0.63, 0.61]},
            "contextual": {800: [0.80, 0.84, 0.82]},
        }
    )
    ax = plot_learning_curves(analysis).axes[0]
    row = curve_summary(analysis, 0.95).query("embedding == 'contextual'").iloc[0]
    bars = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(bars) == 1
    [[(x_lo, y_lo), (x_hi, y_hi)]] = bars[0].get_segments()
    assert x_lo == x_hi == 800
    assert np.isclose(y_lo, row["lo"]) and np.isclose(y_hi, min(row["hi"], 1.0))
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 1  # static's band
    assert ax.get_legend()._loc == 0  # "best": matplotlib places it where it covers the fewest points


def test_data_efficiency_marks_the_matching_size() -> None:
    rec = recommend(make_synthetic_analysis(slice_effects={}), Thresholds(n_boot=100))
    ax = plot_data_efficiency(rec.efficiency).axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("contextual needs 1/") for t in texts)
    static = rec.efficiency[0]
    markers = [line for line in ax.lines if list(line.get_xdata()) == [static.size_needed]]
    assert markers and list(markers[0].get_ydata()) == [static.target]


def test_a_censored_matching_size_is_labelled_censored() -> None:
    scores = {
        "contextual": {n: [m - 0.01, m + 0.01] for n, m in ((100, 0.7), (200, 0.75), (800, 0.8))},
        "static": {n: [m - 0.01, m + 0.01] for n, m in ((100, 0.5), (200, 0.55), (800, 0.6))},
    }
    rec = recommend(analysis_from_scores(scores), Thresholds(n_boot=100))
    texts = [t.get_text() for t in plot_data_efficiency(rec.efficiency).axes[0].texts]
    assert texts == ["contextual needs ≤ 1/8.0 (censored)"]


def test_extrapolation_and_costs_figures() -> None:
    rec = recommend(make_synthetic_analysis(slice_effects={}), Thresholds(n_boot=100))
    ax = plot_extrapolation(rec.fits, rec.extrapolations).axes[0]
    assert ax.get_xlim()[1] >= 4 * rec.full_size  # fits drawn over the extrapolated range
    costs = plot_costs(rec.costs)
    assert len(costs.axes) == 4
    assert [t.get_text() for t in costs.axes[0].get_yticklabels()] == ["random", "static", "contextual"]


def test_difficulty_gaps_without_slices_is_none() -> None:
    assert plot_difficulty_gaps(None) is None


def _plotted_y(fig: Figure) -> np.ndarray:
    """Every y value a figure draws: lines, filled bands, error bars and bar tops (axis lines excluded)."""
    values: list[float] = []
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_transform() != ax.transData:  # axhline/axvline live in axes coordinates
                continue
            values += [float(v) for v in np.asarray(line.get_ydata(), dtype=float)]
        for collection in ax.collections:
            if isinstance(collection, PolyCollection):
                for path in collection.get_paths():
                    values += list(path.vertices[:, 1])
            elif isinstance(collection, LineCollection):
                for segment in collection.get_segments():
                    values += list(np.asarray(segment)[:, 1])
        for patch in ax.patches:
            if isinstance(patch, Rectangle) and patch.get_transform() == ax.transData:
                values += [patch.get_y(), patch.get_y() + patch.get_height()]
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]


def test_every_figure_of_a_run_with_wide_intervals_stays_in_range() -> None:
    # Two noisy seeds near both ends of the scale: t-bands and fits would leave [0, 1] unclipped.
    analysis = make_synthetic_analysis(
        seeds=(0, 1),
        noise=0.12,
        curves={"random": (0.08, 0.5, 0.3), "static": (0.6, 2.0, 0.4), "contextual": (1.05, 1.2, 0.35)},
    )
    rec = recommend(analysis, Thresholds(n_boot=100))
    summary = curve_summary(analysis, 0.95)
    assert (summary["lo"] < 0).any() and (summary["hi"] > 1).any()  # the raw intervals do leave [0, 1]
    score_figures = {
        "learning curves": plot_learning_curves(analysis, rec.fits),
        "data efficiency": plot_data_efficiency(rec.efficiency),
        "extrapolation": plot_extrapolation(rec.fits, rec.extrapolations, 4.0),
    }
    for name, fig in score_figures.items():
        y = _plotted_y(fig)
        assert len(y) and y.min() >= 0.0 and y.max() <= 1.0, (name, y.min(), y.max())
        low, high = fig.axes[0].get_ylim()
        assert low >= 0.0 and high <= 1.0, name
    gaps = plot_difficulty_gaps(analysis.slices)
    y = _plotted_y(gaps)
    assert len(y) and y.min() >= -100.0 and y.max() <= 100.0  # a gap in points lies in [-100, 100]


def test_extrapolation_draws_beyond_the_data_only_for_reliable_fits() -> None:
    rec = recommend(make_synthetic_analysis(seeds=(0, 1), noise=0.12), Thresholds(n_boot=100))
    ax = plot_extrapolation(rec.fits, rec.extrapolations, 4.0).axes[0]
    reliable = {x.embedding for x in rec.extrapolations if x.reliable}
    for name, fit in rec.fits.items():
        if fit.best is None:
            continue
        fitted = [line for line in ax.lines if line.get_label().startswith(f"{name}: ")]
        assert len(fitted) == 1
        end = max(fitted[0].get_xdata())
        assert (end > max(fit.sizes) * 1.01) == (name in reliable), (name, end, reliable)
