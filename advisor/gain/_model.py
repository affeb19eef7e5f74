"""A fitted gain model as files: what it needs to score new text, and how it is written and read back.

Why files, not MLflow: the gain package computes and predicts; where the files live in a run is the
record layer's business (``advisor.tracking.log_gain_model`` / ``load_gain_model``). In one folder:

- ``gain_model.txt`` and ``helps_model.txt``: the boosters in LightGBM's *text* format
  (``Booster.save_model``; never pickled, so loading runs no code and survives library upgrades);
- ``gain_statistics.json``: the training-set statistics the features need (per-word label counts,
  label prior) plus the fit's metadata (features, baseline, CV fold errors), so ``predict-gain``
  needs nothing else from the run.

:func:`gain_summary` is the fit's report (CV scores, verdict, insight sentences) as plain data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.gain._features import TrainingStatistics
from advisor.gain._fit import GainResult

__all__ = ["GAIN_FILES", "GainModel", "gain_summary", "save_gain_files"]

#: The model's files, by role; ``helps`` is absent when the fit saw one class only.
GAIN_FILES: dict[str, str] = {
    "gain": "gain_model.txt",
    "helps": "helps_model.txt",
    "statistics": "gain_statistics.json",
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

    @classmethod
    def load(cls, folder: Path, run_id: str | None = None) -> GainModel:
        """Read the files :func:`save_gain_files` wrote into ``folder``."""
        import lightgbm as lgb

        text = (folder / GAIN_FILES["statistics"]).read_text(encoding="utf-8")
        statistics = TrainingStatistics.from_dict(json.loads(text))
        booster = lgb.Booster(model_file=str(folder / GAIN_FILES["gain"]))
        helps_file = folder / GAIN_FILES["helps"]
        helps = lgb.Booster(model_file=str(helps_file)) if helps_file.exists() else None
        return cls(statistics, booster, helps, run_id, dict(statistics.extra))


def save_gain_files(result: GainResult, folder: Path) -> list[Path]:
    """Write the boosters (text) and the statistics (JSON) into ``folder``; the files, sorted."""
    result.booster.save_model(str(folder / GAIN_FILES["gain"]))
    if result.helps_booster is not None:
        result.helps_booster.save_model(str(folder / GAIN_FILES["helps"]))
    statistics = folder / GAIN_FILES["statistics"]
    statistics.write_text(json.dumps(result.statistics.to_dict(), ensure_ascii=False), encoding="utf-8")
    return sorted(folder.iterdir())


def gain_summary(result: GainResult) -> dict[str, Any]:
    """The fit's report as plain data: CV scores, verdict and insight sentences (for the report and app)."""
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
