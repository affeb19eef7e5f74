"""The fine-tuned reference learns planted tasks end to end on the tiny BERT (no download)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import LabelledCorpus
from trainers._finetune import FineTuneConfig, FineTuner, finetune_and_evaluate

CITIES = ["paris", "london", "berlin"]
PEOPLE = ["john", "mary"]
FILLER = ["the", "a", "went", "saw", "visited", "likes", "with", "and", "city", "film", "yesterday"]
#: A high learning rate: the tiny encoder is random, so the planted task is learned from scratch.
FAST = FineTuneConfig(max_epochs=8, patience=3, batch_size=16, lr=3e-3, warmup_ratio=0.0, num_threads=1)


def _ner(n: int, seed: int) -> LabelledCorpus:
    """Cities are B-LOC, people B-PER, everything else O; "yesterday" splits into sub-word pieces."""
    rng = np.random.default_rng(seed)
    tokens, tags = [], []
    for _ in range(n):
        words = list(rng.choice(FILLER + CITIES + PEOPLE, size=int(rng.integers(3, 9))))
        tokens.append(words)
        tags.append(["B-LOC" if w in CITIES else "B-PER" if w in PEOPLE else "O" for w in words])
    return LabelledCorpus(task="ner", tokens=tokens, labels=tags)


def _classify(n: int, seed: int) -> LabelledCorpus:
    """A sentence is about a place when it names a city."""
    rng = np.random.default_rng(seed)
    tokens, labels = [], []
    for i in range(n):
        words = list(rng.choice(FILLER + PEOPLE, size=int(rng.integers(3, 8))))
        if i % 2:
            words[int(rng.integers(len(words)))] = str(rng.choice(CITIES))
        tokens.append(words)
        labels.append("place" if i % 2 else "other")
    return LabelledCorpus(task="classify", tokens=tokens, labels=labels)


@pytest.mark.parametrize("make, floor", [(_ner, 0.9), (_classify, 0.9)])
def test_the_fine_tuned_reference_learns_a_planted_task(tiny_bert_dir, make, floor):
    result = finetune_and_evaluate(str(tiny_bert_dir), make(160, 0), make(40, 1), make(60, 2), FAST)
    assert result.score >= floor, (result.score, result.dev_history)
    assert result.dev_score >= floor and 1 <= result.epochs <= FAST.max_epochs
    assert result.train_seconds > 0 and result.n_params > 0
    assert len(result.predictions) == 60 and len(result.gold_probs) == 60


def test_labels_sit_on_first_pieces_and_each_word_gets_one_prediction(tiny_bert_dir):
    tuner = FineTuner(str(tiny_bert_dir), "ner", ["B-LOC", "O"], FAST)
    corpus = LabelledCorpus(
        task="ner", tokens=[["yesterday", "paris", "", "the"]], labels=[["O", "B-LOC", "O", "O"]]
    )
    data = tuner.encode(corpus)
    labelled = [i for i, y in enumerate(data.piece_labels[0]) if y != -100]
    assert len(labelled) == 3  # the empty word has no piece: no label, and it is predicted "O"
    assert list(data.first_piece[0][[0, 1, 3]]) == labelled
    assert data.first_piece[0][1] - data.first_piece[0][0] > 1  # "yesterday" spans several pieces
    predictions, probs = tuner.predict(corpus)
    assert len(predictions[0]) == 4 and len(probs[0]) == 4 and predictions[0][2] == "O"


def test_same_seed_same_result_other_seed_other_head(tiny_bert_dir):
    config = FineTuneConfig(max_epochs=1, batch_size=16, lr=3e-3, num_threads=1)
    train, dev = _classify(48, 0), _classify(16, 1)
    a = finetune_and_evaluate(str(tiny_bert_dir), train, dev, dev, config)
    b = finetune_and_evaluate(str(tiny_bert_dir), train, dev, dev, config)
    c = finetune_and_evaluate(
        str(tiny_bert_dir), train, dev, dev, FineTuneConfig(**{**config.to_dict(), "seed": 1})
    )
    assert a.gold_probs == b.gold_probs
    assert a.gold_probs != c.gold_probs


def _pair(n: int, seed: int) -> LabelledCorpus:
    """One of the two texts names a city: the label says which (what the segments tell the encoder)."""
    rng = np.random.default_rng(seed)
    tokens, labels, split = [], [], []
    for i in range(n):
        a = [str(w) for w in rng.choice(FILLER + PEOPLE, size=int(rng.integers(1, 5)))]
        b = [str(w) for w in rng.choice(FILLER + PEOPLE, size=int(rng.integers(1, 5)))]
        side = a if i % 2 else b
        side[int(rng.integers(len(side)))] = str(rng.choice(CITIES))
        tokens.append(a + b)
        split.append(len(a))
        labels.append("first" if i % 2 else "second")
    return LabelledCorpus(task="pair", tokens=tokens, labels=labels, pair_split=split)


def test_a_pair_goes_to_the_encoder_as_its_two_segments(tiny_bert_dir):
    tuner = FineTuner(str(tiny_bert_dir), "pair", ["different", "same"], FAST)
    corpus = LabelledCorpus(
        task="pair",
        tokens=[["the", "yesterday", "paris"], ["a", "london"]],
        labels=["same", "different"],
        pair_split=[2, 1],
    )
    data = tuner.encode(corpus)
    sep = tuner.tokenizer.sep_token_id
    for item, n_first in enumerate(corpus.pair_split):
        ids, types, first = data.ids[item], data.type_ids[item], data.first_piece[item]
        assert ids[0] == tuner.tokenizer.cls_token_id and ids.count(sep) == 2 and ids[-1] == sep
        boundary = ids.index(sep)  # [CLS] a [SEP] b [SEP]: segment 0 up to the first [SEP], then 1
        assert types == [0] * (boundary + 1) + [1] * (len(ids) - boundary - 1)
        assert all(0 < pos < boundary for pos in first[:n_first])  # each word of a in segment 0
        assert all(boundary < pos < len(ids) - 1 for pos in first[n_first:])  # each word of b in segment 1
    batch = tuner._batch(data, np.array([0, 1]))
    assert batch["token_type_ids"].tolist()[1] == data.type_ids[1] + [0] * (
        len(data.ids[0]) - len(data.ids[1])
    )
    single = FineTuner(str(tiny_bert_dir), "classify", ["other", "place"], FAST)
    assert not single.encode(_classify(4, 0)).type_ids  # single texts: inputs as before


def test_the_fine_tuned_reference_learns_a_planted_pair_task(tiny_bert_dir):
    # Which segment holds the city is learned late (dev flat at chance for ~5 epochs): more patience.
    config = FineTuneConfig(**{**FAST.to_dict(), "max_epochs": 12, "patience": 8})
    result = finetune_and_evaluate(str(tiny_bert_dir), _pair(200, 0), _pair(40, 1), _pair(60, 2), config)
    assert result.task == "pair" and result.primary_metric == "accuracy"
    assert len(result.predictions) == 60 and set(result.predictions) <= {"first", "second"}
    assert result.score >= 0.75, (result.score, result.dev_history)  # balanced: chance is 0.5
