"""Score gaps between two embeddings at one size, with their intervals.

When the run logged per-item test scores (every run since the hierarchical model; see
:mod:`advisor.stats`) the intervals come from the paired hierarchical bootstrap over
seeds *and* test sentences, and each gap carries P(gap > acceptable loss) from the same replicates.
Analyses without per-item scores (older runs, synthetic curves) fall back to intervals over seeds
only (paired t / seed bootstrap), and say so in ``method``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import (  # Student-t CDF / quantile; scipy.stats costs seconds to import
    ndtri,
    stdtr,
    stdtrit,
)

from advisor.analysis import Analysis
from advisor.stats import (
    CellReplicates,
    Resampler,
    cell_replicates,
    percentile_interval,
    share_above,
)
from advisor.verdict._codes import HIERARCHICAL
from advisor.vocabulary import PAIRS

__all__ = [
    "HIERARCHICAL",
    "PAIRS",
    "ScoreGap",
    "analysis_replicates",
    "curve_summary",
    "score_gap",
    "score_gaps",
    "seeds_to_decide",
]


def _t_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean and two-sided Student-t interval; NaN bounds with fewer than two values."""
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if len(values) < 2:
        return mean, math.nan, math.nan
    sem = float(values.std(ddof=1)) / math.sqrt(len(values))
    half = float(stdtrit(len(values) - 1, 0.5 + confidence / 2)) * sem
    return mean, mean - half, mean + half


def curve_summary(analysis: Analysis, confidence: float = 0.95) -> pd.DataFrame:
    """Mean score and t-interval over seeds per (embedding, size): the learning-curve bands.

    Columns: embedding, size, fraction, mean, lo, hi, n_seeds, sd.
    """
    rows: list[dict[str, Any]] = []
    full = analysis.full_size
    for embedding in analysis.embedding_names:
        matrix = analysis.score_matrix(embedding)
        for size, scores in matrix.iterrows():
            values = scores.to_numpy(dtype=float)
            values = values[np.isfinite(values)]
            mean, lo, hi = _t_interval(values, confidence)
            rows.append(
                {
                    "embedding": embedding,
                    "size": int(size),
                    "fraction": int(size) / full if full else math.nan,
                    "mean": mean,
                    "lo": lo,
                    "hi": hi,
                    "n_seeds": len(values),
                    "sd": float(values.std(ddof=1)) if len(values) > 1 else math.nan,
                }
            )
    columns = ["embedding", "size", "fraction", "mean", "lo", "hi", "n_seeds", "sd"]
    return pd.DataFrame(rows, columns=columns)


@dataclass
class ScoreGap:
    """``a`` minus ``b`` at one size, with a t-interval over seeds (paired when both ran the same seeds)."""

    a: str
    b: str
    size: int
    gap: float
    lo: float
    hi: float
    n_seeds: int
    method: str  # HIERARCHICAL | "paired t-interval over seeds" | "Welch t-interval over seeds" | "single seed: no interval"
    confidence: float
    score_a: float
    score_b: float
    loss: float = math.nan  # the acceptable loss the probability refers to
    prob_above: float = math.nan  # P(gap > loss), from the same replicates as the interval
    sd_items: float = math.nan  # bootstrap sd of the gap from test-item sampling alone
    sd_seeds: float = math.nan  # bootstrap (or t) sd of the gap from seed sampling, at n_seeds

    @property
    def pair(self) -> str:
        return f"{self.a}-{self.b}"

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2 if self.has_interval else math.nan

    def projected_half_width(self, more_seeds: int) -> float:
        """About how wide (±) the interval would be with ``more_seeds`` more seeds, same test set."""
        n = self.n_seeds
        if n < 1 or not math.isfinite(self.sd_seeds):
            return math.nan
        z = float(stdtrit(10**6, 0.5 + self.confidence / 2))
        if self.method == HIERARCHICAL:
            items = self.sd_items if math.isfinite(self.sd_items) else 0.0
            return z * math.sqrt(items**2 + self.sd_seeds**2 * n / (n + more_seeds))
        spread = self.sd_seeds * math.sqrt(n)  # sd of per-seed gaps
        return (
            float(stdtrit(n + more_seeds - 1, 0.5 + self.confidence / 2)) * spread / math.sqrt(n + more_seeds)
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"pair": self.pair}


def analysis_replicates(
    analysis: Analysis, n_boot: int = 2000, random_state: int = 0
) -> CellReplicates | None:
    """The hierarchical replicates of every cell, or None when the run logged no per-item scores."""
    scores = getattr(analysis, "item_scores", None)
    if scores is None or not len(scores.keys) or n_boot < 1:
        return None
    return cell_replicates(scores, Resampler(scores.n_items, scores.seeds, n_boot, random_state))


def _hierarchical_gap(
    reps: CellReplicates,
    a: str,
    b: str,
    size: int,
    confidence: float,
    loss: float,
    means: tuple[float, float],
) -> ScoreGap:
    """Gap a - b at ``size`` from the replicates: percentile interval, P(gap > loss), variance parts."""
    per_seed = reps.replicates[(a, size)] - reps.replicates[(b, size)]
    boot = reps.resampler.seed_average(per_seed)
    lo, hi = percentile_interval(boot, confidence)
    sd_items, sd_seeds = reps.resampler.components(per_seed)
    shared = np.isfinite(reps.point[(a, size)]) & np.isfinite(reps.point[(b, size)])
    score_a, score_b = means
    return ScoreGap(
        a, b, int(size), score_a - score_b, lo, hi, int(shared.sum()), HIERARCHICAL, confidence,
        score_a, score_b, loss, share_above(boot, loss) if math.isfinite(loss) else math.nan,
        sd_items, sd_seeds,
    )  # fmt: skip


def _t_probability(gap: float, se: float, dof: float, loss: float) -> float:
    """P(gap > loss) under the t-interval's own model (the fallback without per-item scores)."""
    if not (math.isfinite(loss) and math.isfinite(se)):
        return math.nan
    if se == 0 or dof <= 0:
        return float(gap > loss)
    return float(1.0 - stdtr(dof, (loss - gap) / se))


def score_gap(
    analysis: Analysis,
    a: str,
    b: str,
    size: int | None = None,
    confidence: float = 0.95,
    *,
    loss: float = math.nan,
    replicates: CellReplicates | None = None,
) -> ScoreGap:
    """Gap ``score(a) - score(b)`` at ``size`` (default: the largest size both embeddings reached).

    Seeds shared by both embeddings are paired (a seed fixes the training subset, so pairing removes
    the subset-to-subset variation); without two shared seeds the interval is Welch's.
    """
    ma, mb = analysis.score_matrix(a), analysis.score_matrix(b)
    if ma.empty or mb.empty:
        raise KeyError(f"no finished cells for {a if ma.empty else b!r}")
    if size is None:
        common = sorted(set(ma.index) & set(mb.index))
        if not common:
            raise KeyError(f"{a!r} and {b!r} share no training-set size")
        size = int(common[-1])
    ra, rb = ma.loc[size].dropna(), mb.loc[size].dropna()
    shared = sorted(set(ra.index) & set(rb.index))
    score_a, score_b = float(ra.mean()), float(rb.mean())
    if replicates is not None and {(a, size), (b, size)} <= set(replicates.replicates):
        return _hierarchical_gap(replicates, a, b, int(size), confidence, loss, (score_a, score_b))
    se, dof = math.nan, 0.0
    if len(shared) >= 2:
        diffs = ra.loc[shared].to_numpy() - rb.loc[shared].to_numpy()
        gap, lo, hi = _t_interval(diffs, confidence)
        gap = score_a - score_b  # the point estimate uses every seed; the interval the paired ones
        se, dof = float(diffs.std(ddof=1)) / math.sqrt(len(diffs)), len(diffs) - 1.0
        method, n = "paired t-interval over seeds", len(shared)
    elif len(ra) >= 2 and len(rb) >= 2:
        gap = score_a - score_b
        va, vb = ra.var(ddof=1) / len(ra), rb.var(ddof=1) / len(rb)
        se = math.sqrt(va + vb)
        dof = 1.0
        if se == 0:
            lo = hi = gap
        else:
            dof = (va + vb) ** 2 / (va**2 / (len(ra) - 1) + vb**2 / (len(rb) - 1))
            half = float(stdtrit(dof, 0.5 + confidence / 2)) * se
            lo, hi = gap - half, gap + half
        method, n = "Welch t-interval over seeds", min(len(ra), len(rb))
    else:
        gap, lo, hi = score_a - score_b, math.nan, math.nan
        method, n = "single seed: no interval", min(len(ra), len(rb))
    return ScoreGap(
        a, b, int(size), gap, lo, hi, n, method, confidence, score_a, score_b, loss,
        _t_probability(gap, se, dof, loss), math.nan, se,
    )  # fmt: skip


def score_gaps(
    analysis: Analysis,
    confidence: float = 0.95,
    *,
    loss: float = math.nan,
    replicates: CellReplicates | None = None,
) -> list[ScoreGap]:
    """Full-data gaps for every pair in :data:`PAIRS` whose embeddings are both present."""
    present = set(analysis.embedding_names)
    return [
        score_gap(analysis, a, b, confidence=confidence, loss=loss, replicates=replicates)
        for a, b in PAIRS
        if {a, b} <= present
    ]


def seeds_to_decide(gap: ScoreGap) -> float:
    """Seeds in all that would take the interval clear of the acceptable loss if the estimate holds.

    From the interval's variance parts (hierarchical gaps only): NaN when that cannot be said, inf when
    test-set sampling alone keeps the interval across the loss, whatever the number of seeds.
    """
    distance = abs(gap.gap - gap.loss) if math.isfinite(gap.loss) else math.nan
    if gap.method != HIERARCHICAL or not (math.isfinite(distance) and math.isfinite(gap.sd_seeds)):
        return math.nan
    z = float(ndtri(0.5 + gap.confidence / 2))
    room = (distance / z) ** 2 - (gap.sd_items if math.isfinite(gap.sd_items) else 0.0) ** 2
    if distance <= 0 or room <= 0:
        return math.inf
    return float(math.ceil(gap.sd_seeds**2 * gap.n_seeds / room) if gap.sd_seeds > 0 else gap.n_seeds)
