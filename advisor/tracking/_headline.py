"""What MLflow's runs table shows at a glance: each child's params and the parent's headline metrics.

Why: a reader of the runs table (or of its compare view's parallel-coordinates plot) should tell the
runs apart and see the answer without opening an artifact. Every child logs its family, seed, largest
size, width and options, and the training settings it ran with; the parent logs, once the verdict is
known, the full-data score of every family, the main gap (contextual against the cheap family the
verdict weighed it against) with its interval in points, and contextual's serving-cost ratios.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from advisor.analysis import Analysis
from advisor.vocabulary import PAPER_FAMILIES

if TYPE_CHECKING:  # read by attribute only: the record layer does not load the verdict's modules
    from advisor.verdict import Recommendation

__all__ = ["TRAIN_PARAMS_DROPPED", "child_params", "headline_metrics"]

#: TrainConfig fields that are no setting of the model (the seed is the child's own param; the
#: device and thread count are the machine's).
TRAIN_PARAMS_DROPPED = ("seed", "device", "num_threads")
CONTEXTUAL = PAPER_FAMILIES[-1]  # the costly family the verdict weighs against a cheap one


def child_params(
    embedding: str,
    seed: int,
    options: dict[str, Any],
    max_size: int | None = None,
    dim: int | None = None,
    train: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A child run's params: family, seed, largest training size, width, the family's options and the
    training settings (``train``: a TrainConfig dict with the learning rate the family trained with;
    None for a family that trains itself, whose options hold its own)."""
    params: dict[str, Any] = {"embedding": embedding, "family": embedding, "seed": seed, **options}
    if max_size is not None:
        params["max_size"] = max_size
    if dim is not None and "dim" not in params:
        params["dim"] = dim
    for key, value in (train or {}).items():
        if key not in TRAIN_PARAMS_DROPPED and value is not None:
            params.setdefault(key, value)
    return params


def _finite(metrics: dict[str, float]) -> dict[str, float]:
    return {k: float(v) for k, v in metrics.items() if v is not None and math.isfinite(float(v))}


def _main_gap(rec: Recommendation) -> Any:
    """The gap the verdict turned on: the trade-off's pair, else contextual's smallest gap, else the first."""
    pair = (rec.tradeoff.values.get("pair") if rec.tradeoff is not None else None) or ""
    chosen = rec.gap(pair) if pair else None
    if chosen is None:
        contextual = [g for g in rec.gaps if g.a == CONTEXTUAL]
        chosen = min(contextual, key=lambda g: g.gap) if contextual else None
    return chosen if chosen is not None else (rec.gaps[0] if rec.gaps else None)


def headline_metrics(rec: Recommendation, analysis: Analysis) -> dict[str, float]:
    """``full_score.<family>`` (mean over seeds at the full size, the score's own scale), the main gap
    ``gap_pts.<a>_vs_<b>`` with ``gap_pts_lo.`` / ``gap_pts_hi.`` (points) and contextual's cost
    ratios ``latency_ratio.`` (batch 1) and ``batch_ratio.`` (batch 64) against the same family."""
    metrics: dict[str, float] = {}
    full = analysis.full_size
    for name in analysis.embedding_names:
        matrix = analysis.score_matrix(name)
        if full in matrix.index:
            metrics[f"full_score.{name}"] = float(matrix.loc[full].mean())
    gap = _main_gap(rec)
    if gap is not None:
        pair = f"{gap.a}_vs_{gap.b}"
        metrics |= {
            f"gap_pts.{pair}": 100 * gap.gap,
            f"gap_pts_lo.{pair}": 100 * gap.lo,
            f"gap_pts_hi.{pair}": 100 * gap.hi,
        }
        if rec.costs is not None:
            ratio = f"{gap.a}/{gap.b}"
            metrics[f"latency_ratio.{pair}"] = rec.costs.ratio(ratio, "latency_ms_per_item")
            metrics[f"batch_ratio.{pair}"] = rec.costs.ratio(ratio, "batch_ms_per_item")
    return _finite(metrics)
