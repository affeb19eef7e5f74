"""Where does context help? A LightGBM model of the contextual advantage per evaluation unit.

Target (per unit: sentence for classification, pair for pairs, token for NER; see
:mod:`advisor.gain._features`):
at the largest training size where both exist, ``advantage = mean over seeds of correct(contextual)
- mean over seeds of correct(baseline)``, baseline = static embeddings (random when static was not
run). Correct means the predicted label (classification) or tag (NER token) equals gold, so the mean
advantage over a set of units is the accuracy gain, in score units (0-1), that context brings there.

Two boosters with the same features:

- the *gain* regressor (L2) predicts the advantage: its mean over new text is the expected score gain,
  and its per-unit contributions (``pred_contrib=True``) are in score units;
- the *helps* classifier predicts ``advantage > 0`` (context right more often than the baseline): its
  mean probability is the expected share of units where context helps, and its out-of-fold AUC is
  the headline "did it learn anything" score.

Honesty: 5-fold cross-validation grouped by sentence (tokens of one sentence never straddle train and
test), small-data settings (few leaves, ``min_child_samples`` grown with the data, deterministic,
seeded, one thread). Scores come with the fold spread and a t-interval over folds; the model "learned
something" only when the AUC interval lies above 0.5 *and* the mean out-of-fold R² is positive.
Insight sentences are cross-fitted, so no number is measured on the data that chose it: the test
sentences are split in two halves (seeded); a regressor fitted on one half picks the most important
features and, for each, the split threshold that carried the most gain; the *real* advantage on
both sides of that threshold is then measured on the other half only. The "highest predicted gain"
sentence ranks units by their out-of-fold prediction. The model is fitted on the run's test split
(the only split with predictions of every cell) and says so: :data:`FIT_SCHEME`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from advisor._error_codes import E813, E814, E815
from advisor.data import Corpus, check_task
from advisor.gain._advantage import PredictionKey, advantage_table
from advisor.gain._cv import (
    MIN_UNITS,
    CVScore,
    Models,
    fit_models,
    importance_of,
    learned_something,
    lgb_params,
)
from advisor.gain._features import TrainingStatistics, default_features, gain_features, item_of, unit_of
from advisor.gain._insights import explain

__all__ = [
    "FIT_SCHEME",
    "CVScore",
    "GainResult",
    "advantage_table",
    "fit_gain_model",
    "fit_scheme_for",
    "lgb_params",
]

FIT_SCHEME = (
    "cross-fitted on the test split: scores out of fold (grouped by sentence); insight thresholds chosen "
    "on one half of the test sentences and measured on the other half; the saved model (for predict-gain) "
    "is fitted on all test units"
)


def fit_scheme_for(task: str) -> str:
    """:data:`FIT_SCHEME` in the task's words: folds and halves keep an item whole (a sentence, a pair)."""
    return FIT_SCHEME.replace("sentence", item_of(task))


@dataclass
class GainResult:
    """The fitted gain model, how well it predicts out of fold, and what it says about the data."""

    task: str
    unit: str  # the task spec's gain unit: "sentence" | "pair" | "token"
    baseline: str  # the family the contextual advantage is measured against
    size: int  # training-set size of the cells used
    n_seeds: int
    features: list[str]
    metric: str  # headline CV metric ("auc")
    cv_score: float
    cv_spread: float  # sd over folds
    scores: dict[str, CVScore]  # "auc" (helps classifier) and "r2" (gain regressor)
    learned_something: bool
    verdict: str  # one sentence saying whether the model learned anything
    importance: pd.DataFrame  # feature, model, gain, split, gain_share, rank
    contributions: pd.DataFrame  # per unit: item, unit, text, advantage, predicted_gain, p_helps, contrib_*
    insights: list[str]
    booster: Any  # lightgbm.Booster: the gain regressor
    helps_booster: Any  # lightgbm.Booster: the helps classifier
    statistics: TrainingStatistics
    mean_advantage: float  # observed mean advantage over the units
    share_helps: float  # observed share of units with advantage > 0
    model_error: dict[str, float] = field(default_factory=dict)  # sd over folds of (mean pred - mean true)
    fit_scheme: str = FIT_SCHEME

    @property
    def cv_spread_text(self) -> str:
        return self.scores[self.metric].describe()


def _check_arguments(task: str, train: Corpus, evaluation: Corpus, n_folds: int) -> None:
    """Fail early, before any feature is computed, on a task/data mismatch or too few folds."""
    check_task(task, train, evaluation, E813)
    if n_folds < 2:
        raise E814(n_folds=n_folds)


def _check_enough_units(task: str, table: pd.DataFrame) -> None:
    """Too few units make every fold score noise: refuse rather than report it."""
    if len(table) < MIN_UNITS:
        raise E815(n=len(table), unit=unit_of(task), need=MIN_UNITS)


def _unit_tables(
    task: str,
    train: Corpus,
    evaluation: Corpus,
    predictions: Mapping[PredictionKey, Sequence[Any]],
    names: list[str],
    spacy_model: str | None,
    cache_dir: Path | str | None,
) -> tuple[TrainingStatistics, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Features and target per evaluation unit, row-aligned; refuses data with too few units to fit."""
    statistics = TrainingStatistics.from_corpus(train, spacy_model=spacy_model)
    pair_split = evaluation.pair_split if evaluation.task == "pair" else None
    table = gain_features(statistics, evaluation.tokens, names, cache_dir=cache_dir, pair_split=pair_split)
    target, info = advantage_table(task, evaluation, predictions)
    _check_enough_units(task, table)
    return statistics, table, target, info


def _record_statistics(
    statistics: TrainingStatistics,
    task: str,
    names: list[str],
    info: dict[str, Any],
    learned: bool,
    errors: dict[str, float],
    advantage: np.ndarray,
    scores: dict[str, CVScore],
) -> None:
    """Store what the fit was made of next to the training statistics, so a saved model describes itself."""
    statistics.extra.update(
        {
            "features": names,
            "unit": unit_of(task),
            "baseline": info["baseline"],
            "size": info["size"],
            "n_seeds": info["n_seeds"],
            "learned_something": learned,
            "fit_scheme": fit_scheme_for(task),
            "model_error": errors,
            "mean_advantage": float(advantage.mean()),
            "share_helps": float((advantage > 0).astype(float).mean()),
            "scores": {
                k: {"mean": s.mean, "sd": s.sd, "lo": s.lo, "hi": s.hi, "folds": s.folds}
                for k, s in scores.items()
            },
        }
    )


def _result(
    task: str,
    names: list[str],
    info: dict[str, Any],
    models: Models,
    learned: bool,
    verdict: str,
    insights: list[str],
    contributions: pd.DataFrame,
    statistics: TrainingStatistics,
    advantage: np.ndarray,
) -> GainResult:
    """Assemble the result; the headline score is the helps classifier's out-of-fold AUC."""
    return GainResult(
        task=task,
        unit=unit_of(task),
        baseline=info["baseline"],
        size=info["size"],
        n_seeds=info["n_seeds"],
        features=names,
        metric="auc",
        cv_score=models.scores["auc"].mean,
        cv_spread=models.scores["auc"].sd,
        scores=models.scores,
        learned_something=learned,
        verdict=verdict,
        importance=importance_of(models.booster, models.helps_booster),
        contributions=contributions,
        insights=insights,
        booster=models.booster,
        helps_booster=models.helps_booster,
        statistics=statistics,
        mean_advantage=float(advantage.mean()),
        share_helps=float((advantage > 0).mean()),
        model_error=models.errors,
        fit_scheme=fit_scheme_for(task),
    )


def fit_gain_model(
    task: str,
    train: Corpus,
    evaluation: Corpus,
    predictions: Mapping[PredictionKey, Sequence[Any]],
    seed: int = 0,
    *,
    features: Sequence[str] | None = None,
    n_folds: int = 5,
    spacy_model: str | None = None,
    cache_dir: Path | str | None = None,
) -> GainResult:
    """Fit the gain model on the evaluation units of a finished run; see the module docstring.

    ``predictions`` maps ``(embedding, size, seed)`` to one prediction per evaluation item, as for
    :func:`advisor.difficulty.gap_analysis`. ``features`` defaults to every feature of the task (the
    parse-based complexity included; ``default_features(task, parse=False)`` skips spaCy).
    """
    _check_arguments(task, train, evaluation, n_folds)
    names = list(features) if features is not None else default_features(task)
    statistics, table, target, info = _unit_tables(
        task, train, evaluation, predictions, names, spacy_model, cache_dir
    )
    advantage = target["advantage"].to_numpy(float)
    groups = table["item"].to_numpy()
    models = fit_models(table[names], advantage, groups, n_folds, seed)
    learned = learned_something(models.scores)
    contributions = _contributions(
        table, names, target, models.booster, models.helps_booster, models.oof_gain, models.oof_help
    )
    verdict, insights = explain(
        task, table, names, groups, advantage, info["baseline"], models.scores, learned, seed, contributions
    )
    _record_statistics(statistics, task, names, info, learned, models.errors, advantage, models.scores)
    return _result(
        task, names, info, models, learned, verdict, insights, contributions, statistics, advantage
    )


def _contributions(
    table: pd.DataFrame,
    names: list[str],
    target: pd.DataFrame,
    booster: Any,
    helps_booster: Any,
    oof_gain: np.ndarray,
    oof_help: np.ndarray,
) -> pd.DataFrame:
    """Per unit: the observed advantage, in-sample and out-of-fold predictions, and the regressor's
    per-feature contributions (score units; they sum with ``contrib_bias`` to ``predicted_gain``)."""
    x = table[names]
    contrib = booster.predict(x, pred_contrib=True)
    frame = table[["item", "unit", "text"]].copy()
    frame["advantage"] = target["advantage"].to_numpy()
    frame["contextual_correct"] = target["contextual_correct"].to_numpy()
    frame["baseline_correct"] = target["baseline_correct"].to_numpy()
    frame["predicted_gain"] = booster.predict(x)
    frame["oof_gain"] = oof_gain
    frame["p_helps"] = helps_booster.predict(x) if helps_booster is not None else float("nan")
    frame["oof_p_helps"] = oof_help
    for k, name in enumerate(names):
        frame[f"contrib_{name}"] = contrib[:, k]
    frame["contrib_bias"] = contrib[:, -1]
    top = np.argmax(contrib[:, :-1], axis=1) if names else np.zeros(len(frame), int)
    frame["top_feature"] = [names[k] for k in top] if names else ""
    return frame
