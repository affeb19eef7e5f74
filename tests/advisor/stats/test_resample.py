"""The hierarchical bootstrap's parts: per-item counts reproduce the logged scores, they round-trip
through a file, and Holm's step-down adjustment."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.stats import ItemScores, holm, item_scores
from trainers import ner_scores


def test_item_counts_reproduce_seqeval_strict_f1_on_raw_predictions() -> None:
    rng = np.random.default_rng(0)
    tags = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    gold = [list(rng.choice(tags, size=int(rng.integers(1, 9)))) for _ in range(60)]
    gold = [
        ["B-PER" if t.startswith("I-") and (i == 0 or s[i - 1] == "O") else t for i, t in enumerate(s)]
        for s in gold
    ]
    predicted = [list(rng.choice(tags, size=len(s))) for s in gold]  # stray I- tags included
    scores = item_scores("ner", gold, {("static", 10, 0): predicted, ("contextual", 10, 0): gold})
    assert scores.measure == "f1" and scores.counts.shape == (2, 60, 3)
    assert scores.score(("static", 10, 0)) == pytest.approx(ner_scores(gold, predicted)["f1"])
    assert scores.score(("contextual", 10, 0)) == pytest.approx(1.0)


def test_item_scores_round_trip(tmp_path) -> None:
    scores = item_scores("classify", ["a", "b", "a"], {("random", 3, 1): ["a", "a", "a"]})
    again = ItemScores.load(scores.save(tmp_path / "s.npz"))
    assert again.keys == [("random", 3, 1)] and again.score(("random", 3, 1)) == pytest.approx(2 / 3)


def test_holm_adjusts_step_down_and_ignores_nan() -> None:
    adjusted = holm([0.01, 0.04, float("nan"), 0.03])
    assert adjusted[0] == pytest.approx(0.03)  # 3 x 0.01
    assert adjusted[3] == pytest.approx(0.06)  # 2 x 0.03
    assert adjusted[1] == pytest.approx(0.06)  # max(1 x 0.04, previous)
    assert np.isnan(adjusted[2])
