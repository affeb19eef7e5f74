"""bench_layers.py joins a contextual-only run with the baselines of another run: same verdict as one run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from advisor.stats import ItemScores
from advisor.verdict import recommend
from advisor.verdict._synthetic import analysis_from_item_scores
from tests.helpers import load_experiment


def _item_scores(accuracy: dict[str, float], seed: int = 0) -> ItemScores:
    """Classification counts for 3 sizes x 3 seeds per family, with per-family accuracy."""
    rng = np.random.default_rng(seed)
    keys, counts = [], []
    for family, acc in accuracy.items():
        for size in (50, 100, 200):
            for s in range(3):
                correct = (rng.random(150) < acc * (0.8 + 0.1 * np.log2(size / 50))).astype(np.int32)
                keys.append((family, size, s))
                counts.append(np.stack([correct, np.ones(150, np.int32)], axis=1))
    return ItemScores("accuracy", keys, np.stack(counts))


def _only(scores: ItemScores, families: set[str]) -> ItemScores:
    chosen = [c for c, k in enumerate(scores.keys) if k[0] in families]
    return ItemScores(scores.measure, [scores.keys[c] for c in chosen], scores.counts[chosen])


def test_joined_analysis_gives_the_verdict_of_one_run_with_every_family() -> None:
    bench = load_experiment("bench_layers")
    full_scores = _item_scores({"random": 0.6, "static": 0.7, "contextual": 0.9})
    full = analysis_from_item_scores(full_scores)
    # the reference run trained every family with another layer: its contextual cells must be ignored
    other_layer = _item_scores({"random": 0.6, "static": 0.7, "contextual": 0.3}, seed=1)
    baselines = _only(full_scores, {"random", "static"})
    reference = analysis_from_item_scores(
        ItemScores(
            "accuracy",
            baselines.keys + _only(other_layer, {"contextual"}).keys,
            np.concatenate([baselines.counts, _only(other_layer, {"contextual"}).counts]),
        )
    )
    contextual_only = analysis_from_item_scores(_only(full_scores, {"contextual"}))

    joined = bench.with_baselines(contextual_only, reference)

    assert sorted(set(joined.curves["embedding"])) == ["contextual", "random", "static"]
    assert len(joined.curves) == len(full.curves)
    expected, got = recommend(full), recommend(joined)
    assert got.verdict == expected.verdict
    assert got.gap("contextual-static").gap == pytest.approx(expected.gap("contextual-static").gap)
    assert got.gap("contextual-static").lo == pytest.approx(expected.gap("contextual-static").lo)


def test_runs_on_different_data_are_not_joined() -> None:
    bench = load_experiment("bench_layers")
    a = analysis_from_item_scores(_item_scores({"contextual": 0.9}))
    b = analysis_from_item_scores(_item_scores({"static": 0.7}))
    b = dataclasses.replace(b, dataset={**b.dataset, "content_hash": "other"})
    with pytest.raises(ValueError, match="content_hash"):
        bench.with_baselines(a, b)
