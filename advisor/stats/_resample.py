"""One uncertainty model for every figure the verdict states: a paired, hierarchical bootstrap.

A score has two sources of variance: training randomness (the seed fixes the subset draw, the
initialisation and the random table) and the finite test set. The seeds-only t-interval used
before saw the first and ignored the second, although with ~1k test items the test-sampling error
of a paired accuracy gap alone is about a point. Each bootstrap replicate here

1. draws the seeds with replacement, one draw shared by every embedding and size (paired: a seed
   fixes the same training subset for all embeddings);
2. draws the test-item clusters with replacement, one draw shared by every cell (the test set is
   common to all seeds and embeddings): classification items are sentences, NER clusters are
   sentences with all their entities;
3. recomputes every cell's score from per-item sufficient statistics (accuracy: correct / items;
   strict IOB2 entity F1: 2 TP / (2 TP + FP + FN) with the counts summed over the drawn sentences),
   averages the drawn seeds and forms the statistic (gap, data-efficiency ratio, slice gap).

Small-seed correction: resampling n seeds with replacement shrinks their variance by (n - 1) / n
(to 2/3 with three seeds), so each replicate's seed deviation from the all-seed mean is scaled by
sqrt(n / (n - 1)). With one seed only the test items are resampled, and the verdict says so.

Intervals are percentile intervals of the replicates; a probability such as P(gap > acceptable
loss) is the share of replicates above it, so an "inconclusive" still says which way it leans.

Pure computation: the verdict's gaps and the difficulty slices both resample with it, so it sits
below both, and the record layer (``advisor.tracking``) saves and loads the :class:`ItemScores`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from advisor.stats._spans import strict_entities

__all__ = [
    "COUNT_COLUMNS",
    "CellKey",
    "CellReplicates",
    "ItemScores",
    "Resampler",
    "cell_replicates",
    "holm",
    "item_scores",
    "percentile_interval",
    "scores_from_counts",
    "share_above",
    "significance_level",
    "two_sided_p",
]

CellKey = tuple[str, int, int]

#: Per-item statistics per measure: accuracy keeps (correct, items), F1 keeps (tp, fp, fn).
COUNT_COLUMNS: dict[str, tuple[str, ...]] = {"accuracy": ("correct", "n"), "f1": ("tp", "fp", "fn")}


def scores_from_counts(measure: str, totals: np.ndarray) -> np.ndarray:
    """Score from summed counts along the last axis: accuracy or strict entity micro-F1 (0 when empty)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if measure == "accuracy":
            return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], np.nan)
        tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
        denominator = 2 * tp + fp + fn
        return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1e-12), 0.0)


def _ner_counts(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> np.ndarray:
    counts = np.zeros((len(gold), 3), dtype=np.int32)
    for i, (g, p) in enumerate(zip(gold, predicted, strict=True)):
        true, found = strict_entities(g), strict_entities(p)
        hits = len(true & found)
        counts[i] = (hits, len(found) - hits, len(true) - hits)
    return counts


@dataclass
class ItemScores:
    """Per test item, per cell, the counts a score is computed from: what the bootstrap resamples.

    ``counts[c, i]`` holds cell ``keys[c]``'s counts on test item ``i`` (columns in
    :data:`COUNT_COLUMNS`): summing over all items gives exactly the logged score.
    """

    measure: str  # "accuracy" | "f1"
    keys: list[CellKey]
    counts: np.ndarray  # (cells, items, k)
    _index: dict[CellKey, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.keys = [(str(e), int(s), int(d)) for e, s, d in self.keys]
        self._index = {key: c for c, key in enumerate(self.keys)}

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[1])

    @property
    def seeds(self) -> list[int]:
        return sorted({seed for _, _, seed in self.keys})

    def has(self, embedding: str, size: int) -> bool:
        return any(e == embedding and s == size for e, s, _ in self.keys)

    def score(self, key: CellKey) -> float:
        """The cell's score on the whole test set (equals the logged score)."""
        return float(scores_from_counts(self.measure, self.counts[self._index[key]].sum(axis=0)))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        keys = np.array([f"{e}\t{s}\t{d}" for e, s, d in self.keys])
        np.savez_compressed(path, measure=np.array(self.measure), keys=keys, counts=self.counts)
        return path

    @classmethod
    def load(cls, path: str | Path) -> ItemScores:
        with np.load(path, allow_pickle=False) as data:
            keys = [tuple(str(k).split("\t")) for k in data["keys"]]
            return cls(str(data["measure"]), [(e, int(s), int(d)) for e, s, d in keys], data["counts"].copy())


def item_scores(task: str, gold: Sequence[Any], predictions: Mapping[CellKey, Sequence[Any]]) -> ItemScores:
    """Per-item counts of every cell: NER per-sentence strict-IOB2 TP/FP/FN on the raw predictions,
    classification per-item correctness."""
    keys = sorted(predictions)
    if task == "ner":
        counts = np.stack([_ner_counts(gold, predictions[k]) for k in keys]) if keys else np.zeros((0, 0, 3))
        return ItemScores("f1", keys, counts)
    gold_array = np.asarray([str(g) for g in gold], dtype=object)
    rows = []
    for key in keys:
        correct = np.asarray([str(p) for p in predictions[key]], dtype=object) == gold_array
        rows.append(np.stack([correct.astype(np.int32), np.ones(len(gold_array), np.int32)], axis=1))
    counts = np.stack(rows) if rows else np.zeros((0, len(gold_array), 2), np.int32)
    return ItemScores("accuracy", keys, counts)


@dataclass
class Resampler:
    """The replicate draws: seeds (shared by every embedding) and test-item weights (shared by every cell).

    The same ``(n_items, seeds, n_boot, random_state)`` always gives the same draws, so the verdict's
    gaps and the difficulty slices are resampled identically.
    """

    n_items: int
    seeds: list[int]
    n_boot: int = 2000
    random_state: int = 0
    seed_draws: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.seeds = sorted(int(s) for s in self.seeds)
        rng = np.random.default_rng([self.random_state, 1])
        n = max(len(self.seeds), 1)
        self.seed_draws = rng.integers(0, n, size=(self.n_boot, n))

    @property
    def inflation(self) -> float:
        """sqrt(n / (n - 1)): undoes the shrinkage of resampling n seeds; 0 with one seed (no seed term)."""
        n = len(self.seeds)
        return math.sqrt(n / (n - 1)) if n > 1 else 0.0

    def item_totals(self, sums: np.ndarray) -> np.ndarray:
        """``sums`` (items, columns) summed under each replicate's item draw: (n_boot, columns)."""
        rng = np.random.default_rng([self.random_state, 2])
        n = self.n_items
        out = np.empty((self.n_boot, sums.shape[1]))
        chunk = max(1, min(self.n_boot, 2_000_000 // max(n, 1)))
        for start in range(0, self.n_boot, chunk):
            b = min(chunk, self.n_boot - start)
            draws = rng.integers(0, n, size=(b, n))
            flat = (draws + np.arange(b)[:, None] * n).ravel()
            weights = np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)
            out[start : start + b] = weights @ sums
        return out

    def seed_average(self, per_seed: np.ndarray) -> np.ndarray:
        """Replicates ``(n_boot, len(seeds))`` (NaN = cell missing) -> seed-resampled means ``(n_boot,)``."""
        with np.errstate(invalid="ignore"), _quiet():
            everyone = np.nanmean(per_seed, axis=1)
            if len(self.seeds) < 2:
                return everyone
            drawn = np.nanmean(np.take_along_axis(per_seed, self.seed_draws, axis=1), axis=1)
        return everyone + self.inflation * (drawn - everyone)

    def components(self, per_seed: np.ndarray) -> tuple[float, float]:
        """Standard deviations of the item part and of the (corrected) seed part of the replicates."""
        with np.errstate(invalid="ignore"), _quiet():
            everyone = np.nanmean(per_seed, axis=1)
            if len(self.seeds) < 2:
                return float(np.nanstd(everyone)), math.nan
            drawn = np.nanmean(np.take_along_axis(per_seed, self.seed_draws, axis=1), axis=1)
        return float(np.nanstd(everyone)), float(np.nanstd(self.inflation * (drawn - everyone)))


class _quiet:
    """Silence numpy's "mean of empty slice" warnings: an all-NaN replicate is NaN, on purpose."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)


@dataclass
class CellReplicates:
    """Every cell's score under every replicate: ``(n_boot, len(seeds))`` per (embedding, size)."""

    resampler: Resampler
    point: dict[tuple[str, int], np.ndarray]  # per-seed scores on the whole test set (NaN = missing)
    replicates: dict[tuple[str, int], np.ndarray]

    def mean_point(self, embedding: str, size: int) -> float:
        with _quiet():
            return float(np.nanmean(self.point[(embedding, size)]))

    def seed_mean(self, embedding: str, size: int) -> np.ndarray:
        return self.resampler.seed_average(self.replicates[(embedding, size)])


def cell_replicates(scores: ItemScores, resampler: Resampler) -> CellReplicates:
    """Score every cell under every replicate (one matrix product for all cells)."""
    k = scores.counts.shape[2]
    sums = scores.counts.transpose(1, 0, 2).reshape(scores.n_items, -1).astype(float)
    totals = resampler.item_totals(sums).reshape(resampler.n_boot, len(scores.keys), k)
    per_cell = scores_from_counts(scores.measure, totals)  # (n_boot, cells)
    full = scores_from_counts(scores.measure, scores.counts.sum(axis=1).astype(float))  # (cells,)
    column = {seed: j for j, seed in enumerate(resampler.seeds)}
    point: dict[tuple[str, int], np.ndarray] = {}
    reps: dict[tuple[str, int], np.ndarray] = {}
    for c, (embedding, size, seed) in enumerate(scores.keys):
        if seed not in column:
            continue
        group = (embedding, size)
        if group not in reps:
            reps[group] = np.full((resampler.n_boot, len(resampler.seeds)), np.nan)
            point[group] = np.full(len(resampler.seeds), np.nan)
        reps[group][:, column[seed]] = per_cell[:, c]
        point[group][column[seed]] = full[c]
    return CellReplicates(resampler, point, reps)


def percentile_interval(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = replicates[np.isfinite(replicates)]
    if not len(finite):
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(finite, [tail, 1 - tail])
    return float(lo), float(hi)


def share_above(replicates: np.ndarray, threshold: float) -> float:
    """P(statistic > threshold) under the bootstrap: the share of finite replicates above it."""
    finite = replicates[np.isfinite(replicates)]
    return float(np.mean(finite > threshold)) if len(finite) else math.nan


def two_sided_p(replicates: np.ndarray) -> float:
    """Bootstrap p-value of "the statistic is 0": twice the smaller tail share, at least 1 / replicates."""
    finite = replicates[np.isfinite(replicates)]
    if not len(finite):
        return math.nan
    tail = min(np.mean(finite <= 0), np.mean(finite >= 0))
    return float(min(1.0, max(2 * tail, 1 / len(finite))))


def significance_level(confidence: float) -> float:
    """The test level that goes with ``confidence`` intervals, as the Method section states it: 0.95 gives
    exactly 0.05 (``1 - 0.95`` is 0.050000000000000044, which would count a p of 0.05 as below it)."""
    return round(1.0 - confidence, 12)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down; NaN stays NaN and does not count in the family)."""
    values = np.asarray(p_values, dtype=float)
    finite = np.flatnonzero(np.isfinite(values))
    adjusted = np.full(len(values), np.nan)
    m = len(finite)
    order = finite[np.argsort(values[finite], kind="stable")]
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return adjusted.tolist()
