"""The early verdict and the stopping rule (advisor.verdict._sequential).

The simulation plants the gaps of three families at the largest size (contextual - static well above,
near and below the acceptable loss; random far behind) under several noise levels, with the noise
model the run's bootstrap estimates: a test-set part shared by every seed (the same test items score
every cell) and a seed part. ``complete`` is the fixed-sample decision on all seeds at the run's
confidence (normal quantile, as the percentile bootstrap); ``decided`` stops at the first look whose
spent level settles a claim, else it runs to the end and takes ``complete``'s verdict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor.verdict import ItemScores, analysis_from_item_scores
from advisor.verdict._codes import INCONCLUSIVE, USE_CONTEXTUAL
from advisor.verdict._sequential import (
    early_verdict,
    gap_bounds,
    look_levels,
    sequential_method,
    settled_verdicts,
    spent,
)

LOSS, CONFIDENCE, SEEDS, RUNS = 0.01, 0.95, 3, 2000
ALPHA = (1 - CONFIDENCE) / 2
FAMILIES = ("random", "static", "contextual")
PAIRS = (("contextual", "static"), ("contextual", "random"), ("static", "random"))
#: (test-item sd, seed sd) of one pair's gap at the largest size, in score units
NOISE = ((0.005, 0.003), (0.01, 0.005), (0.01, 0.01), (0.02, 0.01))
#: contextual - static: well above, just above, at, just below and well below the loss
GAPS = (0.05, 0.015, LOSS, 0.005, -0.01)


def _simulate(
    gap: float, sd_items: float, sd_seeds: float, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """``RUNS`` planted runs: per look, every pair's gap estimate with the bootstrap's two sd parts."""
    means = {"random": -0.08, "static": 0.0, "contextual": gap}
    items = {f: rng.normal(0, sd_items / math.sqrt(2), RUNS) for f in FAMILIES}  # shared by every seed
    seeds = {f: rng.normal(0, sd_seeds / math.sqrt(2), (RUNS, SEEDS)) for f in FAMILIES}
    n_items = 1000  # the item sd is estimated from this many test items
    out: dict[str, np.ndarray] = {}
    for a, b in PAIRS:
        per_seed = (means[a] - means[b]) + (items[a] - items[b])[:, None] + (seeds[a] - seeds[b])
        est_items = sd_items * np.sqrt(rng.chisquare(n_items - 1, RUNS) / (n_items - 1))
        for n in range(1, SEEDS + 1):
            part = per_seed[:, :n]
            sd = part.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.full(RUNS, np.nan)
            out[f"{a}-{b}/{n}"] = np.stack([part.mean(axis=1), est_items, sd])
    return out


def _verdicts(sim: dict[str, np.ndarray], n: int, level: float, n_dof: float | None = None) -> np.ndarray:
    bounds = {}
    for a, b in PAIRS:
        gap, sd_items, sd_seeds = sim[f"{a}-{b}/{n}"]
        dof = np.full(RUNS, n if n_dof is None else n_dof)
        bounds[(a, b)] = gap_bounds(gap, sd_items, sd_seeds, dof, level)
    return settled_verdicts(bounds, FAMILIES, LOSS)


def _complete_and_decided(sim: dict[str, np.ndarray], levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    complete = _verdicts(sim, SEEDS, ALPHA, n_dof=math.inf)  # all seeds, the run's confidence
    complete = np.where(complete == "", INCONCLUSIVE, complete)
    decided = np.full(RUNS, "", dtype=object)
    for n in range(1, SEEDS + 1):
        if levels[n - 1] > 0:
            now = _verdicts(sim, n, float(levels[n - 1]))
            decided = np.where(decided == "", now, decided)
    return complete, np.where(decided == "", complete, decided)


@pytest.fixture(scope="module")
def outcomes() -> list[tuple[float, tuple[float, float], np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(31)
    levels = look_levels(SEEDS, CONFIDENCE)
    runs = []
    for gap in GAPS:
        for noise in NOISE:
            complete, decided = _complete_and_decided(_simulate(gap, *noise, rng), levels)
            runs.append((gap, noise, complete, decided))
    return runs


def test_decided_agrees_with_complete_in_95_percent_of_runs(outcomes) -> None:
    assert sum(len(d) for *_, d in outcomes) >= 1000
    for gap, noise, complete, decided in outcomes:
        agreement = float(np.mean(complete == decided))
        assert agreement >= 0.95, (gap, noise, agreement)


def test_wrongly_enough_stays_within_the_nominal_level(outcomes) -> None:
    """Where contextual truly loses more than the loss, "static/random is enough" is an error."""
    tolerance = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)
    for gap, noise, _, decided in outcomes:
        if gap >= LOSS:
            wrong = float(np.mean(np.char.endswith(decided.astype(str), "is enough")))
            assert wrong <= ALPHA + tolerance, (gap, noise, wrong)


def test_wrongly_contextual_stays_within_the_nominal_level(outcomes) -> None:
    tolerance = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)
    for gap, noise, _, decided in outcomes:
        if gap <= LOSS:
            assert float(np.mean(decided == USE_CONTEXTUAL)) <= ALPHA + tolerance, (gap, noise)


def test_clear_decisions_stop_early(outcomes) -> None:
    """Well above the loss with little noise, most runs settle before the last seed."""
    rng = np.random.default_rng(7)
    sim = _simulate(0.05, 0.005, 0.003, rng)
    early = _verdicts(sim, 2, float(look_levels(SEEDS, CONFIDENCE)[1]))
    assert float(np.mean(early == USE_CONTEXTUAL)) > 0.9


def test_naive_looking_spends_more_than_the_rule() -> None:
    """Testing every look at the full level (optional stopping) errs more often than the spent levels."""
    rng = np.random.default_rng(3)
    sim = _simulate(LOSS, 0.004, 0.02, rng)  # seed noise dominates: the looks differ most
    naive = np.full(RUNS, "", dtype=object)
    ruled = np.full(RUNS, "", dtype=object)
    levels = look_levels(SEEDS, CONFIDENCE)
    for n in (2, 3):
        naive = np.where(naive == "", _verdicts(sim, n, ALPHA), naive)
        ruled = np.where(ruled == "", _verdicts(sim, n, float(levels[n - 1])), ruled)
    assert np.mean(naive != "") > np.mean(ruled != "")


def test_spending_functions_spend_the_whole_error_by_the_last_look() -> None:
    for shape in ("obrien-fleming", "pocock"):
        assert spent(1.0, ALPHA, shape) == pytest.approx(ALPHA)
        levels = look_levels(5, CONFIDENCE, shape)
        assert levels[0] == 0.0  # one seed never stops
        assert levels.sum() == pytest.approx(ALPHA)
    obf = look_levels(3, CONFIDENCE)
    assert obf[1] < obf[2]  # O'Brien-Fleming keeps most of the error for the last look
    assert look_levels(1, CONFIDENCE).sum() == 0.0
    with pytest.raises(ValueError, match="spending"):
        spent(0.5, ALPHA, "haybittle")


def test_gap_bounds_use_the_seed_degrees_of_freedom() -> None:
    lo, hi = gap_bounds(np.array([0.05]), np.array([0.0]), np.array([0.01]), np.array([2]), 0.025)
    assert hi[0] - 0.05 == pytest.approx(12.706 * 0.01, rel=1e-3)  # t with 1 dof: only the seed part
    lo, hi = gap_bounds(np.array([0.05]), np.array([0.01]), np.array([0.0]), np.array([3]), 0.025)
    assert hi[0] - 0.05 == pytest.approx(1.96 * 0.01, rel=1e-3)  # only the item part: normal
    lo, _ = gap_bounds(np.array([0.05]), np.array([0.01]), np.array([np.nan]), np.array([1]), 0.025)
    assert np.isnan(lo[0])  # one seed: no bound


def _planted(seeds: int, redrawn: float = 0.05, n_items: int = 1000):
    """A run at one size (1600) whose cells' per-item correctness is drawn at planted accuracies; a seed
    redraws the share ``redrawn`` of the items (the seed noise: 1.0 makes the seeds independent)."""
    accuracy = {"random": 0.70, "static": 0.78, "contextual": 0.86}
    rng = np.random.default_rng(1)
    base = rng.random(n_items)
    keys, rows = [], []
    for seed in range(seeds):
        # shared by the families of a seed: their cells are paired
        draw = np.where(rng.random(n_items) < redrawn, rng.random(n_items), base)
        for family, p in accuracy.items():
            correct = (draw < p).astype(np.int32)
            keys.append((family, 1600, seed))
            rows.append(np.stack([correct, np.ones(n_items, np.int32)], axis=1))
    return analysis_from_item_scores(ItemScores("accuracy", keys, np.stack(rows)))


def test_early_verdict_from_one_seed_is_shown_but_not_settled() -> None:
    analysis = _planted(seeds=1)
    early = early_verdict(analysis, looks=3)
    assert early is not None
    assert early.seeds == 1 and early.items_only and not early.settled
    assert early.verdict == USE_CONTEXTUAL and early.pair == "contextual-static"
    assert early.prob_above > 0.95 and early.size == 1600


def test_early_verdict_settles_a_clear_gap_at_the_second_look() -> None:
    early = early_verdict(_planted(seeds=2), looks=3)
    assert early is not None and early.settled and early.verdict == USE_CONTEXTUAL
    assert 0 < early.level < ALPHA


def test_two_noisy_seeds_do_not_settle_what_one_seed_of_items_suggests() -> None:
    """Seeds that disagree leave the seed part on one degree of freedom: the look's bound is wide."""
    early = early_verdict(_planted(seeds=2, redrawn=1.0), looks=3)
    assert early is not None and not early.settled
    assert early.verdict == USE_CONTEXTUAL  # what it leans to, at the run's own confidence


def test_early_verdict_is_none_without_contextual() -> None:
    analysis = _planted(seeds=2)
    without = analysis.curves[analysis.curves["embedding"] != "contextual"]
    from dataclasses import replace

    assert early_verdict(replace(analysis, curves=without, item_scores=None), looks=3) is None


def test_method_sentence_states_the_looks_and_levels() -> None:
    text = sequential_method(3, CONFIDENCE)
    assert "at most 3 looks" in text and "O'Brien-Fleming" in text
    assert f"{look_levels(3, CONFIDENCE)[2]:.4f}" in text


def test_the_early_line_says_the_cells_the_verdict_and_whether_it_refines() -> None:
    one = early_verdict(_planted(seeds=1), looks=3)
    two = early_verdict(_planted(seeds=2), looks=3)
    assert one is not None and two is not None
    line = one.describe(3, 45)
    assert line.startswith("early verdict after 3 of 45 cells: USE CONTEXTUAL, P(gap > loss) = 1.00")
    assert line.endswith("— refining") and "one seed" in line
    assert two.describe(6, 45).endswith("— settled")


def test_early_verdict_at_a_size_some_family_has_not_reached_is_none() -> None:
    analysis = _planted(seeds=2)
    assert early_verdict(analysis, looks=3, size=800) is None
    at_full = early_verdict(analysis, looks=3, size=1600)
    assert at_full is not None and at_full.size == 1600
