"""Training's pace timed on a sample: real short trainings of the cells' model on features of each family's shape."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from advisor.data import read_splits
from advisor.embeddings import QuantizedStack
from advisor.grid import StepCost
from advisor.pipeline._calibrate import calibrate_training, synthetic_features
from advisor.pipeline._plan import embedding_options
from advisor.settings import RunSettings
from tests.helpers import write_ner_splits, write_pairs
from trainers import TrainConfig


@pytest.fixture
def ner(tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path) -> tuple[RunSettings, object]:
    paths = write_ner_splits(tmp_path / "data", [("train", 80), ("dev", 20), ("test", 20)])
    settings = RunSettings(
        data=paths["train"], task="ner", dev=paths["dev"], test=paths["test"],
        contextual=str(tiny_bert_dir), static=str(tiny_vectors_file), device="cpu",
    )  # fmt: skip
    return settings, read_splits(settings.data, "ner", dev=settings.dev, test=settings.test)


def _options(settings: RunSettings, names: list[str]) -> dict[str, dict]:
    return {name: embedding_options(settings, name, 32, "cpu") for name in names}


def test_every_family_of_known_shape_is_timed(ner: tuple[RunSettings, object]) -> None:
    settings, splits = ner
    names = ["random", "static", "contextual"]
    costs = calibrate_training(splits, _options(settings, names), TrainConfig(device="cpu"), (16, 64))
    assert list(costs) == [(name, width) for name in names for width in (16, 64)]
    for cost in costs.values():
        assert 0 < cost.step_s < 5 and 0 < cost.dev_item_s < 1
        # the dev passes' share falls as cells grow: scored every 20 steps when small, every 100 when large
        assert cost.seconds_per_step(100, 1000) > cost.seconds_per_step(50_000, 1000) > cost.step_s


def test_features_have_the_shape_and_storage_each_family_hands_its_cells(
    ner: tuple[RunSettings, object],
) -> None:
    settings, splits = ner
    rng = np.random.default_rng(0)
    words = sum(len(t) for t in splits.dev.tokens)
    random = synthetic_features("random", _options(settings, ["random"])["random"], splits.dev, rng)
    assert random.vectors.shape == (words, 32) and random.vectors.dtype == np.float16
    static = synthetic_features("static", _options(settings, ["static"])["static"], splits.dev, rng)
    assert static.vectors.shape[0] == words and static.dim == 8  # the tiny vectors file's width
    mix = synthetic_features("contextual", _options(settings, ["contextual"])["contextual"], splits.dev, rng)
    assert isinstance(mix.vectors, QuantizedStack) and mix.n_layers == 3  # tiny BERT: 2 layers + embeddings
    last = RunSettings(**{**settings.__dict__, "layer": "last"})
    one = synthetic_features("contextual", _options(last, ["contextual"])["contextual"], splits.dev, rng)
    assert one.vectors.ndim == 2 and one.dim == mix.dim  # the layer choice's view, as a cell reads it


def test_pairs_and_unknown_families_are_not_timed_and_the_width_defaults_to_the_configs(
    tmp_path: Path, ner: tuple[RunSettings, object]
) -> None:
    settings, splits = ner
    assert calibrate_training(splits, {"distilled": {}}, TrainConfig(device="cpu")) == {}
    pair_file = str(write_pairs(tmp_path / "pairs.tsv", 40, 0))
    pairs = read_splits(pair_file, "pair", dev=pair_file, test=pair_file)
    assert calibrate_training(pairs, _options(settings, ["random"]), TrainConfig(device="cpu")) == {}
    one = calibrate_training(splits, _options(settings, ["random"]), TrainConfig(device="cpu", projection=16))
    assert list(one) == [("random", 16)]  # no widths given: the config's


def test_a_step_carries_its_share_of_the_dev_passes() -> None:
    """Dev is scored every epoch clamped to [20, 100] steps: 20 for 64 items, 100 for 64,000."""
    cost = StepCost(0.01, 0.001)
    assert cost.seconds_per_step(64, 100) == pytest.approx(0.01 + 100 * 0.001 / 20)
    assert cost.seconds_per_step(64_000, 100) == pytest.approx(0.01 + 100 * 0.001 / 100)
