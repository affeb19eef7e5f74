"""Save and load the gain model (:mod:`advisor.gain`) in an analysis (parent) run.

Layout: ``analysis/gain_importance.json``, ``analysis/gain_contributions.json`` (MLflow tables);
``analysis/gain_summary.json`` (CV scores, verdict and insight sentences for the report and app);
metrics ``gain_cv_auc``, ``gain_cv_auc_sd``, ``gain_cv_r2``, ``gain_cv_r2_sd``, ``gain_learned``
(0/1); the model's files (:data:`advisor.gain.GAIN_FILES`) under ``gain/``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from advisor._error_codes import E820
from advisor.gain import GAIN_FILES, GainModel, GainResult, gain_summary, save_gain_files
from advisor.tracking._layout import (
    GAIN_CONTRIBUTIONS_TABLE,
    GAIN_FOLDER,
    GAIN_IMPORTANCE_TABLE,
    GAIN_SUMMARY,
)
from advisor.tracking._reader import resolve_analysis_run
from advisor.tracking._store import client_for

__all__ = ["GAIN_ARTIFACTS", "load_gain_model", "log_gain_model"]

#: The model's artifacts in the run, by role.
GAIN_ARTIFACTS: dict[str, str] = {role: f"{GAIN_FOLDER}/{name}" for role, name in GAIN_FILES.items()}


def log_gain_model(tracker: Any, result: GainResult) -> None:
    """Log tables, metrics, summary, boosters (text) and statistics (JSON) to the tracker's parent run."""
    tracker.log_table(result.importance, GAIN_IMPORTANCE_TABLE)
    tracker.log_table(result.contributions, GAIN_CONTRIBUTIONS_TABLE)
    tracker.log_dict(gain_summary(result), GAIN_SUMMARY)
    metrics = {"gain_learned": float(result.learned_something)}
    for name, score in result.scores.items():
        if score.folds:
            metrics[f"gain_cv_{name}"] = score.mean
        if score.sd == score.sd:  # not NaN
            metrics[f"gain_cv_{name}_sd"] = score.sd
    tracker.log_parent_metrics(metrics)
    with tempfile.TemporaryDirectory() as tmp:
        for path in save_gain_files(result, Path(tmp)):
            tracker.log_artifact(path, GAIN_FOLDER)


def load_gain_model(
    run_ref: str = "latest", tracking_uri: str | None = None, experiment: str | None = None
) -> GainModel:
    """Read the gain model of an analysis run (``latest`` or a run id) from MLflow."""
    client = client_for(tracking_uri)
    run = resolve_analysis_run(client, run_ref, tracking_uri, experiment)
    run_id = run.info.run_id
    present = {a.path for a in client.list_artifacts(run_id, GAIN_FOLDER)}
    if GAIN_ARTIFACTS["gain"] not in present or GAIN_ARTIFACTS["statistics"] not in present:
        raise E820(
            run=run_id,
            hint="the gain model is fitted by `advisor run` with the difficulty analysis on and both "
            "contextual and static (or random) embeddings; re-run it, or pass another run id",
        )
    with tempfile.TemporaryDirectory() as tmp:
        return GainModel.load(Path(client.download_artifacts(run_id, GAIN_FOLDER, tmp)), run_id)
