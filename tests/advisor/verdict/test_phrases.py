"""How each result reads: the renderer's phrases on hand-made results, no computation involved."""

from __future__ import annotations

import math

import pytest

from advisor.verdict import DataEfficiency, Extrapolation, ScoreGap, SliceFinding, Thresholds
from advisor.verdict._codes import HIERARCHICAL
from advisor.verdict._headroom import Headroom
from advisor.verdict._phrases import (
    budget_text,
    efficiency_sentence,
    extrapolation_sentence,
    gap_sentence,
    headroom_sentence,
    percent,
    pts,
    resolution_text,
    slice_findings_text,
    slice_sentence,
)

SIZES = [100, 200, 400, 800]


def _efficiency(**changes: object) -> DataEfficiency:
    values: dict = dict(
        embedding="contextual", baseline="static", target=0.65, full_size=800, size_needed=282.8,
        status="matches", ratio=800 / 282.8, ratio_lo=2.0, ratio_hi=4.0, share_never=0.0, share_bound=0.0,
        sizes=SIZES, confidence=0.95,
    )  # fmt: skip
    return DataEfficiency(**(values | changes))


def _gap(**changes: object) -> ScoreGap:
    values: dict = dict(
        a="contextual", b="static", size=800, gap=0.012, lo=-0.01, hi=0.034, n_seeds=3, method=HIERARCHICAL,
        confidence=0.95, score_a=0.812, score_b=0.8, loss=0.01, prob_above=0.55, sd_items=0.008, sd_seeds=0.006,
    )  # fmt: skip
    return ScoreGap(**(values | changes))


def test_points_and_probabilities_never_overstate() -> None:
    assert pts(0.034) == "+3.4 pts" and pts(-0.0001) == "-0.0 pts" and pts(0.0) == "0.0 pts"
    assert pts(math.nan) == "n/a"
    assert percent(0.9999) == "> 99.9 %" and percent(0.0001) == "< 0.1 %"
    assert percent(0.97) == "97 %" and percent(0.995) == "99.5 %"


def test_a_gap_states_scores_interval_method_and_probability() -> None:
    text = gap_sentence(_gap())
    assert text.startswith(
        "At 800 training items (the largest size judged) contextual scores 0.812 vs static 0.800"
    )
    assert "gap +1.2 pts (95% CI -1.0 pts to +3.4 pts" in text and "n=3 seeds" in text
    assert text.endswith("; P(contextual − static > 1.0 pts) = 55 %.")
    single = gap_sentence(_gap(lo=math.nan, hi=math.nan, method="single seed: no interval"))
    assert "(no interval: single seed: no interval)" in single


def test_what_would_resolve_a_gap() -> None:
    text = resolution_text(_gap())
    assert text.startswith("2 more seeds would narrow the interval to about ±")
    assert "test-set sampling alone keeps it at ±1.6 pts" in text  # 1.96 × 0.008
    assert (
        resolution_text(_gap(lo=math.nan)) == "more seeds (at least 2 per embedding) would give an interval"
    )


def test_efficiency_inside_the_grid() -> None:
    text = efficiency_sentence(_efficiency())
    assert text == (
        "Contextual reaches static's full-data score (0.650) with about 283 items: it needs 1/2.8 of the data "
        "(95% CI 1/2.0 to 1/4.0)."
    )
    assert "censored" not in text
    large = efficiency_sentence(_efficiency(size_needed=2250.4))
    assert "with about 2,250 items" in large  # thousands separated, as every other count the verdict states


def test_efficiency_matched_at_the_smallest_size_is_censored_never_a_point_interval() -> None:
    text = efficiency_sentence(
        _efficiency(size_needed=100.0, status="bound", ratio=8.0, ratio_lo=8.0, ratio_hi=8.0, share_bound=1.0,
                    censored=True)
    )  # fmt: skip
    assert (
        "it needs at most 1/8.0 of the data; censored: matched at the smallest size tried, 100 items" in text
    )
    assert "1/8.0 to 1/8.0" not in text and "CI" not in text  # every resample matched at 100: no interval
    assert "matched at the smallest size tried in 100 % of resamples" in text


def test_a_share_of_resamples_below_one_percent_is_not_printed_as_zero() -> None:
    text = efficiency_sentence(_efficiency(share_never=0.0015))
    assert "never matched in < 1 % of resamples" in text and "in 0 %" not in text
    edge = efficiency_sentence(_efficiency(ratio_lo=3.1, ratio_hi=8.0, share_bound=0.996))
    assert "matched at the smallest size tried in > 99 % of resamples" in edge


def test_an_interval_end_at_the_smallest_size_is_worded_open() -> None:
    text = efficiency_sentence(_efficiency(ratio_lo=3.1, ratio_hi=8.0, share_bound=0.3))
    assert "CI: at most 1/3.1 of the data, its other end censored" in text and "to 1/8.0" not in text


def test_efficiency_that_never_matches_or_cannot_be_determined() -> None:
    never = efficiency_sentence(_efficiency(status="never", size_needed=math.inf, ratio=0.0))
    assert never == "Contextual never reaches static's full-data score (0.650), even with all 800 items."
    assert "cannot be determined" in efficiency_sentence(_efficiency(status="undetermined"))


def test_extrapolations_read_honestly() -> None:
    def x(**changes: object) -> Extrapolation:
        values: dict = dict(embedding="static", target=0.86, full_size=1600, items_needed=2500.0,
                            status="extrapolated", reliable=True, model="pow3")  # fmt: skip
        return Extrapolation(**(values | changes))

    assert extrapolation_sentence(x()) == (
        "The pow3 fit predicts static reaches 0.860 with about 2,500 labelled items (1.6× the 1,600 used)."
    )
    far = extrapolation_sentence(x(items_needed=4e8, reliable=False, reasons=["extrapolates over 100×"]))
    assert "more than 100× the 1,600 labelled items used (unreliable: extrapolates over 100×)" in far
    assert "not predicted to reach" in extrapolation_sentence(
        x(status="not reachable", items_needed=math.inf)
    )
    assert extrapolation_sentence(x(status="reached")) == "Static already reaches 0.860 with the data it had."


def test_headroom_names_the_raw_text_encoding_cost() -> None:
    gap = _gap(a="finetuned", gap=0.05, lo=0.02, hi=0.08, score_a=0.85, score_b=0.8, size=100)
    headroom = Headroom(gap, 300.0, 6.0, 54.0, latency_ratio=1.2)
    text = headroom_sentence(headroom)
    assert text.startswith("Fine-tuning would add +5.0 pts (95% CI +2.0 to +8.0) at 5.0× the training cost")
    assert "54 s encoding train/dev/test once from raw text" in text
    assert text.endswith("; serving latency (batch 1) 1.2× the frozen encoder's.")
    assert headroom.describe() == text and headroom.to_dict()["text"] == text


def test_slice_findings_read_with_their_holm_p() -> None:
    finding = SliceFinding("ner_ambiguity", "contextual-static", 100, 0.10, 0.05, 0.05, 0.001, 0.1, 50, 50,
                           "unclear", 0.03, 0.06)  # fmt: skip
    text = slice_sentence(finding)
    assert text.startswith(
        "ner_ambiguity, contextual vs static: no clear difference between difficult and easy items"
    )
    assert "contextual-minus-static gap +10.0 pts on 50 difficult" in text and "Holm-adjusted p 0.060" in text
    assert finding.describe() == text
    unsplit = SliceFinding("ner_ambiguity", "contextual-static", 10, *[math.nan] * 5, 0, 0, "unclear")
    assert "cannot be split" in slice_sentence(unsplit)


def test_a_metric_whose_low_values_are_difficult_says_so() -> None:
    """Pairs sharing few words are the hard ones: the overlap slices name which end is difficult."""
    finding = SliceFinding("pair_overlap", "contextual-static", 100, 0.10, 0.01, 0.09, 0.04, 0.14, 50, 50,
                           "difficult", 0.001, 0.002)  # fmt: skip
    assert slice_sentence(finding).startswith(
        "pair_overlap (difficult = low overlap), contextual vs static: the gap is carried by difficult items"
    )
    found = slice_findings_text([finding], [("pair_overlap", "static")])
    assert found == "pair_overlap (difficult = low overlap) against static"
    assert slice_findings_text([], [("pair_unseen", "static")]) == "pair_unseen against static"


@pytest.mark.parametrize(
    ("thresholds", "expected"),
    [
        (Thresholds(), "800 extra items (default: doubling the training set)"),
        (Thresholds(labelling_budget_items=300), "300 extra items"),
        (
            Thresholds(label_cost=2.0, labelling_budget_money=1000),
            "500 extra items, ≈ 1,000.00 at 2 per item",
        ),
    ],
)
def test_budget_text(thresholds: Thresholds, expected: str) -> None:
    assert budget_text(thresholds, 800) == expected


@pytest.mark.parametrize(
    ("p", "text"), [(0.97, "= 97 %"), (0.9995, "> 99.9 %"), (0.0004, "< 0.1 %"), (0.005, "= 0.5 %")]
)
def test_a_probability_reads_as_one_relation(p: float, text: str) -> None:
    """ "P(…) = > 99.9 %" said two relations at once: an unresolved end is stated with its own sign."""
    from advisor.verdict._phrases import is_percent

    assert is_percent(p) == text
