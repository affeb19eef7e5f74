"""Save and load a run's serving measurements (:class:`advisor.costs.ServingMeasurements`).

Measured by the run's serving stage (``advisor.pipeline``); here only where they live: one JSON
artifact of the parent, plus per-embedding parent metrics the MLflow UI can chart.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from advisor.costs import ServingMeasurements
from advisor.tracking._layout import SERVING_ARTIFACT

__all__ = ["load_serving", "log_serving"]


def log_serving(tracker: Any, measured: ServingMeasurements) -> None:
    """The measurements as the parent's artifact (replacing any earlier one) and metrics."""
    tracker.log_dict(measured.to_dict(), SERVING_ARTIFACT)
    tracker.log_parent_metrics(measured.metrics())


def load_serving(store: Any, run_id: str, artifacts: set[str] | None = None) -> ServingMeasurements | None:
    """The run's serving measurements; None for runs from before the dedicated pass.

    ``store`` lists and downloads the run's artifacts; ``artifacts``: the run's ``analysis/`` listing,
    when the caller has it.
    """
    if artifacts is None:
        artifacts = {a.path for a in store.list_artifacts(run_id, "analysis")}
    if SERVING_ARTIFACT not in artifacts:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        local = store.download_artifacts(run_id, SERVING_ARTIFACT, tmp)
        return ServingMeasurements.from_dict(json.loads(Path(local).read_text(encoding="utf-8")))
