"""Statistics and scoring shared by the domain: the paired hierarchical bootstrap and strict IOB2 spans.

One layer below the rooms that use it (``advisor.verdict``, ``advisor.difficulty``,
``advisor.vocabulary``), so none of them imports another for a shared rule. Pure computation: it
imports numpy and nothing of ``advisor`` outside this package, and never touches MLflow.
"""

from __future__ import annotations

from advisor.stats._resample import (
    COUNT_COLUMNS,
    CellKey,
    CellReplicates,
    ItemScores,
    Resampler,
    cell_replicates,
    holm,
    item_scores,
    percentile_interval,
    scores_from_counts,
    share_above,
    significance_level,
    two_sided_p,
)
from advisor.stats._shares import share_percent
from advisor.stats._spans import EntitySpan, gold_entities, recognised_exactly, strict_entities, tag_type

__all__ = [
    "COUNT_COLUMNS",
    "CellKey",
    "CellReplicates",
    "EntitySpan",
    "ItemScores",
    "Resampler",
    "cell_replicates",
    "gold_entities",
    "holm",
    "item_scores",
    "percentile_interval",
    "recognised_exactly",
    "scores_from_counts",
    "share_above",
    "share_percent",
    "significance_level",
    "strict_entities",
    "tag_type",
    "two_sided_p",
]
