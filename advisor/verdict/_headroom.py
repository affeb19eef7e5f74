"""The fine-tuning headroom: what freezing the encoder leaves on the table, and at what cost.

The fine-tuned reference (``advisor.finetune``) is not one of the families the verdict chooses
between (it runs at one or two sizes only): the decision is made on the frozen families, and this
module adds one line above them, "fine-tuning would add X pts (CI) at Y× the training cost", from
the same hierarchical bootstrap as every other gap (paired seeds and test sentences).

The frozen side of the cost is one encoder pass over train/dev/test from raw text plus the
downstream model's training. The encoder pass is what it cost when the features were computed
(recorded in the feature cache, ``encode_seconds``), never this run's featurize seconds: with a
warm cache those are ~1 s, and the multiple changed with cache state (31× on WNUT-17 warm, ~9×
cold). Runs logged before that metric existed fall back to their featurize seconds.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from advisor.analysis import Analysis
from advisor.verdict._codes import CONTEXTUAL
from advisor.verdict._gaps import ScoreGap, score_gap
from advisor.verdict._phrases import headroom_sentence
from advisor.vocabulary import is_frozen, ordered

__all__ = ["Headroom", "fine_tuning_headroom", "frozen_only", "reference_family"]

BASELINE = CONTEXTUAL


def reference_family(analysis: Analysis) -> str | None:
    """The costliest family in the run that is not frozen (the fine-tuned reference), if one ran.

    Asked of the registry (``Family.frozen``), never by name: a new reference family is one module.
    """
    present = ordered(set(analysis.curves["embedding"]))
    references = [name for name in present if not is_frozen(name)]
    return references[-1] if references else None


@dataclass
class Headroom:
    """Fine-tuned minus frozen contextual at the largest size both ran, with the cost multiples."""

    gap: ScoreGap
    finetuned_train_seconds: float  # median over seeds at ``gap.size``
    contextual_train_seconds: float  # the frozen model's downstream training, same size
    contextual_encode_seconds: float  # the frozen encoder's one pass over train/dev/test, from raw text
    latency_ratio: float  # serving latency at batch 1, fine-tuned / frozen contextual

    @property
    def train_ratio(self) -> float:
        """Training cost multiple: fine-tuning vs featurizing once + training the frozen downstream model."""
        frozen = self.contextual_train_seconds + _zero_if_nan(self.contextual_encode_seconds)
        return self.finetuned_train_seconds / frozen if frozen > 0 else math.nan

    def describe(self) -> str:
        """The renderer's sentence for this result (:func:`advisor.verdict._phrases.headroom_sentence`)."""
        return headroom_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"train_ratio": self.train_ratio, "text": self.describe()}


def _zero_if_nan(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def frozen_only(analysis: Analysis) -> Analysis:
    """The analysis without the families that are not frozen (the fine-tuned reference): what the
    verdict decides on."""
    curves = analysis.curves
    frozen = curves["embedding"].map(is_frozen).astype(bool)
    if frozen.all():
        return analysis
    return replace(analysis, curves=curves[frozen].reset_index(drop=True))


def _median(analysis: Analysis, embedding: str, size: int, column: str) -> float:
    rows = analysis.curves
    if column not in rows.columns:
        return math.nan
    values = rows[(rows["embedding"] == embedding) & (rows["size"] == size)][column].astype(float)
    return float(np.nanmedian(values)) if values.notna().any() else math.nan


def _fact(analysis: Analysis, embedding: str, column: str) -> float:
    facts = analysis.embeddings
    if facts is None or not len(facts) or column not in facts.columns or "embedding" not in facts.columns:
        return math.nan
    rows = facts[facts["embedding"] == embedding][column]
    return float(rows.iloc[0]) if len(rows) and rows.notna().iloc[0] else math.nan


def _encode_seconds(analysis: Analysis) -> float:
    """The frozen encoder's raw-text pass over every split (older runs: their featurize seconds)."""
    seconds = _fact(analysis, BASELINE, "encode_seconds")
    return seconds if math.isfinite(seconds) else _fact(analysis, BASELINE, "featurize_seconds")


def fine_tuning_headroom(
    analysis: Analysis, confidence: float = 0.95, replicates: Any = None
) -> Headroom | None:
    """The headroom line's numbers, or None when the fine-tuned reference did not run (or shares no size)."""
    curves, reference = analysis.curves, reference_family(analysis)
    if reference is None:
        return None
    tuned = set(curves.loc[curves["embedding"] == reference, "size"])
    frozen = set(curves.loc[curves["embedding"] == BASELINE, "size"])
    common = sorted(int(s) for s in tuned & frozen)
    if not common:
        return None
    size = common[-1]
    gap = score_gap(analysis, reference, BASELINE, size, confidence, replicates=replicates)
    tuned_latency = _fact(analysis, reference, "serving_ms_per_item_b1")
    frozen_latency = _fact(analysis, BASELINE, "serving_ms_per_item_b1")
    return Headroom(
        gap=gap,
        finetuned_train_seconds=_median(analysis, reference, size, "train_seconds"),
        contextual_train_seconds=_median(analysis, BASELINE, size, "train_seconds"),
        contextual_encode_seconds=_encode_seconds(analysis),
        latency_ratio=tuned_latency / frozen_latency if frozen_latency > 0 else math.nan,
    )
