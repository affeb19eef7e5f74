from __future__ import annotations

import random
import warnings

import pytest
from seqeval.metrics import classification_report
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.scheme import IOB2

from trainers import classification_scores, ner_scores, repair_iob2
from trainers._evaluate import strict_f1


def test_ner_scores_strict_vs_conlleval_on_a_stray_inside_tag() -> None:
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG"]]
    # PER right; LOC predicted as a stray I-LOC (conlleval counts it, strict IOB2 does not); ORG cut short.
    pred = [["B-PER", "I-PER", "O", "I-LOC"], ["O", "B-ORG", "O"]]
    scores = ner_scores(gold, pred)
    # strict: predicted entities {PER, ORG(short)}, gold {PER, LOC, ORG}: tp = 1
    assert scores["precision"] == pytest.approx(1 / 2)
    assert scores["recall"] == pytest.approx(1 / 3)
    assert scores["f1"] == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    # conlleval-style: I-LOC after O starts an entity, so LOC is a hit too: p = 2/3, r = 2/3
    assert scores["conlleval_f1"] == pytest.approx(2 / 3)
    assert scores["f1_PER"] == pytest.approx(1.0)
    assert scores["f1_LOC"] == pytest.approx(0.0)
    assert scores["f1_ORG"] == pytest.approx(0.0)


def test_ner_scores_perfect_and_empty() -> None:
    gold = [["B-PER", "O"], ["O", "O"]]
    assert ner_scores(gold, gold)["f1"] == pytest.approx(1.0)
    no_entities = ner_scores([["O", "O"]], [["O", "O"]])
    assert no_entities["f1"] == 0.0 and no_entities["recall"] == 0.0


def test_ner_scores_per_type_includes_predicted_only_types() -> None:
    scores = ner_scores([["B-PER", "O"]], [["B-PER", "B-MISC"]])
    assert scores["f1_PER"] == pytest.approx(1.0)
    assert scores["f1_MISC"] == pytest.approx(0.0)
    assert scores["precision"] == pytest.approx(0.5)


def test_ner_scores_rejects_misaligned_sequences() -> None:
    with pytest.raises(ValueError, match="sequence 0"):
        ner_scores([["O", "O"]], [["O"]])
    with pytest.raises(ValueError, match="gold sequences"):
        ner_scores([["O"]], [])


def test_classification_scores() -> None:
    gold = ["a", "a", "b", "c"]
    pred = ["a", "b", "b", "b"]
    scores = classification_scores(gold, pred)
    assert scores["accuracy"] == pytest.approx(0.5)
    # per-class F1: a = 2/3, b = 2/4 (p 1/3, r 1) = 0.5, c = 0
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 0.5 + 0.0) / 3)


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        (["O", "I-PER", "I-PER"], ["O", "B-PER", "I-PER"]),
        (["I-LOC"], ["B-LOC"]),
        (["B-PER", "I-LOC", "I-LOC"], ["B-PER", "B-LOC", "I-LOC"]),
        (["B-PER", "I-PER", "O", "B-ORG"], ["B-PER", "I-PER", "O", "B-ORG"]),
    ],
)
def test_repair_iob2(tags: list[str], expected: list[str]) -> None:
    assert repair_iob2(tags) == expected


def test_headline_f1_is_strict_on_raw_predictions_and_repaired_f1_sits_beside_it() -> None:
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    pred = [["B-PER", "I-PER", "O", "I-LOC"]]  # a softmax tagger's stray I-LOC
    scores = ner_scores(gold, pred)
    assert scores["f1"] == pytest.approx(2 / 3)  # strict: the stray I-LOC is no entity
    assert scores["repaired_f1"] == pytest.approx(1.0)  # repaired to B-LOC it is a hit
    valid = ner_scores(gold, [["B-PER", "I-PER", "O", "O"]])
    assert valid["repaired_f1"] == valid["f1"]


TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG", "B-ORG", "B", "I", "B--X", "I-X-"]


def _random_tags(rng: random.Random, n: int) -> list[list[str]]:
    return [[rng.choice(TAGS) for _ in range(rng.randint(0, 9))] for _ in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_strict_scores_equal_seqeval_bit_for_bit(seed: int) -> None:
    """The fast strict counter gives seqeval's numbers exactly, stray and odd tags included."""
    rng = random.Random(seed)
    gold = _random_tags(rng, rng.randint(1, 30))
    pred = [[rng.choice(TAGS) if rng.random() < 0.4 else tag for tag in seq] for seq in gold]
    strict = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = classification_report(gold, pred, output_dict=True, **strict)
        expected_f1 = seqeval_f1(gold, pred, **strict)
    assert strict_f1(gold, pred) == expected_f1
    scores = ner_scores(gold, pred)
    assert scores["f1"] == expected_f1
    micro = report.get("micro avg", {"precision": 0.0, "recall": 0.0, "f1-score": 0.0})
    assert (scores["precision"], scores["recall"]) == (micro["precision"], micro["recall"])
    types = {name: row["f1-score"] for name, row in report.items() if not name.endswith(" avg")}
    assert {k[3:]: v for k, v in scores.items() if k.startswith("f1_")} == types
    assert scores["repaired_f1"] == seqeval_f1(gold, [repair_iob2(p) for p in pred], **strict)


def test_strict_f1_falls_back_to_seqeval_for_other_schemes() -> None:
    with pytest.raises(ValueError):  # seqeval: E- is not an IOB2 prefix
        strict_f1([["B-PER", "E-PER"]], [["B-PER", "E-PER"]])
