"""Split metric values into a difficult slice (large values) and an easy slice, honestly.

Difficulty metrics are often degenerate: most NER tokens have ambiguity 1 and most entities span one
token. A quantile cut would then put identical items on both sides at random. Here the cut is always
a threshold between two *distinct* values (difficult = value >= threshold), so tied items always land
in the same slice; among those thresholds the rule picks the one whose difficult share is closest to
``target_share`` while both slices keep at least ``min_items`` items and ``min_share`` of the total.
When no threshold qualifies (all values equal, or one value holds nearly everything) the metric cannot
be split and the partition says so instead of inventing a split. Missing values (NaN) are in neither
slice: for an ambiguity metric they are the items never seen in training ("not applicable: unseen"). ``inf`` is a value like any other (the never-seen tokens of ``ner_unseen``).

A metric on which *small* values are the hard ones (``pair_overlap``: pairs sharing few words are the
hard paraphrase and entailment cases) is registered with ``higher_is_harder=False``; its cut is the
mirror image (difficult = value <= threshold), chosen by the same rule on the negated values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from advisor._error_codes import E520
from advisor.registry import metrics
from advisor.stats import share_percent

__all__ = ["Partition", "PartitionRule", "harder_when_higher", "metric_label", "partition"]


@dataclass(frozen=True)
class PartitionRule:
    """How to choose the threshold: aim at ``target_share`` difficult, never split ties.

    ``threshold`` fixes the cut instead (difficult = value >= threshold); the size checks still apply.
    The default target is a median split, which gives both slices the most items (tightest CIs).
    """

    target_share: float = 0.5
    min_share: float = 0.05
    min_items: int = 10
    threshold: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.target_share < 1.0:
            raise E520(name="target_share", requirement=f"be in (0, 1), got {self.target_share}")
        if not 0.0 <= self.min_share < 0.5:
            raise E520(name="min_share", requirement=f"be in [0, 0.5), got {self.min_share}")
        if self.min_items < 1:
            raise E520(name="min_items", requirement=f"be at least 1, got {self.min_items}")


@dataclass(frozen=True)
class Partition:
    """Result of :func:`partition`: masks aligned with the input, threshold, sizes and a description."""

    difficult: pd.Series
    easy: pd.Series
    threshold: float | None
    splittable: bool
    description: str
    higher_is_harder: bool = True  # False: difficult = value <= threshold

    @property
    def n_difficult(self) -> int:
        return int(self.difficult.sum())

    @property
    def n_easy(self) -> int:
        return int(self.easy.sum())

    @property
    def n_missing(self) -> int:
        return int(len(self.difficult) - self.n_difficult - self.n_easy)


def _format(value: float) -> str:
    return "inf" if np.isinf(value) else f"{value:.4g}"


class _Unsplittable(Exception):
    """Raised by the threshold choosers with the reason a metric cannot be split."""


def _fixed_cut(values: np.ndarray, threshold: float, smallest: int, sign: float = 1.0) -> tuple[float, int]:
    """The caller's threshold, provided both slices keep ``smallest`` items; returns (threshold, n difficult).

    ``values`` and ``threshold`` are oriented (times ``sign``: larger is harder); messages show them as given.
    """
    n = len(values)
    n_difficult = int((values >= threshold).sum())
    if min(n_difficult, n - n_difficult) < smallest:
        raise _Unsplittable(
            f"threshold {_format(sign * threshold)} leaves {n_difficult} difficult / {n - n_difficult} easy, "
            f"each slice needs at least {smallest}"
        )
    return threshold, n_difficult


def _best_cut(
    distinct: np.ndarray, counts: np.ndarray, smallest: int, target_share: float, sign: float = 1.0
) -> tuple[float, int]:
    """The tie boundary whose difficult share is closest to ``target_share`` among those leaving
    ``smallest`` items on each side; returns (threshold, n difficult). Values oriented as in :func:`_fixed_cut`."""
    n = int(counts.sum())
    if len(distinct) == 1:
        raise _Unsplittable(f"all {n} values equal {_format(sign * distinct[0])}")
    # Candidate thresholds: every distinct value but the smallest; difficult count = values >= t.
    difficult_counts = n - np.cumsum(counts)[:-1]
    allowed = np.minimum(difficult_counts, n - difficult_counts) >= smallest
    if not allowed.any():
        top = int(np.argmax(counts))
        raise _Unsplittable(
            f"{share_percent(counts[top] / n)} of {n} values tie at {_format(sign * distinct[top])}; "
            f"no cut between distinct values leaves {smallest} items on each side"
        )
    distance = np.abs(difficult_counts / n - target_share)
    distance[~allowed] = np.inf
    # Closest to the target; on a tie the higher threshold (the smaller, harder slice).
    best = len(distance) - 1 - int(np.argmin(distance[::-1]))
    return float(distinct[1:][best]), int(difficult_counts[best])


def _describe(
    name: object,
    chosen: float,
    n_difficult: int,
    n: int,
    distinct: np.ndarray,
    counts: np.ndarray,
    missing: str,
    sign: float = 1.0,
) -> str:
    """One line on the cut: threshold, slice sizes, ties that all went to the difficult side, missing values."""
    tied = int(counts[np.searchsorted(distinct, chosen)]) if chosen in distinct else 0
    shown, compare = _format(sign * chosen), ">=" if sign > 0 else "<="
    return (
        f"{name}: difficult = value {compare} {shown}: {n_difficult} difficult ({share_percent(n_difficult / n)}), "
        f"{n - n_difficult} easy"
        + (f"; all {tied} items at {shown} are difficult" if tied > 1 else "")
        + missing
    )


def harder_when_higher(name: object) -> bool:
    """The registered direction of difficulty metric ``name``; True (larger is harder) for any other name."""
    return bool(metrics.meta(str(name)).get("higher_is_harder", True)) if str(name) in metrics else True


def metric_label(name: object) -> str:
    """How prose and figures name a metric: its name, plus which end is difficult when that is the low
    one (``pair_overlap (difficult = low overlap)``), where "difficult items" would read backwards."""
    if harder_when_higher(name):
        return str(name)
    return f"{name} (difficult = low {metrics.meta(str(name)).get('property') or 'values'})"


def partition(
    values: pd.Series | np.ndarray, rule: PartitionRule | None = None, *, higher_is_harder: bool | None = None
) -> Partition:
    """Difficult = ``values >= threshold`` (``<=`` when lower is harder) at a tie boundary chosen by ``rule``.

    ``higher_is_harder`` defaults to the registered direction of the metric the series is named after
    (:func:`harder_when_higher`), so every caller slicing a metric column splits it the right way round.
    """
    rule = rule or PartitionRule()
    series = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, dtype=float))
    name = series.name if series.name is not None else "values"
    higher = harder_when_higher(name) if higher_is_harder is None else higher_is_harder
    sign = 1.0 if higher else -1.0
    array = sign * series.to_numpy(dtype=float)  # oriented: larger is harder
    present = ~np.isnan(array)
    n = int(present.sum())
    why = "not applicable: unseen in training" if "ambiguity" in str(name) else "no value"
    missing = f", {len(array) - n} in neither slice ({why})" if n < len(array) else ""
    try:
        if n == 0:
            raise _Unsplittable("no values")
        distinct, counts = np.unique(array[present], return_counts=True)
        smallest = max(rule.min_items, int(np.ceil(rule.min_share * n)))
        if rule.threshold is not None:
            chosen, n_difficult = _fixed_cut(array[present], sign * float(rule.threshold), smallest, sign)
        else:
            chosen, n_difficult = _best_cut(distinct, counts, smallest, rule.target_share, sign)
    except _Unsplittable as reason:
        nothing = pd.Series(np.zeros(len(array), dtype=bool), index=series.index)
        why_not = f"{name}: cannot split ({reason}){missing}"
        return Partition(nothing, nothing.copy(), None, False, why_not, higher)
    difficult = pd.Series(present & (array >= chosen), index=series.index)
    easy = pd.Series(present & (array < chosen), index=series.index)
    description = _describe(name, chosen, n_difficult, n, distinct, counts, missing, sign)
    return Partition(difficult, easy, sign * chosen, True, description, higher)
