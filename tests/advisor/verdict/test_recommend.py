"""Every verdict is reachable on a synthetic run built for it, and never stronger than the evidence.

The decision is checked on its codes and numbers (``rec.rule``, ``rec.problems``, the reason and caveat
notes); how they read is the renderer's business (``test_wording.py``)."""

from __future__ import annotations

import json

import pytest

from advisor.analysis import Analysis
from advisor.errors import ConfigError
from advisor.verdict import VERDICTS, Thresholds, analysis_from_scores, recommend
from advisor.verdict import _codes as c

FAST = Thresholds(n_boot=200)
RULES = {
    "use contextual": c.CONTEXTUAL_WINS,
    "static is enough": c.ENOUGH,
    "random is enough": c.ENOUGH,
    "label more data instead": c.CATCH_UP,
}


@pytest.mark.parametrize(
    "verdict", ["use contextual", "static is enough", "random is enough", "label more data instead"]
)
def test_each_verdict_is_reached_on_its_synthetic_run(make_case, verdict: str) -> None:
    rec = recommend(make_case(verdict, noise=0.001), FAST)
    assert rec.verdict == verdict, rec.headline
    assert rec.rule.code == RULES[verdict] and not rec.problems
    assert rec.reason_codes[:4] == [c.GAP, c.GAP, c.GAP, c.INTERVALS]
    if rec.rule.code == c.ENOUGH:
        assert rec.rule["family"] == verdict.split()[0]


@pytest.mark.parametrize("verdict", ["static is enough", "random is enough"])
def test_same_curves_with_noisier_seeds_are_inconclusive(make_case, verdict: str) -> None:
    # 3 seeds with 0.5-point noise: the interval of a ~0 gap reaches past the 1-point tolerance.
    rec = recommend(make_case(verdict, noise=0.005), FAST)
    assert rec.verdict == "inconclusive"
    assert rec.rule.code == c.STRADDLES and rec.rule["pair"] in {"contextual-static", "contextual-random"}


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
    assert rec.verdict == "inconclusive" and rec.rule.code == c.NOT_JUDGED
    assert [p.code for p in rec.problems] == [c.FEW_SEEDS]
    assert rec.problems[0].values == {"thin": {"static": 1, "contextual": 1}, "need": 2}
    one_size = analysis_from_scores({"contextual": {800: [0.9, 0.91]}, "static": {800: [0.5, 0.51]}})
    (problem,) = recommend(one_size, FAST).problems
    assert problem.code == c.FEW_SIZES and problem.values == {"n": 1, "need": 2}


def test_no_contextual_cell_is_inconclusive() -> None:
    rec = recommend(analysis_from_scores({"static": {100: [0.5, 0.5], 800: [0.7, 0.71]}}), FAST)
    assert rec.verdict == "inconclusive" and [p.code for p in rec.problems] == [c.NO_CONTEXTUAL]


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
    assert rec.rule.code == c.CATCH_UP
    assert rec.rule.values == {"embedding": "static", "extra_items": static.extra_items}
    tight = Thresholds(labelling_budget_items=int(static.extra_items) - 50, n_boot=200)
    assert recommend(analysis, tight).verdict == "use contextual"
    priced = Thresholds(label_cost=2.0, labelling_budget_money=10_000, n_boot=200)
    assert recommend(analysis, priced).rule.code == c.CATCH_UP  # 5,000 items affordable


def test_a_family_over_the_latency_budget_is_never_the_recommendation(make_case) -> None:
    rec = recommend(make_case("use contextual", noise=0.001), Thresholds(latency_budget_ms=1.0, n_boot=200))
    assert rec.verdict == "use the best within budget" and rec.rule.code == c.OVER_BUDGET
    assert (rec.rule["family"], rec.rule["rival"], rec.rule["over"]) == (
        "static",
        "contextual",
        ["contextual"],
    )
    assert rec.rule["pair"] == "contextual-static" and rec.gap("contextual-static") is not None
    over = [n for n in rec.reason_notes if n.code == c.OVER_LATENCY]
    assert [n["embedding"] for n in over] == ["contextual"]  # the cheap ones serve in under 1 ms
    assert (
        over[0]["latency"] == rec.costs.value("contextual", "latency_ms_per_item") > over[0]["budget"] == 1.0
    )


def test_difficulty_slices_carrying_the_gap(make_case) -> None:
    rec = recommend(
        make_case("use contextual", noise=0.001, slice_effects={"unseen": 0.08, "ambiguity": 0.0}), FAST
    )
    carrying = {(s.metric, s.pair) for s in rec.carrying_slices}
    assert ("unseen", "contextual-static") in carrying
    assert not any(s.metric == "ambiguity" for s in rec.carrying_slices)
    (note,) = [n for n in rec.reason_notes if n.code == c.SLICES_CARRY]
    assert ("unseen", "static") in note["findings"] and note["tested"] == 0  # the table has no p-values
    assert not any(metric == "ambiguity" for metric, _ in note["findings"])


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
    assert rec.rule.code == c.STRADDLES and rec.rule["pair"] == "contextual-random"


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
    assert rec.rule.code == c.STOPPED_EARLY
    assert rec.rule.values == {"pair": "contextual-static", "cut_from": 800}
    notes = {n.code: n.values for n in rec.caveat_notes}
    assert notes[c.JUDGED_BELOW] == {"size": 400, "cut_from": 800, "min_seeds": 2}
    assert notes[c.RUN_STATUS] == {"status": "KILLED"}
    assert analysis.full_size == 800  # the caller's analysis is left as it was
    tied = {e: {n: v for n, v in curve.items()} for e, curve in scores.items()}
    tied["contextual"] = dict(tied["static"]) | {800: [nan, nan]}
    tied["static"] = dict(tied["static"]) | {800: [nan, nan]}
    tied["contextual"][800] = [0.9, nan]  # contextual ran ahead, static did not: judged at 400, tied there
    assert recommend(analysis_from_scores(tied), FAST).verdict == "static is enough"


def test_repaired_f1_is_shown_beside_the_strict_score_when_it_differs(make_case) -> None:
    analysis = make_case("use contextual", noise=0.001)
    analysis.curves["eval_repaired_f1"] = analysis.curves["score"]
    assert c.REPAIRED not in recommend(analysis, FAST).reason_codes  # equal: nothing to say
    analysis.curves["eval_repaired_f1"] = analysis.curves["score"] + 0.01
    (note,) = [n for n in recommend(analysis, FAST).reason_notes if n.code == c.REPAIRED]
    assert list(note["scores"]) == ["contextual", "random", "static"]
    assert all(repaired == pytest.approx(strict + 0.01) for repaired, strict in note["scores"].values())
