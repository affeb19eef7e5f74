"""The gain model's target: per evaluation unit, how much more often contextual is right than a baseline.

Why a module of its own: the target is measured from the run's predictions alone (no features, no
booster), at the largest training size where contextual and a baseline (static, else random) meet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from advisor._error_codes import E810, E811, E812
from advisor.data import Corpus, check_predictions
from advisor.grid import CellKey
from advisor.vocabulary import one_label_per_item, task_spec

__all__ = ["BASELINES", "PredictionKey", "advantage_table"]

PredictionKey = CellKey  # the predictions of one cell
BASELINES: tuple[str, ...] = ("static", "random")


def _correct_units(task: str, evaluation: Corpus, predicted: Sequence[Any], key: PredictionKey) -> np.ndarray:
    check_predictions(predicted, evaluation, key, E810, E811)
    correct = task_spec(task).unit_correct
    if one_label_per_item(task):  # classification and pairs: one label per item
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
        raise E812(found=", ".join(sorted(sizes)) or "none")
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
