"""Where does context help? A LightGBM model of the contextual advantage per evaluation unit.

Target (per unit: sentence for classification, token for NER; see :mod:`advisor.gain._features`):
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

from advisor._error_codes import E810, E811, E813
from advisor.data import Corpus, check_predictions, check_task
from advisor.errors import ConfigError, InputError
from advisor.gain._features import FEATURES, TrainingStatistics, default_features, gain_features, unit_of
from advisor.vocabulary import task_spec

__all__ = ["CVScore", "GainResult", "advantage_table", "fit_gain_model", "lgb_params"]

PredictionKey = tuple[str, int, int]
BASELINES: tuple[str, ...] = ("static", "random")
NUM_BOOST_ROUND = 100
MIN_UNITS = 30
FIT_SCHEME = (
    "cross-fitted on the test split: scores out of fold (grouped by sentence); insight thresholds chosen "
    "on one half of the test sentences and measured on the other half; the saved model (for predict-gain) "
    "is fitted on all test units"
)


@dataclass(frozen=True)
class CVScore:
    """A cross-validated score: per-fold values, their mean, spread and a t-interval over folds."""

    name: str
    folds: list[float]
    mean: float
    sd: float
    lo: float
    hi: float

    @classmethod
    def from_folds(cls, name: str, folds: Sequence[float], confidence: float = 0.95) -> CVScore:
        from scipy import stats

        values = [float(v) for v in folds if np.isfinite(v)]
        if not values:
            return cls(name, [], float("nan"), float("nan"), float("nan"), float("nan"))
        mean = float(np.mean(values))
        if len(values) < 2:
            return cls(name, values, mean, float("nan"), float("nan"), float("nan"))
        sd = float(np.std(values, ddof=1))
        half = float(stats.t.ppf(0.5 + confidence / 2, len(values) - 1)) * sd / np.sqrt(len(values))
        return cls(name, values, mean, sd, mean - half, mean + half)

    def describe(self) -> str:
        if not self.folds:
            return f"CV {self.name} not computable"
        return (
            f"CV {self.name} {self.mean:.3f} (sd {self.sd:.3f} over {len(self.folds)} folds, "
            f"95 % CI {self.lo:.3f}-{self.hi:.3f})"
        )


@dataclass
class GainResult:
    """The fitted gain model, how well it predicts out of fold, and what it says about the data."""

    task: str
    unit: str  # "sentence" | "token"
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


def lgb_params(n_units: int, objective: str, seed: int = 0) -> dict[str, Any]:
    """Small-data-safe LightGBM settings: few shallow leaves, leaves need a share of the data, one thread."""
    return {
        "objective": objective,
        "learning_rate": 0.05,
        "num_leaves": 7,
        "max_depth": 3,
        "min_child_samples": max(5, min(100, n_units // 20)),
        "min_data_in_bin": 1,
        "lambda_l2": 1.0,
        "feature_pre_filter": False,
        "deterministic": True,
        "force_row_wise": True,
        "seed": seed,
        "num_threads": 1,
        "verbose": -1,
    }


def _correct_units(task: str, evaluation: Corpus, predicted: Sequence[Any], key: PredictionKey) -> np.ndarray:
    check_predictions(predicted, evaluation, key, E810, E811)
    correct = task_spec(task).unit_correct
    if task == "classify":
        pairs = zip(predicted, evaluation.labels, strict=True)
        return np.array([correct("sentence", g, p, 0, 1) for p, g in pairs], float)
    flat: list[float] = []
    for tags, gold in zip(predicted, evaluation.labels, strict=True):
        flat.extend(float(correct("token", g, tags, k, k + 1)) for k, g in enumerate(gold))
    return np.array(flat, dtype=float)


def advantage_table(
    task: str, evaluation: Corpus, predictions: Mapping[PredictionKey, Sequence[Any]]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per unit: mean correctness of contextual and baseline over seeds, and ``advantage`` = their difference.

    Uses the largest size at which contextual and a baseline (static, else random) both have cells.
    Returns the table (rows in :func:`gain_features` order) and ``{"baseline", "size", "n_seeds"}``.
    """
    sizes: dict[str, set[int]] = {}
    for embedding, size, _ in predictions:
        sizes.setdefault(embedding, set()).add(int(size))
    chosen: tuple[str, int] | None = None
    for baseline in BASELINES:
        common = sizes.get("contextual", set()) & sizes.get(baseline, set())
        if common:
            chosen = (baseline, max(common))
            break
    if chosen is None:
        raise ConfigError(
            "the gain model needs contextual and static (or random) predictions at a common size",
            hint=f"run both families; found: {', '.join(sorted(sizes)) or 'none'}",
            code="E812",
        )
    baseline, size = chosen
    columns: dict[str, np.ndarray] = {}
    n_seeds = {}
    for family in ("contextual", baseline):
        keys = [k for k in predictions if k[0] == family and int(k[1]) == size]
        n_seeds[family] = len(keys)
        columns[family] = np.mean([_correct_units(task, evaluation, predictions[k], k) for k in keys], axis=0)
    table = pd.DataFrame(
        {
            "contextual_correct": columns["contextual"],
            "baseline_correct": columns[baseline],
            "advantage": columns["contextual"] - columns[baseline],
        }
    )
    return table, {"baseline": baseline, "size": size, "n_seeds": min(n_seeds.values())}


def _train(features: pd.DataFrame, target: np.ndarray, params: dict[str, Any]) -> Any:
    import lightgbm as lgb

    data = lgb.Dataset(features, label=target, free_raw_data=False)
    return lgb.train(params, data, num_boost_round=NUM_BOOST_ROUND)


def _cross_validate(
    features: pd.DataFrame,
    advantage: np.ndarray,
    groups: np.ndarray,
    n_folds: int,
    seed: int,
) -> tuple[dict[str, CVScore], dict[str, float], np.ndarray, np.ndarray]:
    """Grouped K-fold: per-fold AUC (helps) and R² (gain), fold biases of the means, out-of-fold predictions."""
    from sklearn.metrics import r2_score, roc_auc_score
    from sklearn.model_selection import GroupKFold

    helps = (advantage > 0).astype(float)
    splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    aucs, r2s, gain_bias, share_bias = [], [], [], []
    oof_gain = np.full(len(advantage), np.nan)
    oof_help = np.full(len(advantage), np.nan)
    for train_idx, test_idx in splitter.split(features, advantage, groups):
        x_train, x_test = features.iloc[train_idx], features.iloc[test_idx]
        regressor = _train(x_train, advantage[train_idx], lgb_params(len(train_idx), "regression", seed))
        predicted = regressor.predict(x_test)
        oof_gain[test_idx] = predicted
        gain_bias.append(float(predicted.mean() - advantage[test_idx].mean()))
        if np.var(advantage[test_idx]) > 0:
            r2s.append(float(r2_score(advantage[test_idx], predicted)))
        if 0 < helps[train_idx].sum() < len(train_idx):
            classifier = _train(x_train, helps[train_idx], lgb_params(len(train_idx), "binary", seed))
            probability = classifier.predict(x_test)
        else:  # one class only in the training folds: the best guess is its share
            probability = np.full(len(test_idx), helps[train_idx].mean())
        oof_help[test_idx] = probability
        share_bias.append(float(probability.mean() - helps[test_idx].mean()))
        if 0 < helps[test_idx].sum() < len(test_idx):
            aucs.append(float(roc_auc_score(helps[test_idx], probability)))
    scores = {"auc": CVScore.from_folds("AUC", aucs), "r2": CVScore.from_folds("R²", r2s)}
    errors = {
        "gain": float(np.std(gain_bias, ddof=1)) if len(gain_bias) > 1 else float("nan"),
        "share": float(np.std(share_bias, ddof=1)) if len(share_bias) > 1 else float("nan"),
    }
    return scores, errors, oof_gain, oof_help


def _importance(booster: Any, model: str) -> pd.DataFrame:
    names = booster.feature_name()
    gain = booster.feature_importance(importance_type="gain")
    split = booster.feature_importance(importance_type="split")
    total = float(gain.sum()) or 1.0
    table = pd.DataFrame(
        {"feature": names, "model": model, "gain": gain.astype(float), "split": split.astype(int)}
    )
    table["gain_share"] = table["gain"] / total
    table = table.sort_values(["gain", "feature"], ascending=[False, True]).reset_index(drop=True)
    table["rank"] = np.arange(1, len(table) + 1)
    return table


def _best_threshold(booster: Any, feature: str) -> float | None:
    """The split threshold on ``feature`` that carried the most total split gain in the booster."""
    trees = booster.trees_to_dataframe()
    splits = trees[trees["split_feature"] == feature]
    if splits.empty:
        return None
    by_threshold = splits.groupby("threshold")["split_gain"].sum()
    return float(by_threshold.idxmax())


def _format_value(value: float, kind: str) -> str:
    if kind == "share":
        return f"{value:.0%}"
    return f"{value:.3g}"


def _describe_sides(task: str, unit: str, feature: str, threshold: float) -> tuple[str, str]:
    """How to name the units above and at-or-below a threshold of ``feature``."""
    spec = FEATURES[task][feature]
    units = f"{unit}s"
    if feature == "ner_unseen":  # 1 / count: above t means seen fewer than 1/t times
        if threshold >= 1.0:
            return "tokens never seen in training", "tokens seen in training"
        times = f"{1.0 / threshold:.3g}"
        return f"tokens seen fewer than {times} times in training", f"tokens seen at least {times} times"
    if spec.kind == "flag":
        return f"{units} {spec.phrase}", f"{units} not {spec.phrase}"
    shown = _format_value(threshold, spec.kind)
    return f"{units} whose {spec.phrase} is above {shown}", f"{units} whose {spec.phrase} is at most {shown}"


def _side_sentence(
    task: str,
    unit: str,
    feature: str,
    threshold: float,
    values: np.ndarray,
    advantage: np.ndarray,
    baseline: str,
) -> str | None:
    """The *measured* advantage on both sides of a threshold, as a sentence; None when a side is empty."""
    above = values > threshold
    if above.all() or not above.any():
        return None
    score = "token accuracy" if task == "ner" else "accuracy"
    gain_above = 100 * float(advantage[above].mean())
    gain_below = 100 * float(advantage[~above].mean())
    high, low = _describe_sides(task, unit, feature, threshold)
    if gain_above >= gain_below:
        where, n, there, elsewhere = high, int(above.sum()), gain_above, gain_below
    else:
        where, n, there, elsewhere = low, int((~above).sum()), gain_below, gain_above
    return (
        f"The gain sits on {where} ({n:,} of {len(values):,} {unit}s): {there:+.1f} points of {score} "
        f"over {baseline} there, {elsewhere:+.1f} elsewhere."
    )


def _halves(groups: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two halves of the units, split by sentence (a sentence's units stay together), seeded."""
    unique = np.unique(groups)
    chosen = np.random.default_rng([seed, 7]).permutation(unique)[: len(unique) // 2]
    first = np.isin(groups, chosen)
    return first, ~first


def _insights(
    result_task: str,
    unit: str,
    table: pd.DataFrame,
    names: list[str],
    groups: np.ndarray,
    advantage: np.ndarray,
    baseline: str,
    scores: dict[str, CVScore],
    learned: bool,
    seed: int,
    top: int = 3,
) -> list[str]:
    score = "token accuracy" if result_task == "ner" else "accuracy"
    overall = (
        f"Overall, contextual embeddings beat {baseline} by {100 * advantage.mean():+.1f} points of {score} "
        f"and are right where {baseline} is wrong on {np.mean(advantage > 0):.0%} of {unit}s "
        f"(wrong where it is right on {np.mean(advantage < 0):.0%})."
    )
    if not learned:
        return [
            overall,
            f"The gain model learned nothing reliable ({scores['auc'].describe()}; {scores['r2'].describe()}): "
            f"on this data the advantage is not predictable from the features, so expect the overall number "
            f"everywhere rather than a targeted gain.",
        ]
    sentences = [overall, f"The gain model predicts where context helps: {scores['auc'].describe()}."]
    choose, measure = _halves(groups, seed)
    if choose.sum() < MIN_UNITS // 2 or measure.sum() < MIN_UNITS // 2:
        return sentences
    x = table[names]
    booster = _train(x[choose], advantage[choose], lgb_params(int(choose.sum()), "regression", seed))
    importance = _importance(booster, "gain")
    for feature in importance.loc[importance["gain"] > 0, "feature"].head(top):
        threshold = _best_threshold(booster, feature)
        if threshold is None:
            continue
        values = table[feature].to_numpy(float)[measure]
        sentence = _side_sentence(result_task, unit, feature, threshold, values, advantage[measure], baseline)
        if sentence:
            sentences.append(
                sentence.rstrip(".") + " (threshold chosen on the other half of the test sentences)."
            )
    return sentences


def _check_arguments(task: str, train: Corpus, evaluation: Corpus, n_folds: int) -> None:
    """Fail early, before any feature is computed, on a task/data mismatch or too few folds."""
    check_task(task, train, evaluation, E813)
    if n_folds < 2:
        raise ConfigError(f"n_folds must be at least 2, got {n_folds}", code="E814")


def _check_enough_units(task: str, table: pd.DataFrame) -> None:
    """Too few units make every fold score noise: refuse rather than report it."""
    if len(table) < MIN_UNITS:
        raise InputError(
            f"only {len(table)} evaluation {unit_of(task)}s: too few to fit a gain model (need {MIN_UNITS})",
            hint="use a larger evaluation split",
            code="E815",
        )


@dataclass(frozen=True)
class _Models:
    """Both boosters fitted on all units, with their out-of-fold scores, fold biases and predictions."""

    booster: Any  # the gain regressor
    helps_booster: Any  # the helps classifier; None when only one class occurs
    scores: dict[str, CVScore]
    errors: dict[str, float]
    oof_gain: np.ndarray
    oof_help: np.ndarray


def _fit_models(
    x: pd.DataFrame, advantage: np.ndarray, groups: np.ndarray, n_folds: int, seed: int
) -> _Models:
    """Score out of fold first (never more folds than sentences), then fit the saved models on all units."""
    folds = min(n_folds, len(np.unique(groups)))
    scores, errors, oof_gain, oof_help = _cross_validate(x, advantage, groups, folds, seed)
    helps = (advantage > 0).astype(float)
    booster = _train(x, advantage, lgb_params(len(x), "regression", seed))
    if 0 < helps.sum() < len(helps):
        helps_booster = _train(x, helps, lgb_params(len(x), "binary", seed))
    else:
        helps_booster = None
    return _Models(booster, helps_booster, scores, errors, oof_gain, oof_help)


def _learned(scores: dict[str, CVScore]) -> bool:
    """The model learned something only when the AUC interval clears 0.5 *and* out-of-fold R² is positive."""
    auc, r2 = scores["auc"], scores["r2"]
    return bool(np.isfinite(auc.lo) and auc.lo > 0.5 and np.isfinite(r2.mean) and r2.mean > 0)


def _importance_of(booster: Any, helps_booster: Any) -> pd.DataFrame:
    """Feature importance of both boosters in one table (the classifier's only when it exists)."""
    return pd.concat(
        [_importance(booster, "gain")] + ([_importance(helps_booster, "helps")] if helps_booster else []),
        ignore_index=True,
    )


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
    table = gain_features(statistics, evaluation.tokens, names, cache_dir=cache_dir)
    target, info = advantage_table(task, evaluation, predictions)
    _check_enough_units(task, table)
    return statistics, table, target, info


def _explain(
    task: str,
    table: pd.DataFrame,
    names: list[str],
    groups: np.ndarray,
    advantage: np.ndarray,
    baseline: str,
    scores: dict[str, CVScore],
    learned: bool,
    seed: int,
    contributions: pd.DataFrame,
) -> tuple[str, list[str]]:
    """The verdict (second insight) and all insights; the per-unit summary only for a model that learned."""
    insights = _insights(
        task, unit_of(task), table, names, groups, advantage, baseline, scores, learned, seed
    )
    verdict = insights[1]
    if learned:
        insights.append(_top_contributions_sentence(contributions, task))
    return verdict, insights


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
            "fit_scheme": FIT_SCHEME,
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
    models: _Models,
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
        importance=_importance_of(models.booster, models.helps_booster),
        contributions=contributions,
        insights=insights,
        booster=models.booster,
        helps_booster=models.helps_booster,
        statistics=statistics,
        mean_advantage=float(advantage.mean()),
        share_helps=float((advantage > 0).mean()),
        model_error=models.errors,
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
    parse-based ``classify_complexity`` included; pass a list without it to skip spaCy).
    """
    _check_arguments(task, train, evaluation, n_folds)
    names = list(features) if features is not None else default_features(task)
    statistics, table, target, info = _unit_tables(
        task, train, evaluation, predictions, names, spacy_model, cache_dir
    )
    advantage = target["advantage"].to_numpy(float)
    groups = table["item"].to_numpy()
    models = _fit_models(table[names], advantage, groups, n_folds, seed)
    learned = _learned(models.scores)
    contributions = _contributions(
        table, names, target, models.booster, models.helps_booster, models.oof_gain, models.oof_help
    )
    verdict, insights = _explain(
        task, table, names, groups, advantage, info["baseline"], models.scores, learned, seed, contributions
    )
    _record_statistics(statistics, task, names, info, learned, models.errors, advantage, models.scores)
    return _result(
        task, names, info, models, learned, verdict, insights, contributions, statistics, advantage
    )


def _top_contributions_sentence(contributions: pd.DataFrame, task: str, share: float = 0.2) -> str:
    """Per-unit explanation, summarised: which feature pushes the predicted gain up on the units where
    the model expects the most gain (its top ``share`` by *out-of-fold* prediction, so the observed
    advantage quoted there is not measured on the data that ranked them)."""
    unit = unit_of(task)
    cutoff = contributions["oof_gain"].quantile(1.0 - share)
    top = contributions[contributions["oof_gain"] >= cutoff]
    counts = top["top_feature"].value_counts()
    feature, n = str(counts.index[0]), int(counts.iloc[0])
    observed = 100 * float(top["advantage"].mean())
    return (
        f"On the {len(top):,} {unit}s with the highest out-of-fold predicted gain (top {share:.0%}; observed "
        f"{observed:+.1f} points there), the largest per-{unit} contribution comes from {feature} for "
        f"{n / len(top):.0%} of them ({FEATURES[task][feature].phrase})."
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
