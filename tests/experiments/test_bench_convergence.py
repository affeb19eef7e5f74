"""bench_convergence.py's paired test of the budget: which rows the 4x budget beats beyond seed noise."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from tests.helpers import load_experiment


def _cells(scores: dict[tuple[str, int], list[float]]) -> pd.DataFrame:
    rows = [
        {"embedding": e, "size": size, "seed": seed, "score": score}
        for (e, size), values in scores.items()
        for seed, score in enumerate(values)
    ]
    return pd.DataFrame(rows)


def test_paired_t_sees_a_consistent_gain_that_the_seed_spread_hides() -> None:
    bench = load_experiment("bench_convergence")
    default = _cells({("static", 100): [0.50, 0.60, 0.70], ("random", 100): [0.50, 0.60, 0.70]})
    larger = _cells({("static", 100): [0.52, 0.62, 0.721], ("random", 100): [0.51, 0.59, 0.70]})
    out = bench.paired(default, larger)
    static, random = out.loc[("static", 100)], out.loc[("random", 100)]
    assert static["t"] < -10 and static["p_4x_higher"] < 0.01  # 4x higher by ~2 pts in every seed
    assert abs(random["t"]) < 1 and random["p_4x_higher"] > 0.3  # no consistent direction


def test_paired_gives_no_t_for_one_seed_or_identical_differences() -> None:
    bench = load_experiment("bench_convergence")
    default = _cells({("static", 100): [0.5], ("random", 100): [0.5, 0.6]})
    larger = _cells({("static", 100): [0.6], ("random", 100): [0.5, 0.6]})
    out = bench.paired(default, larger)
    assert math.isnan(out.loc[("static", 100), "t"]) and math.isnan(out.loc[("random", 100), "t"])


def test_holm_steps_down_and_never_rejects_a_missing_p() -> None:
    bench = load_experiment("bench_convergence")
    p = pd.Series([0.001, 0.03, 0.04, float("nan")], index=list("abcd"))
    rejected = bench.holm(p)
    assert list(rejected) == [True, False, False, False]  # 0.03 > 0.05 / 2 stops the step-down
    assert list(bench.holm(pd.Series([0.001, 0.02], index=list("ab")))) == [True, True]


def test_a_lower_floor_is_the_smaller_budget_and_its_own_profile() -> None:
    bench = load_experiment("bench_convergence")
    from advisor.grid import profiles

    variant = bench.parse_variant("floor=300", "default")
    try:
        assert variant.label == "floor 300" and variant.key == "floor300" and not variant.larger
        lowered, default = profiles.get(variant.profile), profiles.get("default")
        assert lowered.min_steps == 300
        assert (lowered.max_steps, lowered.patience, lowered.lr_grid) == (
            default.max_steps,
            default.patience,
            default.lr_grid,
        )
        assert bench.parse_variant("floor=300", "default") == variant  # registered once
        assert bench.parse_variant("4x", "default").larger
    finally:
        profiles.unregister(variant.profile)


def test_a_projection_width_is_its_own_profile_with_the_budget_unchanged() -> None:
    bench = load_experiment("bench_convergence")
    from advisor.grid import profiles

    wide, narrow = (
        bench.parse_variant("projection=256", "quick"),
        bench.parse_variant("projection=32", "quick"),
    )
    fixed = bench.parse_variant("projection=256", "default")  # one width against the dev choice of two
    try:
        assert (wide.label, wide.key, wide.larger, wide.scale) == ("projection 256", "projection256", True, 1)
        assert not narrow.larger and wide.cause == "a too narrow projection"
        widened, quick = profiles.get(wide.profile), profiles.get("quick")
        assert (widened.projections, quick.projections) == ((256,), (64,))
        assert replace(widened, name="quick", projections=(64,)) == quick  # nothing else changes
        assert profiles.get(fixed.profile).projections == (256,) and fixed.larger
    finally:
        for variant in (wide, narrow, fixed):
            profiles.unregister(variant.profile)


def test_an_against_value_that_names_no_variant_is_refused() -> None:
    import pytest

    bench = load_experiment("bench_convergence")
    for text in ("floor=600", "floor=0", "floor=abc", "8x", "projection=0"):
        with pytest.raises(SystemExit, match="--against"):
            bench.parse_variant(text, "default")
    with pytest.raises(SystemExit, match="--against"):  # the quick profile's one width: nothing to compare
        bench.parse_variant("projection=64", "quick")


def test_with_a_lower_floor_the_paired_test_asks_whether_the_default_is_higher() -> None:
    bench = load_experiment("bench_convergence")
    default = _cells({("static", 100): [0.52, 0.62, 0.721]})
    lowered = _cells({("static", 100): [0.50, 0.60, 0.70]})
    as_larger = bench.paired(default, lowered, variant_larger=True).loc[("static", 100)]
    as_smaller = bench.paired(default, lowered, variant_larger=False).loc[("static", 100)]
    assert as_larger["p_4x_higher"] > 0.99  # the variant is not higher
    assert as_smaller["p_4x_higher"] < 0.01  # the default (the larger budget) is higher in every seed


def test_the_steps_line_sums_the_cells_both_trained() -> None:
    bench = load_experiment("bench_convergence")
    keys = {"embedding": ["static", "static"], "size": [100, 200], "seed": [0, 0]}
    default = pd.DataFrame({**keys, "steps": [900, 1200]})
    lowered = pd.DataFrame({**keys, "steps": [600, 1200]})
    line = bench._steps_line(default, lowered, "floor 300")
    assert "over 2 cells: default 2,100, floor 300 1,800 (86% of the default)" in line


def test_a_flipped_rate_and_the_larger_budget_are_named_by_the_variant() -> None:
    bench = load_experiment("bench_convergence")
    default = bench.Curves(pd.DataFrame(), {"random": 0.001}, 1.0)
    retuned = bench.Curves(pd.DataFrame(), {"random": 0.01}, 1.0)
    assert bench._rates(default, retuned, "random", "floor 300") == "0.001 (floor 300 chose 0.01)"
    wide = bench.Curves(pd.DataFrame(), {"random": 0.001}, 1.0, {"random": 256})  # same rate, other width
    assert bench._rates(default, wide, "random", "4x") == "0.001 (4x chose 0.001 @256)"
    assert (
        bench._setting(wide, "random") == (0.001, 256)
        and bench._rates(wide, wide, "random", "4x") == "0.001 @256"
    )
    lowered = bench.Variant("floor 300", "default-floor300", larger=False)
    assert lowered.larger_side == "default" and bench.Variant("4x", "default", scale=4).larger_side == "4x"
