"""Learning-curve fits recover known parameters; extrapolations are honest about reach and reliability."""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor.verdict import extrapolate, fit_curve_points, fit_learning_curve, make_synthetic_analysis

SIZES = np.array([50, 100, 200, 400, 800, 1600, 3200], dtype=float)


def _points(a: float, b: float, c: float, noise: float = 0.0, seeds: int = 3, sizes=SIZES, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = np.repeat(sizes, seeds)
    return n, a - b * n ** (-c) + rng.normal(0, noise, len(n))


def test_power_law_parameters_are_recovered_exactly_without_noise() -> None:
    fit = fit_curve_points("static", *_points(0.9, 2.0, 0.5))
    assert fit.best is not None and fit.best.model == "pow3"
    assert fit.best.params["a"] == pytest.approx(0.9, rel=1e-3)
    assert fit.best.params["b"] == pytest.approx(2.0, rel=1e-2)
    assert fit.best.params["c"] == pytest.approx(0.5, rel=1e-3)
    assert fit.best.r2 == pytest.approx(1.0)


def test_power_law_parameters_are_recovered_with_seed_noise() -> None:
    fit = fit_curve_points("static", *_points(0.85, 3.0, 0.45, noise=0.002, seeds=5))
    assert fit.best.model == "pow3"
    assert fit.best.params["a"] == pytest.approx(0.85, abs=0.02)
    assert fit.best.params["c"] == pytest.approx(0.45, abs=0.1)
    assert fit.best.backtest_error < 0.01


def test_a_log_linear_curve_prefers_the_log_model() -> None:
    n = np.repeat(SIZES, 3)
    rng = np.random.default_rng(0)
    fit = fit_curve_points("random", n, 0.1 + 0.05 * np.log(n) + rng.normal(0, 0.001, len(n)))
    assert fit.best.model == "log2"
    assert fit.best.params["b"] == pytest.approx(0.05, abs=0.002)


def test_extrapolation_matches_the_analytic_inverse_and_is_reliable_nearby() -> None:
    a, b, c = 0.9, 2.0, 0.5
    fit = fit_curve_points("static", *_points(a, b, c, sizes=SIZES[:-1]))  # up to 1600 items
    target = 0.86  # needs (b / (a - target))^(1/c) = 2500 items: 1.6x the data
    x = extrapolate(fit, target, 1600, observed_full=float(a - b * 1600**-c))
    assert x.status == "extrapolated" and x.reliable, x.reasons
    assert x.items_needed == pytest.approx((b / (a - target)) ** (1 / c), rel=0.01)
    assert x.extra_items == pytest.approx(x.items_needed - 1600)


def test_far_extrapolation_is_flagged_unreliable() -> None:
    fit = fit_curve_points("static", *_points(0.9, 2.0, 0.5, sizes=SIZES[:-1]))
    x = extrapolate(fit, 0.885, 1600, observed_full=0.85)  # needs ~17,800 items: 11x
    assert x.status == "extrapolated"
    assert not x.reliable
    assert any("beyond the largest size" in r for r in x.reasons)


def test_target_above_the_asymptote_is_not_reachable() -> None:
    fit = fit_curve_points("static", *_points(0.8, 2.0, 0.5))
    x = extrapolate(fit, 0.85, 3200, observed_full=0.76)
    assert x.status == "not reachable"
    assert math.isinf(x.items_needed)


def test_log_model_never_promises_a_score_above_one() -> None:
    n = np.repeat(SIZES, 3)
    fit = fit_curve_points("random", n, 0.1 + 0.1 * np.log(n), models=("log2",))
    x = extrapolate(fit, 1.05, 3200, observed_full=0.9)
    assert x.status == "not reachable"


def test_already_reached_and_no_fit() -> None:
    fit = fit_curve_points("static", *_points(0.9, 2.0, 0.5))
    assert extrapolate(fit, 0.5, 3200, observed_full=0.86).status == "reached"
    single = fit_curve_points("static", np.array([100.0, 100.0]), np.array([0.5, 0.52]))
    assert single.best is None
    assert extrapolate(single, 0.6, 100).status == "no fit"


def test_poor_fit_and_few_sizes_are_unreliable() -> None:
    rng = np.random.default_rng(3)
    n = np.repeat(SIZES[:3], 3)
    noisy = fit_curve_points("static", n, 0.6 + rng.normal(0, 0.05, len(n)))
    x = extrapolate(noisy, 0.9, 200, observed_full=0.6)
    assert not x.reliable
    assert any("training sizes" in r for r in x.reasons)


def test_fit_learning_curve_reads_an_analysis() -> None:
    analysis = make_synthetic_analysis(curves={"static": (0.8, 3.0, 0.45)}, noise=0.0, slice_effects={})
    fit = fit_learning_curve(analysis, "static")
    assert fit.sizes == [100, 200, 400, 800, 1600]
    assert fit.best.params["a"] == pytest.approx(0.8, abs=1e-3)
    assert fit.to_dict()["best"]["model"] == "pow3"


def test_absurd_extrapolations_are_not_reported_with_false_precision() -> None:
    fit = fit_curve_points("static", *_points(0.9, 2.0, 0.5, sizes=SIZES[:-1]))
    x = extrapolate(fit, 0.8999, 1600, observed_full=0.85)  # ~400 million items
    assert x.items_needed > 1e8 and x.factor > 100  # worded "more than 100×" (test_phrases.py)
    assert "over 100×" in " ".join(x.reasons)
