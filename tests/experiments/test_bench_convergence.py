"""bench_convergence.py's paired test of the budget: which rows the 4x budget beats beyond seed noise."""

from __future__ import annotations

import math

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
