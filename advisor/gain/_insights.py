"""The gain model's sentences: the overall advantage, where it sits (cross-fitted), what drives the top units.

Why cross-fitted: the test sentences are split in two halves (seeded); a regressor fitted on one half
picks the features and thresholds, and the advantage on both sides is measured on the other half
only, so no number is measured on the data that chose it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from advisor.gain._cv import MIN_UNITS, CVScore, best_threshold, importance_table, lgb_params, train_booster
from advisor.gain._features import FEATURES, item_of, unit_of

__all__ = ["explain", "halves", "insight_sentences", "top_contributions_sentence"]


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


def halves(groups: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two halves of the units, split by sentence (a sentence's units stay together), seeded."""
    unique = np.unique(groups)
    chosen = np.random.default_rng([seed, 7]).permutation(unique)[: len(unique) // 2]
    first = np.isin(groups, chosen)
    return first, ~first


def insight_sentences(
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
    choose, measure = halves(groups, seed)
    if choose.sum() < MIN_UNITS // 2 or measure.sum() < MIN_UNITS // 2:
        return sentences
    x = table[names]
    booster = train_booster(x[choose], advantage[choose], lgb_params(int(choose.sum()), "regression", seed))
    importance = importance_table(booster, "gain")
    for feature in importance.loc[importance["gain"] > 0, "feature"].head(top):
        threshold = best_threshold(booster, feature)
        if threshold is None:
            continue
        values = table[feature].to_numpy(float)[measure]
        sentence = _side_sentence(result_task, unit, feature, threshold, values, advantage[measure], baseline)
        if sentence:
            other_half = f"the other half of the test {item_of(result_task)}s"  # the halves keep items whole
            sentences.append(sentence.rstrip(".") + f" (threshold chosen on {other_half}).")
    return sentences


def explain(
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
    insights = insight_sentences(
        task, unit_of(task), table, names, groups, advantage, baseline, scores, learned, seed
    )
    verdict = insights[1]
    if learned:
        insights.append(top_contributions_sentence(contributions, task))
    return verdict, insights


def top_contributions_sentence(contributions: pd.DataFrame, task: str, share: float = 0.2) -> str:
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
