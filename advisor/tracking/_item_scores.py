"""Save and load the per-item counts the verdict's bootstrap resamples (:class:`advisor.stats.ItemScores`).

The counts are computed in :mod:`advisor.stats`; only this record layer knows where they live in a
run (one compressed ``.npz`` artifact of the parent) and how MLflow moves them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from advisor.stats import ItemScores
from advisor.tracking._layout import ITEM_SCORES_ARTIFACT

__all__ = ["ITEM_SCORES_ARTIFACT", "load_item_scores", "log_item_scores"]


def log_item_scores(tracker: Any, scores: ItemScores) -> ItemScores:
    """Log every cell's per-item counts as one compressed artifact (a few hundred KB for WNUT-17); returns them."""
    with tempfile.TemporaryDirectory() as tmp:
        path = scores.save(Path(tmp) / Path(ITEM_SCORES_ARTIFACT).name)
        tracker.log_artifact(path, str(Path(ITEM_SCORES_ARTIFACT).parent))
    return scores


def load_item_scores(client: Any, run_id: str, artifacts: set[str]) -> ItemScores | None:
    """The run's per-item counts, or None for runs logged before they existed."""
    if ITEM_SCORES_ARTIFACT not in artifacts:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        return ItemScores.load(client.download_artifacts(run_id, ITEM_SCORES_ARTIFACT, tmp))
