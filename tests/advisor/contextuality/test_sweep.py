"""The layer sweep on sentence pairs: it reads them as asked (joint or separate) and says which."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.contextuality import layer_sweep
from advisor.data import read_splits
from tests.helpers import write_ner_splits, write_pairs

_SMALL = {"size": 8, "seeds": 1, "max_steps": 2, "device": "cpu"}


@pytest.fixture
def pair_splits(tmp_path: Path):
    train, dev = write_pairs(tmp_path / "train.tsv", 16, 0), write_pairs(tmp_path / "dev.tsv", 6, 1)
    return read_splits(train, "pair", dev=dev, test=dev)


@pytest.mark.parametrize("encoding", [None, "joint", "separate"])
def test_a_pair_sweep_reads_the_pairs_as_asked_and_names_the_encoding(
    pair_splits, tiny_bert_dir: Path, tmp_path: Path, encoding: str | None
) -> None:
    sweep = layer_sweep(
        pair_splits, contextual=str(tiny_bert_dir), cache_dir=str(tmp_path / "features"), pair_encoding=encoding,
        **_SMALL,
    )  # fmt: skip
    expected = encoding or "joint"  # the encoder's default, as `advisor run`'s
    assert sweep.pair_encoding == expected and sweep.encoder["pair_encoding"] == expected
    assert set(sweep.table["layer"]) == {"0", "1", "2", "mix"}


def test_a_sweep_of_another_task_names_no_pair_encoding(tmp_path: Path, tiny_bert_dir: Path) -> None:
    files = write_ner_splits(tmp_path / "ner", (("train", 12), ("dev", 4), ("test", 4)))
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    sweep = layer_sweep(splits, contextual=str(tiny_bert_dir), cache_dir=str(tmp_path / "features"), **_SMALL)
    assert sweep.pair_encoding is None and "pair_encoding" not in sweep.encoder
