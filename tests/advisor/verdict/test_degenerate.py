"""Degenerate curves are outcomes, not crashes: every family at F1 0.0 (nothing learned), some families
at 0.0 (WNUT-17 on 300 sentences: random and static), flat non-zero curves, NaN scores, and the hierarchical
path on all-zero per-item counts. The decision is checked on its codes, the wording on its sentences."""

from __future__ import annotations

import html
import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from advisor.plots import plot_data_efficiency, plot_extrapolation, plot_learning_curves
from advisor.report import write_report
from advisor.verdict import (
    ItemScores,
    LearningCurveFit,
    Thresholds,
    analysis_from_item_scores,
    analysis_from_scores,
    extrapolate,
    fit_curve_points,
    recommend,
)
from advisor.verdict import _codes as c
from advisor.verdict._fit import CandidateFit

FAST = Thresholds(n_boot=200)
SIZES = (50, 100, 200, 400)


def _flat(value: float, seeds: int = 3) -> dict[int, list[float]]:
    return {size: [value] * seeds for size in SIZES}


def _rising() -> dict[int, list[float]]:
    return {size: [0.1 * i + 0.01 * j for j in range(3)] for i, size in enumerate(SIZES, 1)}


def test_every_family_at_zero_is_not_judged_and_says_nothing_was_learned() -> None:
    analysis = analysis_from_scores({name: _flat(0.0) for name in ("random", "static", "contextual")})
    rec = recommend(analysis, FAST)
    assert rec.verdict == "inconclusive" and rec.rule.code == c.NOT_JUDGED
    assert [(p.code, p.values) for p in rec.problems] == [(c.NOTHING_LEARNED, {"score": 0.0})]
    assert c.LEARNED_NOTHING not in rec.caveat_codes  # the gate says it for every family already
    assert rec.headline == (
        "Inconclusive: no family learned this task at these sizes: every score is 0.0 — check the labels or "
        "add data."
    )


def test_every_family_at_the_same_constant_is_not_judged() -> None:
    analysis = analysis_from_scores({name: _flat(0.62) for name in ("random", "static", "contextual")})
    rec = recommend(analysis, FAST)
    assert [p.code for p in rec.problems] == [c.NOTHING_LEARNED] and rec.problems[0]["score"] == 0.62
    assert "every family scores 0.620 at every size and seed" in rec.headline


def test_cheap_families_at_zero_are_flat_with_nothing_to_match() -> None:
    analysis = analysis_from_scores({"random": _flat(0.0), "static": _flat(0.0), "contextual": _rising()})
    rec = recommend(analysis, FAST)
    assert rec.verdict == "use contextual" and rec.rule.code == c.CONTEXTUAL_WINS
    assert {x.embedding: x.status for x in rec.extrapolations} == {"static": "flat", "random": "flat"}
    assert all(not x.reliable and x.level == 0.0 for x in rec.extrapolations)
    assert {e.baseline: e.status for e in rec.efficiency} == {
        "static": "nothing to match",
        "random": "nothing to match",
    }
    assert rec.fits["static"].flat and rec.fits["static"].best is None and not rec.fits["contextual"].flat
    (note,) = [n for n in rec.caveat_notes if n.code == c.LEARNED_NOTHING]
    assert note["families"] == ["random", "static"]


def test_cheap_families_at_zero_read_as_such() -> None:
    analysis = analysis_from_scores({"random": _flat(0.0), "static": _flat(0.0), "contextual": _rising()})
    rec = recommend(analysis, FAST)
    assert "Static's curve is flat (0.000 at every size): no extrapolation" in " ".join(rec.reasons)
    assert (
        "Static scores 0.000 with all 400 items (it learned nothing), so matching it says nothing: no "
        "data-efficiency ratio of contextual against static."
    ) in rec.reasons
    assert rec.caveats[-1].startswith(
        "random and static scored 0.0 at every size and seed: they learned nothing at these sizes"
    )


def test_flat_non_zero_curves_are_judged_without_extrapolation() -> None:
    analysis = analysis_from_scores({"random": _flat(0.3), "static": _flat(0.5), "contextual": _flat(0.6)})
    rec = recommend(analysis, FAST)
    assert rec.verdict == "use contextual" and not rec.problems
    assert {x.embedding: (x.status, x.level) for x in rec.extrapolations} == {
        "static": ("flat", 0.5),
        "random": ("flat", 0.3),
    }
    assert c.LEARNED_NOTHING not in rec.caveat_codes


def test_nan_scores_are_left_out_not_propagated() -> None:
    analysis = analysis_from_scores({"random": _flat(0.0), "static": _flat(0.0), "contextual": _rising()})
    analysis.curves.loc[analysis.curves.index[:4], "score"] = math.nan  # cells with no score
    rec = recommend(analysis, FAST)
    assert rec.verdict == "use contextual"
    assert all(math.isfinite(g.gap) for g in rec.gaps)
    assert rec.to_dict()["verdict"] == "use contextual"


def test_all_zero_item_counts_take_the_hierarchical_path_to_the_gate() -> None:
    keys = [(e, size, seed) for e in ("random", "static", "contextual") for size in SIZES for seed in (0, 1)]
    counts = np.zeros((len(keys), 20, 3), dtype=np.int32)
    counts[:, :, 2] = 1  # one gold entity per sentence, never found: F1 0.0 everywhere
    analysis = analysis_from_item_scores(ItemScores("f1", keys, counts))
    rec = recommend(analysis, FAST)
    assert [p.code for p in rec.problems] == [c.NOTHING_LEARNED]


def test_a_flat_curve_is_not_fitted_and_not_extrapolated() -> None:
    fit = fit_curve_points("static", np.repeat(SIZES, 2), np.zeros(8))
    assert fit.flat and fit.best is None and fit.level == 0.0 and fit.to_dict()["flat"] is True
    x = extrapolate(fit, 0.4, 400, observed_full=0.0)
    assert (x.status, x.reliable, x.level) == ("flat", False, 0.0) and math.isnan(x.items_needed)
    assert extrapolate(fit, -0.01, 400, observed_full=0.0).status == "reached"


def test_a_fit_without_r2_is_unreliable_not_a_crash() -> None:
    best = CandidateFit(
        "log2", "score = a + b * ln(n)", {"a": 0.1, "b": 0.01}, 0.0, -50.0, math.nan, 0.0, True
    )
    fit = LearningCurveFit("static", best, [best], list(SIZES), [0.1, 0.1, 0.1, 0.1], 8)
    x = extrapolate(fit, 0.2, 400, observed_full=0.1)
    assert not x.reliable and "no R² (the means do not vary)" in x.reasons


@pytest.mark.parametrize("zero", [("random", "static"), ("random", "static", "contextual")])
def test_figures_and_report_render_degenerate_runs(tmp_path, zero: tuple[str, ...]) -> None:
    scores = {name: _flat(0.0) if name in zero else _rising() for name in ("random", "static", "contextual")}
    analysis = analysis_from_scores(scores)
    rec = recommend(analysis, FAST)
    assert isinstance(plot_learning_curves(analysis, rec.fits), Figure)
    if rec.efficiency:
        assert isinstance(plot_data_efficiency(rec.efficiency), Figure)
        assert isinstance(plot_extrapolation(rec.fits, rec.extrapolations, 4.0), Figure)
    _, md = write_report(analysis, tmp_path, FAST)
    text = html.unescape(md.read_text(encoding="utf-8"))  # the markdown escapes "<", ">" and "&"
    assert rec.headline in text
    if len(zero) == 3:
        assert "no family learned this task at these sizes: every score is 0.0" in text
    else:
        assert "Static's curve is flat (0.000 at every size): no extrapolation" in text
