"""The two boosters of the gain model and their honest scores: grouped K-fold, fitted on all units after.

Why apart from the fit: the insight sentences train a booster of their own on half the units with
the same settings (:func:`lgb_params`, :func:`train_booster`), and the scores here are what the
fit's verdict ("learned something") rests on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "MIN_UNITS",
    "NUM_BOOST_ROUND",
    "CVScore",
    "Models",
    "best_threshold",
    "cross_validate",
    "fit_models",
    "importance_of",
    "importance_table",
    "learned_something",
    "lgb_params",
    "train_booster",
]

NUM_BOOST_ROUND = 100
#: Fewer evaluation units make every fold score noise: the fit refuses them.
MIN_UNITS = 30


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


def train_booster(features: pd.DataFrame, target: np.ndarray, params: dict[str, Any]) -> Any:
    import lightgbm as lgb

    data = lgb.Dataset(features, label=target, free_raw_data=False)
    return lgb.train(params, data, num_boost_round=NUM_BOOST_ROUND)


def cross_validate(
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
        regressor = train_booster(
            x_train, advantage[train_idx], lgb_params(len(train_idx), "regression", seed)
        )
        predicted = regressor.predict(x_test)
        oof_gain[test_idx] = predicted
        gain_bias.append(float(predicted.mean() - advantage[test_idx].mean()))
        if np.var(advantage[test_idx]) > 0:
            r2s.append(float(r2_score(advantage[test_idx], predicted)))
        if 0 < helps[train_idx].sum() < len(train_idx):
            classifier = train_booster(x_train, helps[train_idx], lgb_params(len(train_idx), "binary", seed))
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


def importance_table(booster: Any, model: str) -> pd.DataFrame:
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


def best_threshold(booster: Any, feature: str) -> float | None:
    """The split threshold on ``feature`` that carried the most total split gain in the booster."""
    trees = booster.trees_to_dataframe()
    splits = trees[trees["split_feature"] == feature]
    if splits.empty:
        return None
    by_threshold = splits.groupby("threshold")["split_gain"].sum()
    return float(by_threshold.idxmax())


@dataclass(frozen=True)
class Models:
    """Both boosters fitted on all units, with their out-of-fold scores, fold biases and predictions."""

    booster: Any  # the gain regressor
    helps_booster: Any  # the helps classifier; None when only one class occurs
    scores: dict[str, CVScore]
    errors: dict[str, float]
    oof_gain: np.ndarray
    oof_help: np.ndarray


def fit_models(x: pd.DataFrame, advantage: np.ndarray, groups: np.ndarray, n_folds: int, seed: int) -> Models:
    """Score out of fold first (never more folds than sentences), then fit the saved models on all units."""
    folds = min(n_folds, len(np.unique(groups)))
    scores, errors, oof_gain, oof_help = cross_validate(x, advantage, groups, folds, seed)
    helps = (advantage > 0).astype(float)
    booster = train_booster(x, advantage, lgb_params(len(x), "regression", seed))
    if 0 < helps.sum() < len(helps):
        helps_booster = train_booster(x, helps, lgb_params(len(x), "binary", seed))
    else:
        helps_booster = None
    return Models(booster, helps_booster, scores, errors, oof_gain, oof_help)


def learned_something(scores: dict[str, CVScore]) -> bool:
    """The model learned something only when the AUC interval clears 0.5 *and* out-of-fold R² is positive."""
    auc, r2 = scores["auc"], scores["r2"]
    return bool(np.isfinite(auc.lo) and auc.lo > 0.5 and np.isfinite(r2.mean) and r2.mean > 0)


def importance_of(booster: Any, helps_booster: Any) -> pd.DataFrame:
    """Feature importance of both boosters in one table (the classifier's only when it exists)."""
    return pd.concat(
        [importance_table(booster, "gain")]
        + ([importance_table(helps_booster, "helps")] if helps_booster else []),
        ignore_index=True,
    )
