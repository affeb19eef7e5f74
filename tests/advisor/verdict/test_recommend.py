"""Every verdict is reachable on a synthetic run built for it, and never stronger than the evidence."""

from __future__ import annotations

import json

import pytest

from advisor.analysis import Analysis
from advisor.errors import ConfigError
from advisor.verdict import VERDICTS, Thresholds, analysis_from_scores, recommend

FAST = Thresholds(n_boot=200)


@pytest.mark.parametrize(
    "verdict", ["use contextual", "static is enough", "random is enough", "label more data instead"]
)
def test_each_verdict_is_reached_on_its_synthetic_run(make_case, verdict: str) -> None:
    rec = recommend(make_case(verdict, noise=0.001), FAST)
    assert rec.verdict == verdict, rec.headline
    assert rec.reasons and rec.headline
    assert rec.verdict.split()[0] in rec.summary_lines()[0].lower()


@pytest.mark.parametrize("verdict", ["static is enough", "random is enough"])
def test_same_curves_with_noisier_seeds_are_inconclusive(make_case, verdict: str) -> None:
    # 3 seeds with 0.5-point noise: the interval of a ~0 gap reaches past the 1-point tolerance.
    rec = recommend(make_case(verdict, noise=0.005), FAST)
    assert rec.verdict == "inconclusive"
    assert "straddles" in rec.headline


def test_overlapping_intervals_are_inconclusive_even_with_a_better_mean() -> None:
    # contextual is 3 points better on average, but its seeds spread over 9 points.
    scores = {
        "contextual": {100: [0.6, 0.6, 0.6], 800: [0.76, 0.85, 0.80]},
        "static": {100: [0.5, 0.5, 0.5], 800: [0.78, 0.77, 0.77]},
    }
    rec = recommend(analysis_from_scores(scores), FAST)
    assert rec.gap("contextual-static").gap == pytest.approx(0.03)
    assert rec.verdict == "inconclusive"


def test_one_seed_or_one_size_is_inconclusive() -> None:
    one_seed = analysis_from_scores(
        {"contextual": {100: [0.5], 800: [0.9]}, "static": {100: [0.3], 800: [0.5]}}
    )
    rec = recommend(one_seed, FAST)
    assert rec.verdict == "inconclusive" and "too few seeds" in rec.headline
    one_size = analysis_from_scores({"contextual": {800: [0.9, 0.91]}, "static": {800: [0.5, 0.51]}})
    assert "training size" in recommend(one_size, FAST).headline


def test_no_contextual_cell_is_inconclusive() -> None:
    rec = recommend(analysis_from_scores({"static": {100: [0.5, 0.5], 800: [0.7, 0.71]}}), FAST)
    assert rec.verdict == "inconclusive" and "no finished contextual cell" in rec.headline


def test_acceptable_loss_moves_the_verdict(make_case) -> None:
    analysis = make_case("use contextual", noise=0.001)  # contextual ~10 points ahead
    assert recommend(analysis, FAST).verdict == "use contextual"
    generous = Thresholds(acceptable_loss=0.15, n_boot=200)
    assert recommend(analysis, generous).verdict == "static is enough"
    assert recommend(analysis, Thresholds(acceptable_loss=0.25, n_boot=200)).verdict == "random is enough"


def test_labelling_budget_limits_the_label_more_verdict(make_case) -> None:
    analysis = make_case("label more data instead", noise=0.001)
    rec = recommend(analysis, FAST)
    static = next(x for x in rec.extrapolations if x.embedding == "static")
    assert rec.verdict == "label more data instead"
    assert f"{static.extra_items:,.0f} more labelled items" in rec.headline
    tight = Thresholds(labelling_budget_items=int(static.extra_items) - 50, n_boot=200)
    assert recommend(analysis, tight).verdict == "use contextual"
    priced = Thresholds(label_cost=2.0, labelling_budget_money=10_000, n_boot=200)
    assert "≈" in recommend(analysis, priced).headline


def test_latency_budget_is_reported(make_case) -> None:
    rec = recommend(make_case("use contextual", noise=0.001), Thresholds(latency_budget_ms=1.0, n_boot=200))
    assert rec.verdict == "use contextual"
    assert any("over your latency budget" in r for r in rec.reasons)
    assert any("misses your latency budget" in c for c in rec.caveats)


def test_difficulty_slices_carrying_the_gap(make_case) -> None:
    rec = recommend(
        make_case("use contextual", noise=0.001, slice_effects={"unseen": 0.08, "ambiguity": 0.0}), FAST
    )
    carrying = {(s.metric, s.pair) for s in rec.carrying_slices}
    assert ("unseen", "contextual-static") in carrying
    assert not any(s.metric == "ambiguity" for s in rec.carrying_slices)
    assert any("Difficulty slices carrying the gap" in line for line in rec.summary_lines())


def test_to_dict_is_strict_json_and_complete(make_case) -> None:
    rec = recommend(make_case("use contextual"), FAST)
    payload = json.loads(json.dumps(rec.to_dict(), allow_nan=False))
    assert payload["verdict"] in VERDICTS
    assert payload["thresholds"]["acceptable_loss"] == 0.01
    assert {g["pair"] for g in payload["gaps"]} == {"contextual-static", "contextual-random", "static-random"}
    assert payload["efficiency"][0]["baseline"] == "static"
    assert payload["fits"]["static"]["best"]["model"] in {"pow3", "log2", "exp3"}
    assert payload["costs"]["ratios"]["contextual/static"]["latency_ms_per_item"] > 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"acceptable_loss": -0.1},
        {"acceptable_loss": 2.0},
        {"confidence": 1.0},
        {"labelling_budget_money": 100.0},
        {"min_seeds": 1},
        {"latency_budget_ms": -1.0},
    ],
)
def test_bad_thresholds_raise_config_errors(kwargs: dict) -> None:
    with pytest.raises(ConfigError):
        Thresholds(**kwargs)


def test_analysis_requires_the_curve_columns() -> None:
    import pandas as pd

    with pytest.raises(ConfigError, match="score"):
        Analysis(
            "ner", "f1", pd.DataFrame({"embedding": [], "seed": [], "size": []}), pd.DataFrame(), {}, {}, {}
        )


def test_contextual_is_weighed_against_the_best_cheap_embedding() -> None:
    # static is far behind, but random is close to contextual: the verdict must not use the static gap.
    scores = {
        "random": {100: [0.60, 0.60, 0.60], 800: [0.795, 0.80, 0.805]},
        "static": {100: [0.40, 0.40, 0.40], 800: [0.60, 0.61, 0.60]},
        "contextual": {100: [0.70, 0.70, 0.70], 800: [0.80, 0.81, 0.82]},
    }
    rec = recommend(analysis_from_scores(scores), FAST)
    assert rec.gap("contextual-static").lo > 0.1
    assert rec.verdict == "inconclusive"
    assert "over random" in rec.headline


def test_empty_run_is_inconclusive() -> None:
    import pandas as pd

    empty = Analysis(
        "ner", "f1", pd.DataFrame(columns=["embedding", "seed", "size", "score"]), pd.DataFrame(), {}, {}, {}
    )
    rec = recommend(empty, FAST)
    assert rec.verdict == "inconclusive" and rec.costs is None


def test_an_interrupted_run_is_judged_at_its_largest_complete_size() -> None:
    # Every embedding finished 400 items with 2 seeds; at 800 only one static seed finished.
    nan = float("nan")
    scores = {
        "static": {100: [0.50, 0.51], 200: [0.60, 0.61], 400: [0.70, 0.71], 800: [0.75, nan]},
        "contextual": {100: [0.70, 0.71], 200: [0.80, 0.81], 400: [0.85, 0.86], 800: [nan, nan]},
    }
    analysis = analysis_from_scores(scores, status="KILLED")
    rec = recommend(analysis, FAST)
    assert rec.full_size == 400
    assert rec.gap("contextual-static").gap == pytest.approx(0.15)
    # contextual leads at 400 items, but static has not seen the rest of the data yet: no "use contextual".
    assert rec.verdict == "inconclusive"
    assert "stopped before its largest size (800 items)" in rec.headline
    assert any("judged at 400 items" in c and "up to 800" in c for c in rec.caveats)
    assert any("KILLED" in c for c in rec.caveats)
    assert analysis.full_size == 800  # the caller's analysis is left as it was
    tied = {e: {n: v for n, v in curve.items()} for e, curve in scores.items()}
    tied["contextual"] = dict(tied["static"]) | {800: [nan, nan]}
    tied["static"] = dict(tied["static"]) | {800: [nan, nan]}
    tied["contextual"][800] = [0.9, nan]  # contextual ran ahead, static did not: judged at 400, tied there
    assert recommend(analysis_from_scores(tied), FAST).verdict == "static is enough"


def test_repaired_f1_is_shown_beside_the_strict_score_when_it_differs(make_case) -> None:
    analysis = make_case("use contextual", noise=0.001)
    analysis.curves["eval_repaired_f1"] = analysis.curves["score"]
    assert not any("stray I-" in r for r in recommend(analysis).reasons)  # equal: nothing to say
    analysis.curves["eval_repaired_f1"] = analysis.curves["score"] + 0.01
    line = next(r for r in recommend(analysis).reasons if "stray I-" in r)
    assert line.startswith("Scores are seqeval strict IOB2 F1 on the raw predictions") and "(strict " in line
