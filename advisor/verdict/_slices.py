"""Difficulty slices: is a pair's gap carried by the difficult items of a metric, Holm-corrected."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from advisor.stats import holm, significance_level
from advisor.verdict._codes import BASELINES, CONTEXTUAL
from advisor.verdict._phrases import slice_sentence

__all__ = ["CONTEXTUAL_PAIRS", "SliceFinding", "slice_findings"]

#: The pairs whose slices the verdict reads: contextual against each cheaper family of the paper.
CONTEXTUAL_PAIRS: tuple[str, ...] = tuple(f"{CONTEXTUAL}-{b}" for b in BASELINES)


@dataclass
class SliceFinding:
    """Whether the gap of ``pair`` differs between difficult and easy items for one difficulty metric."""

    metric: str
    pair: str
    size: int
    gap_difficult: float
    gap_easy: float
    difference: float  # gap_difficult - gap_easy
    lo: float
    hi: float
    n_difficult: int
    n_easy: int
    carried_by: str  # "difficult" | "easy" | "unclear"
    p_value: float = math.nan  # bootstrap p of "no difference"
    p_holm: float = math.nan  # Holm-adjusted over every finding of the family

    def describe(self) -> str:
        """The renderer's sentence for this finding (:func:`advisor.verdict._phrases.slice_sentence`)."""
        return slice_sentence(self)


def _number(value: Any) -> float:
    """Missing values (None after a JSON round-trip through MLflow) become NaN, not a crash."""
    return math.nan if value is None else float(value)


def slice_findings(
    slices: pd.DataFrame | None,
    pairs: tuple[str, ...] = CONTEXTUAL_PAIRS,
    confidence: float = 0.95,
) -> list[SliceFinding]:
    """Read the difficulty gap table at its largest size: which slices carry each pair's gap.

    Every (metric, pair) is one test of "the gap is the same on difficult and easy items"; a slice
    carries the gap only when its Holm-adjusted bootstrap p-value is strictly below 1 - ``confidence``
    (0.05 exactly for 0.95: a p of 0.05 is not significant).
    Tables without p-values (older runs) fall back to the uncorrected interval.
    """
    if slices is None or slices.empty:
        return []
    findings: list[SliceFinding] = []
    size = int(slices["size"].max())
    at = slices[slices["size"] == size]
    for pair in pairs:
        rows = at[at["pair"] == pair]
        for metric in dict.fromkeys(rows["metric"]):
            by_slice = rows[rows["metric"] == metric].set_index("slice")
            if "difficult-minus-easy" not in by_slice.index:
                continue
            diff = by_slice.loc["difficult-minus-easy"]
            hard = by_slice.loc["difficult"] if "difficult" in by_slice.index else None
            easy = by_slice.loc["easy"] if "easy" in by_slice.index else None
            lo, hi = _number(diff["gap_lo"]), _number(diff["gap_hi"])
            carried = "difficult" if lo > 0 else "easy" if hi < 0 else "unclear"
            p_value = _number(diff["p_value"]) if "p_value" in diff.index else math.nan
            findings.append(
                SliceFinding(
                    metric=str(metric),
                    pair=pair,
                    size=size,
                    gap_difficult=_number(hard["gap"]) if hard is not None else math.nan,
                    gap_easy=_number(easy["gap"]) if easy is not None else math.nan,
                    difference=_number(diff["gap"]),
                    lo=lo,
                    hi=hi,
                    n_difficult=int(hard["n_items"]) if hard is not None else 0,
                    n_easy=int(easy["n_items"]) if easy is not None else 0,
                    carried_by=carried,
                    p_value=p_value,
                )
            )
    adjusted, alpha = holm([f.p_value for f in findings]), significance_level(confidence)
    for finding, p_holm in zip(findings, adjusted, strict=True):
        finding.p_holm = p_holm
        if math.isfinite(p_holm):
            significant = p_holm < alpha
            finding.carried_by = (
                "unclear" if not significant else "difficult" if finding.difference > 0 else "easy"
            )
    return findings
