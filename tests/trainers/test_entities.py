"""The numpy entity counters give seqeval's numbers exactly, on random tag corpora of every shape."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from seqeval.metrics import classification_report, f1_score
from seqeval.scheme import IOB2

from trainers import ner_scores
from trainers._entities import EntityCounter
from trainers._evaluate import StrictF1, strict_f1

TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B", "I", "B-A-B", "I-A-B", "I-MISC", "O-X"]


def _corpus(rng: random.Random, lengths: list[int]) -> list[list[str]]:
    return [[rng.choice(TAGS) for _ in range(n)] for n in lengths]


def _pairs(n_pairs: int) -> list[tuple[list[list[str]], list[list[str]]]]:
    """Gold / prediction corpora: random tags, empty items, and predictions close to their gold."""
    pairs = []
    for seed in range(n_pairs):
        rng = random.Random(seed)
        lengths = [
            rng.choice([0, 1, 2, 3, 5, 8]) for _ in range(rng.randint(1, 12))
        ]  # seqeval refuses no items
        gold = _corpus(rng, lengths)
        pred = [[tag if rng.random() < 0.7 else rng.choice(TAGS) for tag in seq] for seq in gold]
        pairs.append((gold, pred))
    pairs.append(([["B-PER", "I-PER"], ["O"]], [["B-PER", "I-PER"], ["O"]]))  # identical
    pairs.append(([["O", "O"]], [["O", "O"]]))  # no entity on either side
    return pairs


def _seqeval_strict(gold: list[list[str]], pred: list[list[str]]) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = classification_report(
            gold, pred, mode="strict", scheme=IOB2, zero_division=0, output_dict=True
        )
    micro = report.get("micro avg", {"precision": 0.0, "recall": 0.0, "f1-score": 0.0})
    scores = {"f1": micro["f1-score"], "precision": micro["precision"], "recall": micro["recall"]}
    scores.update({f"f1_{k}": v["f1-score"] for k, v in report.items() if not k.endswith(" avg")})
    return scores


@pytest.mark.parametrize(("gold", "pred"), _pairs(300))
def test_scores_equal_seqevals_bit_for_bit(gold: list[list[str]], pred: list[list[str]]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conlleval = float(f1_score(gold, pred, zero_division=0))
    scores = ner_scores(gold, pred)
    expected = _seqeval_strict(gold, pred)
    assert {k: scores[k] for k in expected} == expected
    assert {k for k in scores if k.startswith("f1_")} == {k for k in expected if k.startswith("f1_")}
    assert scores["conlleval_f1"] == conlleval
    assert strict_f1(gold, pred) == expected["f1"]


def test_one_gold_scorer_scores_many_predictions_like_strict_f1() -> None:
    rng = random.Random(7)
    gold = _corpus(rng, [rng.randint(0, 9) for _ in range(200)])
    scorer = StrictF1(gold)
    for _ in range(5):
        pred = [[tag if rng.random() < 0.8 else rng.choice(TAGS) for tag in seq] for seq in gold]
        assert scorer(pred) == _seqeval_strict(gold, pred)["f1"]
    pred[0] = ["B-NEW"] * len(pred[0]) if pred[0] else pred[0]  # a type gold never had
    assert scorer(pred) == _seqeval_strict(gold, pred)["f1"]


def test_entities_do_not_run_across_items_and_stray_i_opens_nothing() -> None:
    counter = EntityCounter([2, 1, 3], "strict")
    spans = counter.spans([["B-PER", "I-PER"], ["I-PER"], ["O", "I-LOC", "B-LOC"]])
    assert spans[:, :2].tolist() == [[0, 2], [5, 6]]  # the I-PER of item 2 is not a continuation
    conll = EntityCounter([2, 1, 3], "conlleval").spans(
        [["B-PER", "I-PER"], ["I-PER"], ["O", "I-LOC", "B-LOC"]]
    )
    assert conll[:, :2].tolist() == [[0, 2], [3, 4], [6, 7], [7, 8]]  # positions count the separators


def test_a_tag_outside_bio_falls_back_to_seqeval_and_misaligned_input_is_an_error() -> None:
    with pytest.raises(ValueError, match="Invalid token is found: E-PER"):  # seqeval's own verdict
        strict_f1([["B-PER", "E-PER"]], [["B-PER", "O"]])
    with pytest.raises(ValueError):
        StrictF1([["B-PER", "O"]])([["B-PER"]])
    with pytest.raises(ValueError, match="tags for"):
        EntityCounter([2], "strict").spans([["O"]])
    assert np.array_equal(EntityCounter([], "conlleval").spans([]), np.zeros((0, 3)))
