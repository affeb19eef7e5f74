"""The sentence-pair model: each text through the shared encoder, [u; v; |u - v|; u * v], an MLP."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.helpers import PLANTED_DIM, LabelledCorpus, fit_planted
from trainers import ServingModel, TrainConfig
from trainers._batches import Split
from trainers._errors import InputError
from trainers._features import TokenFeatures
from trainers._pair import PairClassifier

N_KEYS = 6


def _side(rng: np.random.Generator, key: int, fillers: int) -> np.ndarray:
    """One text: a key word (a large value in dimension ``key``) among small random filler words."""
    x = (0.3 * rng.normal(size=(fillers + 1, PLANTED_DIM))).astype(np.float32)
    x[0, key] += 2.0
    return x[rng.permutation(fillers + 1)]


def planted_pair(n: int, seed: int) -> tuple[TokenFeatures, LabelledCorpus]:
    """ "same" when both texts carry the same key word: each key is equally likely on either side,
    so neither text alone says anything about the label. Second texts may be one word long."""
    rng = np.random.default_rng(seed)
    arrays, tokens, labels, split = [], [], [], []
    for i in range(n):
        key_a = int(rng.integers(N_KEYS))
        key_b = key_a if i % 2 else int((key_a + rng.integers(1, N_KEYS)) % N_KEYS)
        a, b = _side(rng, key_a, int(rng.integers(1, 5))), _side(rng, key_b, int(rng.integers(0, 5)))
        arrays.append(np.concatenate([a, b]))
        tokens.append([f"a{j}" for j in range(len(a))] + [f"b{j}" for j in range(len(b))])
        split.append(len(a))
        labels.append("same" if i % 2 else "different")
    corpus = LabelledCorpus(task="pair", tokens=tokens, labels=labels, pair_split=split)
    return TokenFeatures.from_list(arrays), corpus


@pytest.fixture(scope="module")
def pair_splits() -> list[tuple[TokenFeatures, LabelledCorpus]]:
    return [planted_pair(300, 0), planted_pair(80, 1), planted_pair(120, 2)]


def _first_texts(split: tuple[TokenFeatures, LabelledCorpus]) -> tuple[TokenFeatures, LabelledCorpus]:
    """The same items as single texts made of their first text only."""
    feats, corpus = split
    arrays = [feats.item(i)[:k] for i, k in enumerate(corpus.pair_split)]
    tokens = [list(t[:k]) for t, k in zip(corpus.tokens, corpus.pair_split, strict=True)]
    return TokenFeatures.from_list(arrays), LabelledCorpus("classify", tokens, list(corpus.labels))


@pytest.mark.parametrize("classifier", ["cnn", "bilstm"])
def test_the_pair_model_learns_what_no_single_text_tells(pair_splits, classifier: str) -> None:
    result = fit_planted(pair_splits, classifier=classifier)
    assert result.task == "pair" and result.primary_metric == "accuracy"
    assert result.score > 0.8, (result.score, result.dev_history)  # balanced: chance is 0.5
    assert set(result.scores) == {"accuracy", "macro_f1"}
    assert len(result.predictions) == len(result.gold_probs) == 120
    assert set(result.predictions) <= {"same", "different"}
    assert all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in result.gold_probs)


def test_the_first_text_alone_is_at_chance(pair_splits) -> None:
    alone = fit_planted([_first_texts(split) for split in pair_splits])
    assert alone.score < 0.65, alone.score


def test_a_pair_batch_gives_each_text_exactly_its_rows() -> None:
    lengths, split = [5, 2, 4], [2, 1, 3]  # sides 2+3, 1+1, 3+1
    rows = np.arange(sum(lengths), dtype=np.float32)
    feats = TokenFeatures(vectors=np.stack([rows, -rows], axis=1), offsets=np.array([0, 5, 7, 11]))
    corpus = LabelledCorpus(
        "pair", [["w"] * n for n in lengths], ["x", "y", "x"], pair_split=split, source="pairs.tsv"
    )
    batch = Split(feats, corpus, {"x": 0, "y": 1}, casing=False).batch(
        np.array([2, 0, 1]), torch.device("cpu")
    )
    first = {2: [7, 8, 9], 0: [0, 1], 1: [5]}
    second = {2: [10], 0: [2, 3, 4], 1: [6]}
    assert tuple(batch.vectors.shape) == (6, 3, 2)
    for row, item in enumerate([2, 0, 1]):
        for side, words in ((row, first[item]), (row + 3, second[item])):
            n = len(words)
            assert batch.vectors[side, :n, 0].tolist() == words
            assert batch.vectors[side, :n, 1].tolist() == [-w for w in words]
            assert batch.mask[side].tolist() == [True] * n + [False] * (3 - n)
            assert not batch.vectors[side, n:].any()  # padding is zero
    assert batch.targets.tolist() == [0, 0, 1]


def test_a_pair_batch_of_a_layer_stack_keeps_the_layers_first() -> None:
    words = np.arange(6, dtype=np.float32)
    stack = np.stack([words, 10 + words], axis=1)[:, :, None]  # (words, 2 layers, 1)
    feats = TokenFeatures(vectors=stack, offsets=np.array([0, 3, 6]))
    corpus = LabelledCorpus("pair", [["w"] * 3] * 2, ["x", "x"], pair_split=[1, 2])
    batch = Split(feats, corpus, {"x": 0}, casing=False).batch(np.array([0, 1]), torch.device("cpu"))
    assert tuple(batch.vectors.shape) == (2, 4, 2, 1)  # layers, 2 sides x 2 items, steps, dim
    assert batch.vectors[1, :, :, 0].tolist() == [[10, 0], [13, 14], [11, 12], [15, 0]]


def _stacked(
    split: tuple[TokenFeatures, LabelledCorpus], seed: int, clean: int
) -> tuple[TokenFeatures, LabelledCorpus]:
    """A 2-layer stack: the planted features at layer ``clean``, a noisy copy of them at the other."""
    feats, corpus = split
    noisy = feats.vectors + 0.6 * np.random.default_rng(seed).normal(size=feats.vectors.shape)
    layers = [noisy.astype(np.float32), feats.vectors]
    return TokenFeatures(
        vectors=np.stack(layers[::-1] if clean == 0 else layers, axis=1), offsets=feats.offsets
    ), corpus


@pytest.mark.parametrize("clean", [0, 1])
def test_a_pair_of_layer_stacks_goes_through_the_scalar_mix(pair_splits, clean: int) -> None:
    result = fit_planted([_stacked(split, seed, clean) for seed, split in enumerate(pair_splits)])
    assert len(result.layer_weights) == 2
    assert result.layer_weights[clean] > 0.7, result.layer_weights  # the mix reads the clean layer
    assert result.score > 0.8, (result.score, result.dev_history)


def test_the_serving_model_predicts_pairs_item_by_item_as_in_a_batch(pair_splits) -> None:
    feats, corpus = pair_splits[2]
    config = TrainConfig(precision="float32", hidden=16, projection=16)
    model = ServingModel(
        ["different", "same"], PLANTED_DIM, config, (feats.subset(range(4)), corpus.subset(range(4))), "cpu"
    )
    assert isinstance(model.model.net, PairClassifier) and model.param_bytes > 0
    items = np.arange(12)
    batch_feats, batch_corpus = feats.subset(items), corpus.subset(items)
    assert len(model.predict(batch_feats, batch_corpus)) == 12
    together = model.model.predict(model._split(batch_feats, batch_corpus), 12, model.device).gold_probs
    alone = [
        model.model.predict(model._split(feats.subset([i]), corpus.subset([i])), 1, model.device).gold_probs[
            0
        ]
        for i in items
    ]
    np.testing.assert_allclose(together, alone, rtol=1e-5)
    swapped = corpus.subset(items)
    other = model.model.predict(model._split(batch_feats, _moved_split(swapped)), 12, model.device)
    assert not np.allclose(other.gold_probs, together)  # where the first text ends changes the input


def _moved_split(corpus: LabelledCorpus) -> LabelledCorpus:
    """The same words with the boundary between the texts moved by one word."""
    moved = [
        k + 1 if k + 1 < len(t) else k - 1 for t, k in zip(corpus.tokens, corpus.pair_split, strict=True)
    ]
    return LabelledCorpus(corpus.task, corpus.tokens, corpus.labels, pair_split=moved)


@pytest.mark.parametrize(
    ("pair_split", "code", "line"), [([], "T206", None), ([2, 3], "T207", 12), ([0, 2], "T207", 11)]
)
def test_a_pair_corpus_without_a_split_inside_each_item_is_refused(pair_split, code: str, line) -> None:
    feats = TokenFeatures.from_list([np.ones((3, PLANTED_DIM), np.float32)] * 2)
    bad = LabelledCorpus(
        "pair", [["w"] * 3] * 2, ["x", "y"], source="bad.tsv", line_numbers=[11, 12], pair_split=pair_split
    )
    good = LabelledCorpus("pair", [["w"] * 3] * 2, ["x", "y"], pair_split=[1, 2])
    with pytest.raises(InputError) as caught:
        fit_planted([(feats, good), (feats, bad), (feats, good)])
    assert caught.value.code == code and caught.value.file == "bad.tsv" and caught.value.line == line
    assert "dev" in caught.value.message
