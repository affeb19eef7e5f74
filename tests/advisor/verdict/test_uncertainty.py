"""The verdict's uncertainty: a planted effect is covered at the nominal rate by the hierarchical
bootstrap where a seeds-only interval is not, the probability lines, and Holm over slice claims."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.stats import ItemScores, Resampler, cell_replicates, percentile_interval
from advisor.verdict import Thresholds, analysis_from_item_scores, recommend, score_gaps
from advisor.verdict import _codes as c
from advisor.verdict._gaps import HIERARCHICAL, _t_interval, analysis_replicates

TRUE_GAP_TYPES = {"both": 0.6, "neither": 0.2, "a_only": 0.15, "b_only": 0.05}


def _simulate(rng: np.random.Generator, n_items: int, n_seeds: int, flip: float) -> ItemScores:
    """Planted effect: each test item is one of four types (right for both / neither / only a / only b);
    each seed flips an item's outcome with probability ``flip`` (training noise)."""
    kinds = rng.choice(4, size=n_items, p=list(TRUE_GAP_TYPES.values()))
    right_a = np.isin(kinds, (0, 2))
    right_b = np.isin(kinds, (0, 3))
    keys, counts = [], []
    for name, right in (("contextual", right_a), ("static", right_b)):
        for seed in range(n_seeds):
            flipped = rng.random(n_items) < flip
            correct = np.where(flipped, ~right, right).astype(np.int32)
            keys.append((name, 100, seed))
            counts.append(np.stack([correct, np.ones(n_items, np.int32)], axis=1))
    return ItemScores("accuracy", keys, np.stack(counts))


def test_hierarchical_interval_covers_a_planted_gap_and_seeds_only_does_not() -> None:
    flip = 0.02
    true_gap = (TRUE_GAP_TYPES["a_only"] - TRUE_GAP_TYPES["b_only"]) * (1 - 2 * flip)
    rng = np.random.default_rng(12345)
    covered = {"hierarchical": 0, "seeds only": 0}
    repetitions = 200
    for repetition in range(repetitions):
        scores = _simulate(rng, n_items=120, n_seeds=3, flip=flip)
        replicates = cell_replicates(scores, Resampler(scores.n_items, scores.seeds, 400, repetition))
        boot = replicates.seed_mean("contextual", 100) - replicates.seed_mean("static", 100)
        lo, hi = percentile_interval(boot, 0.95)
        per_seed = replicates.point[("contextual", 100)] - replicates.point[("static", 100)]
        _, t_lo, t_hi = _t_interval(per_seed, 0.95)
        if repetition == 0:  # the verdict's own path gives the same interval
            analysis = analysis_from_item_scores(scores)
            gaps = score_gaps(analysis, replicates=analysis_replicates(analysis, 400, repetition))
            assert gaps[0].method == HIERARCHICAL and (gaps[0].lo, gaps[0].hi) == pytest.approx((lo, hi))
            assert score_gaps(analysis)[0].lo == pytest.approx(t_lo)  # without replicates: seeds only
        covered["hierarchical"] += lo <= true_gap <= hi
        covered["seeds only"] += t_lo <= true_gap <= t_hi
    assert covered["hierarchical"] / repetitions >= 0.90, covered
    assert covered["seeds only"] / repetitions < 0.85, covered  # blind to test-set sampling


def test_inconclusive_verdict_says_which_way_it_leans_and_what_would_resolve_it() -> None:
    rng = np.random.default_rng(7)
    n = 150
    keys, counts = [], []
    for name, p in (("static", 0.70), ("contextual", 0.72)):
        for size in (50, 100):
            for seed in range(3):
                correct = (rng.random(n) < p).astype(np.int32)
                keys.append((name, size, seed))
                counts.append(np.stack([correct, np.ones(n, np.int32)], axis=1))
    analysis = analysis_from_item_scores(ItemScores("accuracy", keys, np.stack(counts)))
    rec = recommend(analysis, Thresholds(n_boot=500))
    gap = rec.gap("contextual-static")
    assert gap is not None and gap.method == HIERARCHICAL and 0 < gap.prob_above < 1
    assert rec.verdict == "inconclusive" and rec.rule.code == c.STRADDLES
    assert rec.rule["pair"] == "contextual-static" and rec.rule["lean"] in {"a", "b", "neither"}
    assert gap.projected_half_width(2) < gap.half_width  # two more seeds would narrow it
    (intervals,) = [n for n in rec.reason_notes if n.code == c.INTERVALS]
    assert intervals.values == {"hierarchical": True, "n_boot": 500, "n_items": 150}


def test_slice_claims_are_holm_corrected() -> None:
    import pandas as pd

    from advisor.verdict import slice_findings

    rows = []
    for metric, p in (("ner_complexity", 0.004), ("ner_ambiguity", 0.03), ("ner_unseen", 0.5)):
        for name, gap, lo, hi, pv in (
            ("difficult", 0.10, 0.0, 0.2, float("nan")),
            ("easy", 0.05, 0.0, 0.1, float("nan")),
            ("difficult-minus-easy", 0.05, 0.001, 0.1, p),  # every uncorrected CI excludes 0
        ):
            rows.append({"metric": metric, "size": 100, "pair": "contextual-static", "slice": name,
                         "n_items": 50, "gap": gap, "gap_lo": lo, "gap_hi": hi, "p_value": pv})  # fmt: skip
    findings = {f.metric: f for f in slice_findings(pd.DataFrame(rows))}
    assert (
        findings["ner_complexity"].p_holm == pytest.approx(0.012)
        and findings["ner_complexity"].carried_by == "difficult"
    )
    assert (
        findings["ner_ambiguity"].p_holm == pytest.approx(0.06)
        and findings["ner_ambiguity"].carried_by == "unclear"
    )
    assert findings["ner_ambiguity"].p_holm == pytest.approx(0.060)


def test_an_unsplittable_metric_makes_no_claim() -> None:
    import pandas as pd

    from advisor.verdict import slice_findings

    rows = [{"metric": "ner_ambiguity", "size": 10, "pair": "contextual-static", "slice": name, "n_items": 0,
             "gap": float("nan"), "gap_lo": float("nan"), "gap_hi": float("nan"), "p_value": float("nan")}
            for name in ("difficult", "easy", "difficult-minus-easy")]  # fmt: skip
    (finding,) = slice_findings(pd.DataFrame(rows))
    assert finding.carried_by == "unclear" and finding.n_difficult == finding.n_easy == 0
