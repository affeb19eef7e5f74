"""Difficulty-slice claims name their comparison, come in both directions, and are significant only when
the Holm-adjusted p is strictly below the documented level (0.05 exactly, not 1 - 0.95)."""

from __future__ import annotations

import pandas as pd
import pytest

from advisor.stats import significance_level
from advisor.verdict import (
    Thresholds,
    make_synthetic_analysis,
    method_notes,
    recommend,
    render,
    slice_findings,
)
from advisor.verdict import _codes as c

FAST = Thresholds(n_boot=200)


def _slices(findings: dict[tuple[str, str], tuple[float, float]]) -> pd.DataFrame:
    """A gap table at one size: ``findings[(metric, baseline)] = (difficult-minus-easy, raw p)``."""
    rows = []
    for (metric, baseline), (difference, p_value) in findings.items():
        pair = f"contextual-{baseline}"
        for slice_, gap, n in (("difficult", 0.05 + difference, 100), ("easy", 0.05, 300)):
            rows.append({"metric": metric, "size": 800, "pair": pair, "slice": slice_, "n_items": n,
                         "score_a": 0.7, "score_b": 0.7 - gap, "gap": gap, "gap_lo": gap - 0.02,
                         "gap_hi": gap + 0.02, "n_seeds": 3, "p_value": float("nan")})  # fmt: skip
        rows.append({"metric": metric, "size": 800, "pair": pair, "slice": "difficult-minus-easy",
                     "n_items": 400, "score_a": float("nan"), "score_b": float("nan"), "gap": difference,
                     "gap_lo": difference - 0.03, "gap_hi": difference + 0.03, "n_seeds": 3,
                     "p_value": p_value})  # fmt: skip
    return pd.DataFrame(rows)


#: ambiguity: significant against random only (Holm p vs static 0.14); unseen: larger on easy items
#: against random, nothing against static (CoNLL-2003 in the benchmark runs).
PLANTED = {
    ("ambiguity", "static"): (0.04, 0.07),
    ("ambiguity", "random"): (0.06, 0.001),
    ("unseen", "static"): (0.01, 0.5),
    ("unseen", "random"): (-0.05, 0.003),
}


@pytest.fixture(scope="module")
def judged():
    analysis = make_synthetic_analysis(noise=0.001, slice_effects={})
    analysis.slices = _slices(PLANTED)
    return recommend(analysis, FAST)


def test_findings_are_noted_with_their_comparison_in_both_directions(judged) -> None:
    (carry,) = [n for n in judged.reason_notes if n.code == c.SLICES_CARRY]
    (easy,) = [n for n in judged.reason_notes if n.code == c.SLICES_EASY]
    assert carry.values == {"findings": [("ambiguity", "random")], "tested": 4}
    assert easy.values == {"findings": [("unseen", "random")], "tested": 4}
    assert c.SLICES_NONE not in judged.reason_codes


def test_a_finding_against_random_only_says_so(judged) -> None:
    (sentence,) = [r for r in judged.reasons if "larger on difficult items" in r]
    assert sentence == (
        "Contextual's advantage is significantly larger on difficult items for: ambiguity against random "
        "(against static: no significant difference, Holm-adjusted p 0.140) (Holm-corrected over 4 tests)."
    )
    assert "ambiguity against static" not in " ".join(judged.reasons)


def test_findings_against_the_papers_direction_reach_every_place(judged) -> None:
    (sentence,) = [r for r in judged.reasons if "larger on easy items for" in r]
    assert sentence.startswith(
        "Against the paper's expectation, contextual's advantage is significantly larger"
    )
    assert (
        "unseen against random (against static: no significant difference, Holm-adjusted p 0.500)" in sentence
    )
    lines = render(judged).summary_lines()
    assert "Difficulty slices where the gap is larger on easy items:" in lines
    assert any(
        line.startswith("- unseen, contextual vs random: the gap is larger on easy items") for line in lines
    )
    assert any(line.startswith("- ambiguity, contextual vs random: the gap is carried by") for line in lines)


def test_a_holm_p_of_exactly_the_level_is_not_significant() -> None:
    assert significance_level(0.95) == 0.05 and 1 - 0.95 > 0.05  # the float the old comparison used
    five = {(f"m{i}", "static"): (0.05, 0.01) for i in range(5)}  # Holm: 5 x 0.01 = 0.05 for the first
    findings = slice_findings(_slices(five))
    assert findings[0].p_holm == 0.05 and all(f.carried_by == "unclear" for f in findings)
    just_below = slice_findings(_slices({("m0", "static"): (0.05, 0.0499)}))
    assert just_below[0].carried_by == "difficult"


def test_method_section_states_the_level_the_comparison_uses(judged) -> None:
    analysis = make_synthetic_analysis(noise=0.001, slice_effects={})
    analysis.slices = _slices(PLANTED)
    (note,) = [n for n in method_notes(analysis, judged) if n.startswith("Difficulty slices")]
    assert "Holm-corrected over the 4 (metric, pair) tests, is below 0.05." in note
    strict = recommend(analysis, Thresholds(n_boot=200, confidence=0.975))
    (note,) = [n for n in method_notes(analysis, strict) if n.startswith("Difficulty slices")]
    assert "is below 0.025." in note
