"""The data-efficiency ratio: how much less data contextual needs to match a cheaper embedding.

The full-data score gaps live in :mod:`advisor.verdict._gaps` (re-exported here). The ratio's
interval comes from the hierarchical bootstrap when the run logged per-item scores, else from a
percentile bootstrap over seeds only, and says so in ``method``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.stats import CellReplicates, percentile_interval
from advisor.verdict._codes import HIERARCHICAL
from advisor.verdict._gaps import (
    PAIRS,
    ScoreGap,
    analysis_replicates,
    curve_summary,
    score_gap,
    score_gaps,
)
from advisor.verdict._phrases import efficiency_sentence

__all__ = [
    "HIERARCHICAL",
    "PAIRS",
    "DataEfficiency",
    "ScoreGap",
    "analysis_replicates",
    "curve_summary",
    "data_efficiency",
    "matching_size",
    "score_gap",
    "score_gaps",
]


def matching_size(sizes: np.ndarray, curve: np.ndarray, target: float) -> tuple[float, str]:
    """Smallest training size from which ``curve`` stays at or above ``target``.

    Interpolated linearly in log(size) between the last grid point below the target and the first
    one of the run that stays above it (a single lucky point followed by a dip does not count; a
    missing point counts as below).
    Returns ``(size, status)`` with status ``"matches"``, ``"bound"`` (already at the smallest size:
    the true size is at most that, so the ratio is a lower bound) or ``"never"`` (``size`` is inf).
    """
    order = np.argsort(sizes)
    sizes_sorted = np.asarray(sizes, float)[order]
    curve_sorted = np.asarray(curve, float)[order]
    if len(sizes_sorted) == 0:
        return math.inf, "never"
    size, status = _matching_sizes(sizes_sorted, curve_sorted[None, :], np.array([float(target)]))
    return float(size[0]), str(status[0])


def _matching_sizes(
    sizes: np.ndarray, curves: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`matching_size` for many curves at once (rows of ``curves``, sizes ascending)."""
    n_rows, n_sizes = curves.shape
    below = ~(curves >= targets[:, None])  # NaN counts as below: an unfinished size proves nothing
    any_below = below.any(axis=1)
    last_below = n_sizes - 1 - np.argmax(below[:, ::-1], axis=1)
    never = below[:, -1]
    result = np.full(n_rows, np.inf)
    status = np.full(n_rows, "never", dtype=object)
    bound = ~any_below
    result[bound], status[bound] = sizes[0], "bound"
    ok = any_below & ~never
    i = last_below[ok]
    x0, x1 = np.log(sizes[i]), np.log(sizes[i + 1])
    rows = np.flatnonzero(ok)
    y0, y1 = curves[rows, i], curves[rows, i + 1]
    with np.errstate(invalid="ignore"):
        t = np.where(np.isfinite(y0), (targets[ok] - y0) / (y1 - y0), 1.0)  # unknown y0: no credit below y1
    result[ok], status[ok] = np.exp(x0 + t * (x1 - x0)), "matches"
    return result, status


@dataclass
class DataEfficiency:
    """How much less data ``embedding`` needs to match ``baseline``'s full-data score.

    ``ratio`` = full size / matching size: "contextual needs 1/ratio of the data". With status
    ``"bound"`` the result is ``censored``: matched already at the smallest size tried, so the ratio
    is a lower bound (the runner extends the grid downwards to a floor before it settles for that);
    with ``"never"`` the embedding did not match even with all data (ratio 0). The interval is a
    percentile bootstrap over seeds (``n_boot`` resamples of the seeds, curves re-averaged in each);
    an end of it at the smallest size tried is censored too, and is worded as such, never as a point.
    """

    embedding: str
    baseline: str
    target: float  # baseline's mean score at full data
    full_size: int
    size_needed: float  # inf when never matched
    status: str  # "matches" | "bound" | "never" | "undetermined" | "nothing to match" (baseline scored 0)
    ratio: float  # full_size / size_needed (0 when never)
    ratio_lo: float
    ratio_hi: float
    share_never: float  # share of bootstrap resamples in which it never matched
    share_bound: float  # share of bootstrap resamples matched already at the smallest size
    sizes: list[int] = field(default_factory=list)
    curve: list[float] = field(default_factory=list)  # embedding's mean score per size (for figures)
    n_boot: int = 0
    confidence: float = 0.95
    method: str = "percentile bootstrap over seeds"
    censored: bool = False  # matched at the smallest size tried: "needs at most 1/ratio"

    @property
    def fraction(self) -> float:
        """Share of the full training set needed (inf when never matched)."""
        return self.size_needed / self.full_size if self.full_size else math.nan

    def at_edge(self, ratio: float) -> bool:
        """Whether ``ratio`` is pinned at the smallest size tried (so it only bounds the true one)."""
        if not self.sizes or not math.isfinite(ratio):
            return False
        return ratio >= self.full_size / min(self.sizes) * (1 - 1e-9)

    def describe(self) -> str:
        """The renderer's sentence for this result (:func:`advisor.verdict._phrases.efficiency_sentence`)."""
        return efficiency_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"fraction": self.fraction}


def _mean_curve(matrix: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        counts = np.isfinite(matrix).sum(axis=1)
        sums = np.nansum(matrix, axis=1)
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


@dataclass(frozen=True)
class _RatioBootstrap:
    """The bootstrap interval of the ratio, and how often a resample never matched or matched at once."""

    lo: float
    hi: float
    share_never: float
    share_bound: float
    n_boot: int
    method: str = "percentile bootstrap over seeds"


def _hierarchical_ratios(
    replicates: CellReplicates | None,
    embedding: str,
    baseline: str,
    sizes: np.ndarray,
    full: int,
    confidence: float,
) -> _RatioBootstrap | None:
    """Ratio interval from the hierarchical replicates: each replicate re-averages the curves over the
    drawn seeds under the drawn test sentences (the same draws for every size and for the baseline).
    None when some needed cell has no replicates (then the caller falls back to seeds only)."""
    groups = [(embedding, int(size)) for size in sizes] + [(baseline, full)]
    if replicates is None or not all(g in replicates.replicates for g in groups):
        return None
    curves = np.stack([replicates.seed_mean(embedding, int(size)) for size in sizes], axis=1)
    targets = replicates.seed_mean(baseline, full)
    ok = np.isfinite(targets)
    boot_sizes, statuses = _matching_sizes(sizes, curves[ok], targets[ok])
    ratios = np.where(np.isfinite(boot_sizes), full / boot_sizes, 0.0)
    lo, hi = percentile_interval(ratios, confidence)
    share_never, share_bound = float(np.mean(statuses == "never")), float(np.mean(statuses == "bound"))
    return _RatioBootstrap(lo, hi, share_never, share_bound, len(ratios), HIERARCHICAL)


def _seed_ratios(
    emb: np.ndarray,
    emb_seeds: list[Any],
    base_full: np.ndarray,
    base_seeds: list[Any],
    sizes: np.ndarray,
    full: int,
    n_boot: int,
    confidence: float,
    random_state: int,
) -> _RatioBootstrap:
    """Ratio interval from a percentile bootstrap over seeds; seeds run by both embeddings are
    resampled jointly (a seed fixes the training subset: the paired design)."""
    rng = np.random.default_rng(random_state)
    pick_e = rng.integers(0, len(emb_seeds), (n_boot, len(emb_seeds)))
    paired = emb_seeds == base_seeds
    pick_b = pick_e if paired else rng.integers(0, len(base_seeds), (n_boot, len(base_seeds)))
    with np.errstate(invalid="ignore"):
        resampled = emb[:, pick_e]  # sizes x n_boot x seeds
        curves = np.nanmean(resampled, axis=2).T  # n_boot x sizes
    targets = base_full[pick_b].mean(axis=1)
    boot_sizes, statuses = _matching_sizes(sizes, curves, targets)
    ratios = np.where(np.isfinite(boot_sizes), full / boot_sizes, 0.0)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(ratios, [alpha, 1 - alpha], method="inverted_cdf") if n_boot else (math.nan,) * 2
    if len(emb_seeds) < 2 or len(base_seeds) < 2:
        lo = hi = math.nan  # resampling one seed says nothing
    return _RatioBootstrap(
        float(lo),
        float(hi),
        float(np.mean(statuses == "never")) if n_boot else math.nan,
        float(np.mean(statuses == "bound")) if n_boot else math.nan,
        n_boot,
    )


def data_efficiency(
    analysis: Analysis,
    embedding: str = "contextual",
    baseline: str = "static",
    n_boot: int = 2000,
    confidence: float = 0.95,
    random_state: int = 0,
    *,
    replicates: CellReplicates | None = None,
) -> DataEfficiency:
    """Smallest share of training data at which ``embedding`` matches ``baseline`` at full data.

    With ``replicates`` (per-item scores logged) the interval is the hierarchical bootstrap's,
    else a percentile bootstrap over seeds only.
    """
    m_emb, m_base = analysis.score_matrix(embedding), analysis.score_matrix(baseline)
    full = analysis.full_size
    if m_emb.empty or m_base.empty or full not in m_base.index:
        return _undetermined(embedding, baseline, full, m_emb, n_boot, confidence)
    sizes = m_emb.index.to_numpy(dtype=float)
    emb = m_emb.to_numpy(dtype=float)
    base_full = m_base.loc[full].to_numpy(dtype=float)
    base_full = base_full[np.isfinite(base_full)]
    target = float(base_full.mean()) if len(base_full) else math.nan
    if not target > 0:  # the baseline learned nothing (F1 0.0): any curve "matches" it, which says nothing
        status = "nothing to match" if target == 0 else "undetermined"
        return _undetermined(
            embedding, baseline, full, m_emb, n_boot, confidence, target=target, status=status
        )
    curve = _mean_curve(emb)
    size_needed, status = matching_size(sizes, curve, target)
    if len(sizes) < 2:
        status = "undetermined" if status != "never" else status
    base_seeds = list(m_base.loc[full].dropna().index)
    boot = _hierarchical_ratios(replicates, embedding, baseline, sizes, full, confidence) or _seed_ratios(
        emb, list(m_emb.columns), base_full, base_seeds, sizes, full, n_boot, confidence, random_state
    )
    return DataEfficiency(
        embedding=embedding,
        baseline=baseline,
        target=target,
        full_size=full,
        size_needed=size_needed,
        status=status,
        ratio=full / size_needed if math.isfinite(size_needed) else 0.0,
        ratio_lo=boot.lo,
        ratio_hi=boot.hi,
        share_never=boot.share_never,
        share_bound=boot.share_bound,
        sizes=[int(s) for s in sizes],
        curve=[float(c) for c in curve],
        n_boot=boot.n_boot,
        confidence=confidence,
        method=boot.method,
        censored=status == "bound",
    )


def _undetermined(
    embedding: str,
    baseline: str,
    full: int,
    m_emb: pd.DataFrame,
    n_boot: int,
    confidence: float,
    *,
    target: float = math.nan,
    status: str = "undetermined",
) -> DataEfficiency:
    """No ratio: too little data (``"undetermined"``) or a baseline that scored 0 (``"nothing to match"``)."""
    curve = _mean_curve(m_emb.to_numpy(dtype=float)) if not m_emb.empty else np.array([])
    return DataEfficiency(
        embedding=embedding,
        baseline=baseline,
        target=target,
        full_size=full,
        size_needed=math.nan,
        status=status,
        ratio=math.nan,
        ratio_lo=math.nan,
        ratio_hi=math.nan,
        share_never=math.nan,
        share_bound=math.nan,
        sizes=[int(s) for s in m_emb.index] if not m_emb.empty else [],
        curve=[float(c) for c in curve],
        n_boot=n_boot,
        confidence=confidence,
    )
