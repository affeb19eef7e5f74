"""Score gaps at full data and the data-efficiency ratio, with their intervals.

When the run logged per-item test scores (every run since the hierarchical model; see
:mod:`advisor.stats`) the intervals come from the paired hierarchical bootstrap over
seeds *and* test sentences, and each gap carries P(gap > acceptable loss) from the same replicates.
Analyses without per-item scores (older runs, synthetic curves) fall back to intervals over seeds
only (paired t / seed bootstrap), and say so in ``method``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtr, stdtrit  # Student-t CDF / quantile; scipy.stats costs seconds to import

from advisor.analysis import Analysis
from advisor.stats import (
    CellReplicates,
    Resampler,
    cell_replicates,
    percentile_interval,
    share_above,
)
from advisor.vocabulary import PAIRS

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

HIERARCHICAL = "hierarchical bootstrap over seeds and test sentences (paired)"


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

    def resolution_text(self, more_seeds: int = 2) -> str:
        """What would narrow the interval: more seeds, or (when items dominate) a larger test set."""
        now = self.half_width
        projected = self.projected_half_width(more_seeds)
        if not (math.isfinite(now) and math.isfinite(projected)):
            return "more seeds (at least 2 per embedding) would give an interval"
        text = (
            f"{more_seeds} more seeds would narrow the interval to about ±{100 * projected:.1f} pts "
            f"(now ±{100 * now:.1f} pts)"
        )
        if self.method == HIERARCHICAL and math.isfinite(self.sd_items):
            floor = float(stdtrit(10**6, 0.5 + self.confidence / 2)) * self.sd_items
            text += (
                f"; test-set sampling alone keeps it at ±{100 * floor:.1f} pts, so beyond that only a larger "
                "evaluation set narrows it"
            )
        return text

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
    status: str  # "matches" | "bound" | "never" | "undetermined"
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

    def _interval_text(self) -> str:
        """The interval in shares of the data; an end at the smallest size tried is open, not a point."""
        if not (math.isfinite(self.ratio_lo) and math.isfinite(self.ratio_hi)):
            return ""
        never = f"; never matched in {self.share_never:.0%} of resamples" if self.share_never > 0 else ""
        if not self.at_edge(self.ratio_hi):
            lo, hi = _ratio_text(self.ratio_lo), _ratio_text(self.ratio_hi)
            return f" ({self.confidence:.0%} CI {lo} to {hi}{never})"
        edge = f"matched at the smallest size tried in {self.share_bound:.0%} of resamples{never}"
        if self.at_edge(self.ratio_lo):
            return f" ({edge})"
        most = f"at most {_ratio_text(self.ratio_lo)}" if self.ratio_lo > 0 else "up to more than all"
        return f" ({self.confidence:.0%} CI: {most} of the data, its other end censored: {edge})"

    def describe(self) -> str:
        """One plain sentence, honest about bounds and non-matches."""
        who = f"{self.embedding} reaches {self.baseline}'s full-data score ({self.target:.3f})"
        if self.status == "undetermined":
            return f"Whether {who} with less data cannot be determined (too few sizes or seeds)."
        if self.status == "never":
            return f"{self.embedding.capitalize()} never reaches {self.baseline}'s full-data score ({self.target:.3f}), even with all {self.full_size} items."
        ci = self._interval_text()
        if self.censored:
            return (
                f"{who.capitalize()} already at the smallest size tried: it needs at most 1/{self.ratio:.1f} "
                f"of the data; censored: matched at the smallest size tried, {int(self.size_needed):,} items, "
                f"so the true share may be smaller{ci}."
            )
        return f"{who.capitalize()} with about {self.size_needed:.0f} items: it needs {_ratio_text(self.ratio)} of the data{ci}."

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"fraction": self.fraction}


def _ratio_text(ratio: float) -> str:
    if not math.isfinite(ratio):
        return "an unbounded share"
    if ratio <= 0:
        return "more than all"
    return f"1/{ratio:.1f}"


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
    target = float(base_full.mean())
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
    embedding: str, baseline: str, full: int, m_emb: pd.DataFrame, n_boot: int, confidence: float
) -> DataEfficiency:
    curve = _mean_curve(m_emb.to_numpy(dtype=float)) if not m_emb.empty else np.array([])
    return DataEfficiency(
        embedding=embedding,
        baseline=baseline,
        target=math.nan,
        full_size=full,
        size_needed=math.nan,
        status="undetermined",
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
