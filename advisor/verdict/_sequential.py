"""Deciding before the grid is finished: the early verdict and an error-controlled stopping rule.

Looking at the verdict after every round of cells and stopping as soon as it looks clear is optional
stopping: each look is another chance to cross a boundary by luck, so a naive rule's error grows with
the number of looks. The rule here fixes the looks in advance and spends the error over them.

**Looks.** The evidence-first schedule (:func:`advisor.grid.evidence_first`) trains one seed of every
family at the largest size, then the next seed there, and so on: look ``n`` is the moment every family
has ``n`` seeds at the largest size, and the planned seeds ``K`` are the maximum number of looks.

**Statistic.** At each look every (costlier, cheaper) gap at the largest size has a standard error
with two parts, both from the run's hierarchical bootstrap (:mod:`advisor.stats`): test-item sampling
(many items: treated as known) and seed sampling (estimated from ``n`` seeds: ``n - 1`` degrees of
freedom). The bound is ``gap ± t_ν(1 - level) · se`` with ν the Welch–Satterthwaite degrees of freedom
of the sum, so two seeds whose spread dominates give a wide bound, and one seed gives none: with one
seed the seed part is unknown, the early verdict is shown from test-item resampling alone, and the run
never stops on it.

**Spending.** The one-sided error ``α = (1 - confidence) / 2`` of each claim ("contextual wins":
every contextual gap's lower bound above the acceptable loss; "<family> is enough": every costlier
gap's upper bound within it) is spent over the looks by a Lan–DeMets spending function of the
information fraction ``n / K``: O'Brien–Fleming-type ``2 - 2Φ(z_{1-α/2} / √(n/K))`` (the default: the
first looks spend almost nothing, so the last keeps nearly the full α) or Pocock-type
``α · ln(1 + (e - 1) n/K)``. Look ``n`` tests at the increment ``α(n/K) - α(previous look)`` (the one-seed
look's share is carried to the first look that may stop). By the union bound the chance of any wrong
early claim stays within α whatever the correlation between looks, which here is not the textbook one:
every look scores the same test set.

**Settled.** The run stops when a claim holds at its look's level; what it did not train is stated.
Unsettled after the last look at the largest size, it runs the rest of the grid and the full verdict
decides. A settled "contextual wins" is about the largest size only: whether labelling more data would
let a cheaper family catch up (the "label more data" rule) needs that family's smaller sizes, so after
it the run trains the cheaper families' remaining cells (not contextual's) and the full rules may still
refine the claim to "label more data instead" (:mod:`advisor.verdict._settled`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import ndtr, ndtri, stdtrit

from advisor.analysis import Analysis
from advisor.stats import ItemScores
from advisor.verdict._codes import CONTEXTUAL, INCONCLUSIVE, USE_CONTEXTUAL
from advisor.verdict._gaps import ScoreGap, analysis_replicates, score_gap
from advisor.verdict._headroom import frozen_only
from advisor.verdict._phrases import early_verdict_line
from advisor.verdict._thresholds import Thresholds, run_thresholds
from advisor.vocabulary import FAMILIES, ordered, pairs

__all__ = [
    "SPENDING",
    "EarlyVerdict",
    "early_verdict",
    "gap_bounds",
    "look_levels",
    "sequential_method",
    "settled_verdicts",
    "spent",
]

#: The spending functions the rule knows (the first is the default).
SPENDING = ("obrien-fleming", "pocock")

Bounds = Mapping[tuple[str, str], tuple[np.ndarray, np.ndarray]]


def spent(fraction: float, alpha: float, shape: str = SPENDING[0]) -> float:
    """The one-sided error spent up to information fraction ``fraction`` (0 at 0, ``alpha`` at 1)."""
    t = min(max(float(fraction), 0.0), 1.0)
    if t <= 0 or alpha <= 0:
        return 0.0
    if shape == "obrien-fleming":
        return float(2.0 - 2.0 * ndtr(ndtri(1.0 - alpha / 2.0) / math.sqrt(t)))
    if shape == "pocock":
        return float(alpha * math.log(1.0 + (math.e - 1.0) * t))
    raise ValueError(f"unknown spending function {shape!r}; known: {', '.join(SPENDING)}")


def look_levels(looks: int, confidence: float, shape: str = SPENDING[0], first: int = 2) -> np.ndarray:
    """One-sided test level at each look (index ``n - 1`` for ``n`` seeds); 0 where no stop is allowed.

    Looks before ``first`` (one seed: no seed variance) spend nothing; their share goes to look ``first``.
    The levels sum to ``(1 - confidence) / 2`` when ``looks >= first``.
    """
    alpha = (1.0 - confidence) / 2.0
    levels = np.zeros(max(int(looks), 0))
    before = 0.0
    for n in range(max(first, 1), int(looks) + 1):
        cumulative = spent(n / looks, alpha, shape)
        levels[n - 1] = cumulative - before
        before = cumulative
    return levels


def gap_bounds(
    gap: np.ndarray, sd_items: np.ndarray, sd_seeds: np.ndarray, n_seeds: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """``gap ± t_ν(1 - level) · se`` (vectorised): se² = sd_items² + sd_seeds², ν Welch–Satterthwaite.

    The item part counts as known (ν contribution ∞), the seed part has ``n_seeds - 1`` degrees of
    freedom. NaN bounds where the seed part is unknown (one seed, NaN) or ``level`` is 0.
    """
    gap, n = np.asarray(gap, float), np.asarray(n_seeds, float)
    vi = np.nan_to_num(np.asarray(sd_items, float) ** 2, nan=0.0)
    vs = np.asarray(sd_seeds, float) ** 2
    se = np.sqrt(vi + vs)
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = np.where(vs > 0, (vi + vs) ** 2 * (n - 1) / np.where(vs > 0, vs, 1.0) ** 2, np.inf)
    usable = (n >= 2) & np.isfinite(vs) & np.isfinite(gap) & (level > 0)
    q = stdtrit(np.where(usable, nu, 1.0), 1.0 - level) if level > 0 else np.full(gap.shape, np.nan)
    half = np.where(usable, q * se, np.nan)
    return gap - half, gap + half


def settled_verdicts(bounds: Bounds, names: Sequence[str], loss: float) -> np.ndarray:
    """The claim each run's bounds settle ("" where none), the verdict's rules in the verdict's order.

    Cheapest family first, a family that may be "enough" is when every costlier gap's upper bound is
    within ``loss``; else contextual wins when every contextual gap's lower bound is above it.
    """
    shape = np.shape(next(iter(bounds.values()))[0]) if bounds else ()
    out = np.full(shape, "", dtype=object)
    for cheap in ordered(names):
        if cheap not in FAMILIES or FAMILIES[cheap].enough is None:
            continue
        his = [hi for (_, b), (_, hi) in bounds.items() if b == cheap]
        if his:
            holds = np.logical_and.reduce([np.nan_to_num(hi, nan=np.inf) <= loss for hi in his])
            out = np.where((out == "") & holds, f"{cheap} is enough", out)
    los = [lo for (a, _), (lo, _) in bounds.items() if a == CONTEXTUAL]
    if los:
        wins = np.logical_and.reduce([np.nan_to_num(lo, nan=-np.inf) > loss for lo in los])
        out = np.where((out == "") & wins, USE_CONTEXTUAL, out)
    return out


def sequential_method(looks: int, confidence: float, shape: str = SPENDING[0]) -> str:
    """The Method section's sentence for a run that stopped by the rule (``--until decided``)."""
    name = "O'Brien-Fleming" if shape == "obrien-fleming" else "Pocock"
    levels = ", ".join(f"{v:.4f}" for v in look_levels(looks, confidence, shape) if v > 0)
    return (
        f"Stopping (--until decided): the verdict was looked at after every round of the largest size "
        f"(at most {looks} looks, one per seed). Each claim's one-sided error {(1 - confidence) / 2:.3f} was "
        f"spent over the looks with a Lan-DeMets {name}-type function of the seeds done (per-look levels "
        f"{levels}); a look's bound is gap ± t·se with the bootstrap's item and seed parts and "
        "Welch-Satterthwaite degrees of freedom (the seed part on n - 1). One seed is shown, never stopped "
        "on. The union bound keeps the chance of any wrong early claim within the error. After a settled "
        "'use contextual' the cheaper families' remaining cells were still trained, contextual's were not: "
        "the 'label more data' rule reads their curves and may refine the claim."
    )


@dataclass(frozen=True)
class EarlyVerdict:
    """What the cells finished so far say at the largest size, and whether the rule says it is settled."""

    verdict: str  # the settled claim, else what the cells so far lean to at the run's confidence
    settled: bool
    pair: str  # contextual's closest gap ("contextual-static")
    gap: float
    prob_above: float  # P(gap > loss) from the same replicates (test items only with one seed)
    loss: float
    size: int
    seeds: int  # the look: seeds every family has at ``size``
    looks: int
    level: float  # the one-sided level this look tests at (0: it may not stop)
    items_only: bool  # one seed: the interval is from test-item resampling alone
    gaps: tuple[ScoreGap, ...] = ()

    def describe(self, done: int, total: int) -> str:
        """The line after a round: "early verdict after 3 of 45 cells: USE CONTEXTUAL, … — refining"."""
        return early_verdict_line(self, done, total)


def _complete_round(analysis: Analysis, size: int | None) -> tuple[Analysis, int, list[int]] | None:
    """The analysis cut to ``size`` (default: the largest size every family reached) and the seeds all
    families have there; None when some family has no cell there."""
    curves = analysis.curves
    names = analysis.embedding_names
    done = curves.groupby("size")["embedding"].nunique()
    sizes = [int(s) for s, k in done.items() if k == len(names)]
    if size is None and sizes:
        size = max(sizes)
    if size is None or size not in sizes:
        return None
    at = curves[curves["size"] == size]
    seeds = sorted(set.intersection(*(set(at.loc[at["embedding"] == e, "seed"]) for e in names)))
    if not seeds:
        return None
    kept = at[at["seed"].isin(seeds)].reset_index(drop=True)
    return (
        replace(analysis, curves=kept, item_scores=_cut_items(analysis.item_scores, size, seeds)),
        size,
        seeds,
    )


def _cut_items(scores: ItemScores | None, size: int, seeds: list[int]) -> ItemScores | None:
    if scores is None:
        return None
    index = [i for i, (_, s, d) in enumerate(scores.keys) if s == size and d in seeds]
    if not index:
        return None
    return ItemScores(scores.measure, [scores.keys[i] for i in index], scores.counts[index])


def _bounds_of(gaps: Sequence[ScoreGap], level: float, items_only: bool) -> Bounds:
    """Each gap's bounds at ``level``; ``items_only``: the item part alone, as known (a zero seed part
    on two seeds gives ν = ∞), NaN when the gap has no item part (no per-item scores)."""
    out = {}
    for g in gaps:
        sd_seeds = (0.0 if math.isfinite(g.sd_items) else math.nan) if items_only else g.sd_seeds
        n = 2 if items_only else g.n_seeds
        lo, hi = gap_bounds(
            np.array([g.gap]), np.array([g.sd_items]), np.array([sd_seeds]), np.array([n]), level
        )
        out[(g.a, g.b)] = (lo, hi)
    return out


def early_verdict(
    analysis: Analysis,
    looks: int,
    thresholds: Thresholds | None = None,
    shape: str = SPENDING[0],
    size: int | None = None,
) -> EarlyVerdict | None:
    """The early verdict from the finished cells (None without contextual and a cheaper family at ``size``).

    ``looks`` is the planned number of seeds at the largest size; ``size`` the grid's largest size (the
    rule is only for it: a caller that passes None gets the largest size every family reached, a progress
    indication). The verdict shown is the settled claim when the rule allows one at this look, else what
    the cells lean to at the run's own confidence (with one seed: from test-item resampling alone).
    """
    t = thresholds or run_thresholds(analysis.params)
    frozen = frozen_only(analysis)
    if CONTEXTUAL not in frozen.embedding_names or len(frozen.embedding_names) < 2:
        return None
    cut = _complete_round(frozen, size)
    if cut is None:
        return None
    part, size, seeds = cut
    loss, n = t.acceptable_loss, len(seeds)
    reps = analysis_replicates(part, t.n_boot)
    kw = {"confidence": t.confidence, "loss": loss, "replicates": reps}
    gaps = tuple(score_gap(part, a, b, size, **kw) for a, b in pairs(part.embedding_names))  # type: ignore[arg-type]
    levels = look_levels(max(looks, n), t.confidence, shape)
    level = float(levels[n - 1])
    settled = (
        str(settled_verdicts(_bounds_of(gaps, level, False), part.embedding_names, loss)[0]) if level else ""
    )
    lean = str(
        settled_verdicts(_bounds_of(gaps, (1 - t.confidence) / 2, n < 2), part.embedding_names, loss)[0]
    )
    cs = min((g for g in gaps if g.a == CONTEXTUAL), key=lambda g: g.gap)
    return EarlyVerdict(
        settled or lean or INCONCLUSIVE, bool(settled), cs.pair, cs.gap, cs.prob_above, loss, size, n,
        max(looks, n), level, n < 2, gaps,
    )  # fmt: skip
