"""The featurize stage: the random baseline's table is drawn from the cell seed (it differs between seeds,
not between runs), and random borrows static's mean norm when both are fitted in one run."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from advisor.data import read_splits
from advisor.grid import plan_grid, profiles
from advisor.pipeline import featurize_missing
from tests.helpers import write_ner


def _quiet(event: object) -> None: ...


def _event(*args: object, **kwargs: object) -> object:
    return args


class _NoTracker:
    """Featurization logs two things to MLflow; this test only looks at the tables."""

    def log_parent_metrics(self, metrics: dict) -> None: ...

    def log_parent_params_once(self, params: dict) -> None: ...


def test_random_table_differs_between_seeds_and_repeats_for_the_same_seed(
    tmp_path: Path, tiny_vectors_file: Path
) -> None:
    files = {part: str(write_ner(tmp_path / f"{part}.conll", n, i)) for i, (part, n) in
             enumerate((("train", 30), ("dev", 8), ("test", 10)))}  # fmt: skip
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    plan = plan_grid(len(splits.train), ["random"], profiles.get("quick"), sizes=[30], seeds=2)
    options = {"random": {"dim": 8, "static_path": str(tiny_vectors_file)}}

    def tables() -> dict[int, np.ndarray]:
        features = featurize_missing(
            plan, plan.cells, options, splits, _NoTracker(), {}, _quiet, _event, None
        )
        return {seed: table.matrix.copy() for seed, table in features["random"].items()}

    first, again = tables(), tables()
    assert sorted(first) == [0, 1]
    assert not np.allclose(first[0], first[1])
    for seed in (0, 1):
        np.testing.assert_array_equal(first[seed], again[seed])


def test_random_borrows_the_norm_of_static_fitted_first(tmp_path: Path, tiny_vectors_file: Path) -> None:
    from advisor.embeddings import load_vectors

    files = {part: str(write_ner(tmp_path / f"{part}.conll", n, i)) for i, (part, n) in
             enumerate((("train", 30), ("dev", 8), ("test", 10)))}  # fmt: skip
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    plan = plan_grid(len(splits.train), ["random", "static"], profiles.get("quick"), sizes=[30], seeds=1)
    options = {"random": {"dim": 8}, "static": {"path": str(tiny_vectors_file)}}
    features = featurize_missing(plan, plan.cells, options, splits, _NoTracker(), {}, _quiet, _event, None)
    expected = load_vectors(str(tiny_vectors_file)).mean_norm
    assert np.isclose(features["random"][0].target_norm, expected)  # not the packaged GloVe's norm


def test_the_heap_is_trimmed_after_each_embedding(
    tmp_path: Path, tiny_vectors_file: Path, monkeypatch
) -> None:
    from advisor.pipeline import _featurize

    calls: list[int] = []
    monkeypatch.setattr(_featurize, "return_freed_memory", lambda: calls.append(1))
    files = {part: str(write_ner(tmp_path / f"{part}.conll", n, i)) for i, (part, n) in
             enumerate((("train", 30), ("dev", 8), ("test", 10)))}  # fmt: skip
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    plan = plan_grid(len(splits.train), ["random", "static"], profiles.get("quick"), sizes=[30], seeds=1)
    options = {"random": {"dim": 8}, "static": {"path": str(tiny_vectors_file)}}
    featurize_missing(plan, plan.cells, options, splits, _NoTracker(), {}, _quiet, _event, None)
    assert len(calls) == 2
