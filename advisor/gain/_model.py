"""The gain model in MLflow: what :func:`log_gain_model` writes and :func:`load_gain_model` reads back.

Layout in the analysis (parent) run:

- ``analysis/gain_importance.json``, ``analysis/gain_contributions.json``: MLflow tables;
- ``analysis/gain_summary.json``: CV scores, verdict and insight sentences (for the report and app);
- metrics ``gain_cv_auc``, ``gain_cv_auc_sd``, ``gain_cv_r2``, ``gain_cv_r2_sd``, ``gain_learned`` (0/1);
- ``gain/gain_model.txt`` and ``gain/helps_model.txt``: the boosters in LightGBM's *text* format
  (``Booster.save_model``; never pickled, so loading runs no code and survives library upgrades);
- ``gain/gain_statistics.json``: the training-set statistics the features need (per-word label counts,
  label prior) plus the fit's metadata (features, baseline, CV fold errors), so ``predict-gain`` needs
  nothing else from the run.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor._error_codes import E820
from advisor.gain._features import TrainingStatistics
from advisor.gain._fit import GainResult

__all__ = ["GAIN_ARTIFACTS", "GainModel", "load_gain_model", "log_gain_model"]

GAIN_ARTIFACTS: dict[str, str] = {
    "gain": "gain/gain_model.txt",
    "helps": "gain/helps_model.txt",
    "statistics": "gain/gain_statistics.json",
}


@dataclass
class GainModel:
    """A logged gain model, ready to score new text: boosters, statistics and the fit's metadata."""

    statistics: TrainingStatistics
    booster: Any  # lightgbm.Booster (gain regressor)
    helps_booster: Any | None  # lightgbm.Booster (helps classifier), None when one class only
    run_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str:
        return self.statistics.task

    @property
    def features(self) -> list[str]:
        return list(self.meta["features"])

    @property
    def learned_something(self) -> bool:
        return bool(self.meta.get("learned_something", False))

    @classmethod
    def from_result(cls, result: GainResult) -> GainModel:
        return cls(
            result.statistics, result.booster, result.helps_booster, None, dict(result.statistics.extra)
        )


def _summary(result: GainResult) -> dict[str, Any]:
    return {
        "task": result.task,
        "unit": result.unit,
        "baseline": result.baseline,
        "size": result.size,
        "n_seeds": result.n_seeds,
        "features": result.features,
        "metric": result.metric,
        "learned_something": result.learned_something,
        "fit_scheme": result.fit_scheme,
        "verdict": result.verdict,
        "insights": result.insights,
        "mean_advantage": result.mean_advantage,
        "share_helps": result.share_helps,
        "model_error": result.model_error,
        "scores": {
            k: {"mean": s.mean, "sd": s.sd, "lo": s.lo, "hi": s.hi, "folds": s.folds}
            for k, s in result.scores.items()
        },
    }


def log_gain_model(result: GainResult, tracker: Any) -> None:
    """Log tables, metrics, summary, boosters (text) and statistics (JSON) to the tracker's parent run."""
    tracker.log_table(result.importance, "analysis/gain_importance.json")
    tracker.log_table(result.contributions, "analysis/gain_contributions.json")
    tracker.client.log_dict(tracker.parent_id, _summary(result), "analysis/gain_summary.json")
    metrics = {"gain_learned": float(result.learned_something)}
    for name, score in result.scores.items():
        if score.folds:
            metrics[f"gain_cv_{name}"] = score.mean
        if score.sd == score.sd:  # not NaN
            metrics[f"gain_cv_{name}_sd"] = score.sd
    tracker.log_parent_metrics(metrics)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result.booster.save_model(str(folder / Path(GAIN_ARTIFACTS["gain"]).name))
        if result.helps_booster is not None:
            result.helps_booster.save_model(str(folder / Path(GAIN_ARTIFACTS["helps"]).name))
        statistics = folder / Path(GAIN_ARTIFACTS["statistics"]).name
        statistics.write_text(json.dumps(result.statistics.to_dict(), ensure_ascii=False), encoding="utf-8")
        for path in sorted(folder.iterdir()):
            tracker.log_artifact(path, "gain")


def load_gain_model(
    run_ref: str = "latest", tracking_uri: str | None = None, experiment: str | None = None
) -> GainModel:
    """Read the gain model of an analysis run (``latest`` or a run id) from MLflow."""
    import lightgbm as lgb

    from advisor.tracking import client_for, resolve_analysis_run

    client = client_for(tracking_uri)
    run = resolve_analysis_run(client, run_ref, tracking_uri, experiment)
    run_id = run.info.run_id
    present = {a.path for a in client.list_artifacts(run_id, "gain")}
    if GAIN_ARTIFACTS["gain"] not in present or GAIN_ARTIFACTS["statistics"] not in present:
        raise E820(
            run=run_id,
            hint="the gain model is fitted by `advisor run` with the difficulty analysis on and both "
            "contextual and static (or random) embeddings; re-run it, or pass another run id",
        )
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(client.download_artifacts(run_id, "gain", tmp))
        statistics = TrainingStatistics.from_dict(
            json.loads((local / Path(GAIN_ARTIFACTS["statistics"]).name).read_text(encoding="utf-8"))
        )
        booster = lgb.Booster(model_file=str(local / Path(GAIN_ARTIFACTS["gain"]).name))
        helps_file = local / Path(GAIN_ARTIFACTS["helps"]).name
        helps = lgb.Booster(model_file=str(helps_file)) if helps_file.exists() else None
    return GainModel(statistics, booster, helps, run_id, dict(statistics.extra))
