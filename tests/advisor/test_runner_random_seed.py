"""The random baseline's table is drawn from the cell seed: it differs between seeds, not between runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from advisor.data import read_splits
from advisor.grid import plan_grid, profiles
from advisor.runner import _featurize
from tests.helpers import write_ner


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
        features = _featurize(plan, plan.cells, options, splits, _NoTracker(), {}, lambda event: None)
        return {seed: table.matrix.copy() for seed, table in features["random"].items()}

    first, again = tables(), tables()
    assert sorted(first) == [0, 1]
    assert not np.allclose(first[0], first[1])
    for seed in (0, 1):
        np.testing.assert_array_equal(first[seed], again[seed])
