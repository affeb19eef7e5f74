"""The "distilled is enough" verdict on planted curves: reached, and never ahead of a cheaper family."""

from __future__ import annotations

from advisor.verdict import VERDICTS, Thresholds, make_synthetic_analysis, recommend
from advisor.verdict import _codes as c
from advisor.verdict._codes import DISTILLED_ENOUGH

FAST = Thresholds(n_boot=200)
#: A lookup table like static (fast, small), distilled from the 384-d encoder.
DISTILLED_COSTS = {
    "distilled": {
        "inference_ms_per_item": 0.30,
        "train_seconds": 5.0,
        "peak_memory_mb": 500.0,
        "n_params": 250_000,
        "epochs": 8,
        "dim": 384,
        "embedding_bytes": 30e6,
        "featurize_seconds": 0.8,
        "featurize_items_per_s": 20_000.0,
    }
}


def _case(distilled: tuple[float, float, float], static: tuple[float, float, float] = (0.80, 3.0, 0.45)):
    curves = {
        "random": (0.70, 3.0, 0.45),
        "static": static,
        "distilled": distilled,
        "contextual": (0.86, 2.0, 0.45),
    }
    return make_synthetic_analysis(curves=curves, noise=0.001, costs=DISTILLED_COSTS)


def test_distilled_on_contextuals_curve_is_enough_at_a_fraction_of_its_serving_cost() -> None:
    rec = recommend(_case(distilled=(0.86, 2.0, 0.45)), FAST)
    assert rec.verdict == DISTILLED_ENOUGH and DISTILLED_ENOUGH in VERDICTS, rec.headline
    assert rec.rule.code == c.ENOUGH and rec.rule["family"] == "distilled"
    assert rec.rule["pair"] == "contextual-distilled" and rec.rule["against"] == "contextual"
    assert 0 < rec.rule["share"] < 1  # stated as its share of contextual's serving latency
    gap = rec.gap("contextual-distilled")
    assert gap is not None and gap.hi <= 0.01
    assert rec.gap("distilled-static").lo > 0.01  # static is clearly worse: not "static is enough"


def test_distilled_far_below_contextual_leaves_use_contextual() -> None:
    rec = recommend(_case(distilled=(0.83, 2.0, 0.45)), FAST)
    assert rec.verdict == "use contextual", rec.headline
    assert (
        rec.rule["pair"] == "contextual-distilled"
    )  # the best cheap family is the one contextual is weighed against


def test_a_cheaper_family_that_is_enough_wins_over_distilled() -> None:
    rec = recommend(_case(distilled=(0.86, 2.0, 0.45), static=(0.86, 2.0, 0.45)), FAST)
    assert rec.verdict == "static is enough", rec.headline


def test_decided_against_distilled_states_its_cost_ratio_and_data_share() -> None:
    rec = recommend(_case(distilled=(0.83, 2.0, 0.45)), FAST)
    assert rec.rule["pair"] == "contextual-distilled"
    ratios = [n for n in rec.reason_notes if n.code == c.COST_RATIO]
    assert [n["pair"] for n in ratios] == ["contextual/static", "contextual/distilled"]
    assert ratios[1]["encode"] == (40.0, 0.8)  # contextual's encoder pass vs distilled's lookup (seconds)
    assert [e.baseline for e in rec.efficiency] == ["static", "random", "distilled"]
    assert any(r.startswith("Cost contextual vs distilled: serving latency (batch 1)") for r in rec.reasons)
    assert any(r.startswith("Contextual reaches distilled's full-data score") for r in rec.reasons)


def test_decided_against_static_gives_no_distilled_ratio() -> None:
    rec = recommend(_case(distilled=(0.70, 3.0, 0.45)), FAST)
    assert rec.rule["pair"] == "contextual-static"
    assert [n["pair"] for n in rec.reason_notes if n.code == c.COST_RATIO] == ["contextual/static"]
    assert [e.baseline for e in rec.efficiency] == ["static", "random"]
