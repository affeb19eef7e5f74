"""Score gaps with intervals over seeds, and the data-efficiency ratio, on hand-computed cases
(how each result reads is in ``test_phrases.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from advisor.verdict import analysis_from_scores, curve_summary, data_efficiency, matching_size, score_gap

SIZES = (100, 200, 400, 800)


def test_matching_size_interpolates_on_log_size() -> None:
    # 0.65 lies halfway between 0.6 (200 items) and 0.7 (400 items): the geometric mean of 200 and 400.
    size, status = matching_size(np.array(SIZES), np.array([0.5, 0.6, 0.7, 0.8]), 0.65)
    assert status == "matches"
    assert size == pytest.approx(math.sqrt(200 * 400))


def test_matching_size_needs_the_curve_to_stay_above_the_target() -> None:
    # 200 items reach 0.7 but 400 dip to 0.6; the run that stays above starts between 400 and 800,
    # a quarter of the way up (0.65 of 0.6 -> 0.8) on the log axis.
    size, status = matching_size(np.array(SIZES), np.array([0.5, 0.7, 0.6, 0.8]), 0.65)
    assert status == "matches"
    assert size == pytest.approx(400 * 2**0.25)


def test_matching_size_bound_and_never() -> None:
    assert matching_size(np.array(SIZES), np.array([0.7, 0.75, 0.8, 0.85]), 0.65) == (100.0, "bound")
    size, status = matching_size(np.array(SIZES), np.array([0.5, 0.55, 0.6, 0.62]), 0.65)
    assert status == "never" and math.isinf(size)


def _efficiency_run(contextual_means: list[float], static_full: list[float]):
    offsets = (-0.01, 0.0, 0.01)  # per-seed noise that averages out exactly
    scores = {
        "contextual": {n: [m + o for o in offsets] for n, m in zip(SIZES, contextual_means, strict=True)},
        "static": {n: [0.4 + o for o in offsets] for n in SIZES[:-1]} | {SIZES[-1]: static_full},
    }
    return analysis_from_scores(scores)


def test_data_efficiency_hand_made_curve() -> None:
    analysis = _efficiency_run([0.5, 0.6, 0.7, 0.8], [0.64, 0.65, 0.66])
    eff = data_efficiency(analysis, "contextual", "static", n_boot=500)
    assert eff.status == "matches"
    assert eff.target == pytest.approx(0.65)
    assert eff.size_needed == pytest.approx(math.sqrt(200 * 400))
    assert eff.ratio == pytest.approx(800 / math.sqrt(200 * 400))  # 2.83: "needs 1/2.8 of the data"
    assert eff.ratio_lo <= eff.ratio <= eff.ratio_hi


def test_matching_at_the_smallest_size_is_censored_never_a_point_interval() -> None:
    analysis = _efficiency_run([0.7, 0.75, 0.8, 0.85], [0.64, 0.65, 0.66])
    eff = data_efficiency(analysis, "contextual", "static", n_boot=200)
    assert eff.status == "bound" and eff.censored and eff.to_dict()["censored"] is True
    assert eff.ratio == pytest.approx(8.0) and eff.ratio_lo == eff.ratio_hi == pytest.approx(8.0)
    assert eff.at_edge(eff.ratio_lo) and eff.at_edge(eff.ratio_hi)  # both ends censored: no interval
    assert eff.share_bound == pytest.approx(1.0) and eff.size_needed == 100


def test_an_interval_end_at_the_smallest_size_is_worded_open() -> None:
    """Contextual matches between 100 and 200 items, but resamples of the seed that scored 0.70 at 100
    items match already there: the interval's upper end is censored, not 1/8.0."""
    scores = {
        "contextual": {100: [0.55, 0.62, 0.70], 200: [0.70, 0.72, 0.74], 400: [0.8] * 3, 800: [0.85] * 3},
        "static": {size: [0.64, 0.65, 0.66] for size in SIZES},
    }
    eff = data_efficiency(analysis_from_scores(scores), "contextual", "static", n_boot=2000)
    assert eff.status == "matches" and not eff.censored
    assert eff.at_edge(eff.ratio_hi) and not eff.at_edge(eff.ratio_lo) and 0 < eff.share_bound < 1
    assert 0 < eff.ratio_lo < 8.0


def test_matching_inside_the_grid_is_not_censored() -> None:
    eff = data_efficiency(_efficiency_run([0.5, 0.6, 0.7, 0.8], [0.64, 0.65, 0.66]), n_boot=200)
    assert not eff.censored and eff.to_dict()["censored"] is False and not eff.at_edge(eff.ratio_hi)


def test_data_efficiency_never_matches() -> None:
    analysis = _efficiency_run([0.5, 0.55, 0.6, 0.62], [0.64, 0.65, 0.66])
    eff = data_efficiency(analysis, "contextual", "static", n_boot=200)
    assert eff.status == "never" and eff.ratio == 0.0
    assert eff.share_never == pytest.approx(1.0) and math.isinf(eff.size_needed)


def test_data_efficiency_interval_narrows_with_less_seed_noise() -> None:
    def run(noise: float):
        rng = np.random.default_rng(1)
        scores = {
            "contextual": {
                n: list(m + rng.normal(0, noise, 5)) for n, m in zip(SIZES, [0.5, 0.6, 0.7, 0.8], strict=True)
            },
            "static": {n: list(0.65 + rng.normal(0, noise, 5)) for n in SIZES},
        }
        eff = data_efficiency(analysis_from_scores(scores), n_boot=1000)
        return eff.ratio_hi - eff.ratio_lo

    assert run(0.002) < run(0.02)


def test_paired_gap_interval_is_the_t_interval_of_seed_differences() -> None:
    analysis = analysis_from_scores(
        {"contextual": {800: [0.80, 0.82, 0.84]}, "static": {800: [0.70, 0.71, 0.75]}}
    )
    gap = score_gap(analysis, "contextual", "static")
    diffs = np.array([0.10, 0.11, 0.09])
    half = stats.t.ppf(0.975, 2) * diffs.std(ddof=1) / math.sqrt(3)
    assert gap.method.startswith("paired")
    assert gap.gap == pytest.approx(0.10)
    assert (gap.lo, gap.hi) == pytest.approx((0.10 - half, 0.10 + half))


def test_unpaired_seeds_use_welch_and_one_seed_gives_no_interval() -> None:
    partly_shared = analysis_from_scores(
        {"contextual": {800: [0.80, 0.82, 0.84]}, "static": {800: [0.70, 0.72, math.nan, math.nan]}},
    )
    analysis = analysis_from_scores(
        {"contextual": {800: [0.8, 0.82]}, "static": {800: [math.nan, math.nan, 0.7, 0.72]}}
    )
    assert score_gap(analysis, "contextual", "static").method.startswith("Welch")
    assert score_gap(partly_shared, "contextual", "static").method.startswith(
        "paired"
    )  # seeds 0 and 1 are shared
    single = analysis_from_scores({"contextual": {800: [0.8]}, "static": {800: [0.7]}})
    gap = score_gap(single, "contextual", "static")
    assert not gap.has_interval and gap.gap == pytest.approx(0.1)


def test_curve_summary_bands_contain_the_mean() -> None:
    analysis = _efficiency_run([0.5, 0.6, 0.7, 0.8], [0.64, 0.65, 0.66])
    summary = curve_summary(analysis)
    assert set(summary["embedding"]) == {"contextual", "static"}
    assert (summary["lo"] <= summary["mean"]).all() and (summary["mean"] <= summary["hi"]).all()
    row = summary[(summary["embedding"] == "contextual") & (summary["size"] == 400)].iloc[0]
    assert row["mean"] == pytest.approx(0.7) and row["n_seeds"] == 3 and row["fraction"] == pytest.approx(0.5)
