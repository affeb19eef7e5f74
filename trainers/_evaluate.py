"""Scores on the evaluation set, computed by the standard libraries (seqeval, scikit-learn).

NER headline is strict IOB2 entity micro-F1 (seqeval ``mode="strict"``) on the *raw* predictions:
an entity counts only if its B- tag, every I- tag and the type match, so a stray ``I-`` that opens
an entity is an error, as strict scoring means. Beside it: ``repaired_f1`` (strict F1 after
:func:`repair_iob2`, what a post-processing step would give) and the conlleval-style F1 (seqeval
default mode, which accepts an entity started by a stray I-) so numbers compare with older papers.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from seqeval.metrics import classification_report, f1_score
from seqeval.scheme import IOB2
from sklearn.metrics import accuracy_score
from sklearn.metrics import f1_score as sk_f1_score

__all__ = ["classification_scores", "ner_scores", "repair_iob2", "strict_f1"]


def repair_iob2(tags: Sequence[str]) -> list[str]:
    """Make a tag sequence valid IOB2: an ``I-X`` not preceded by ``B-X``/``I-X`` becomes ``B-X``.

    A softmax tagger decides each token alone and can emit ``O I-PER``; turning the stray ``I-``
    into ``B-`` keeps the entity it clearly meant instead of dropping it under strict scoring.
    """
    repaired: list[str] = []
    previous = "O"
    for tag in tags:
        if tag.startswith("I-"):
            entity_type = tag[2:]
            if previous not in (f"B-{entity_type}", f"I-{entity_type}"):
                tag = f"B-{entity_type}"
        repaired.append(tag)
        previous = tag
    return repaired


def ner_scores(gold_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> dict[str, float]:
    """Entity-level scores: strict IOB2 ``f1``/``precision``/``recall`` on the raw predictions,
    ``repaired_f1`` (strict, after :func:`repair_iob2`), ``conlleval_f1``, ``f1_<TYPE>``."""
    gold = [list(tags) for tags in gold_tags]
    pred = [list(tags) for tags in pred_tags]
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sequences but {len(pred)} predicted")
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if len(g) != len(p):
            raise ValueError(f"sequence {i}: {len(g)} gold tags but {len(p)} predicted")
    strict = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    # One strict pass gives micro precision/recall/F1 and every per-type row (seqeval is slow-ish).
    with warnings.catch_warnings():  # no entity at all: seqeval averages empty arrays
        warnings.simplefilter("ignore", RuntimeWarning)
        report = classification_report(gold, pred, output_dict=True, **strict)
    micro = report.get("micro avg", {"precision": 0.0, "recall": 0.0, "f1-score": 0.0})
    scores = {
        "f1": float(micro["f1-score"]),
        "precision": float(micro["precision"]),
        "recall": float(micro["recall"]),
        "conlleval_f1": float(f1_score(gold, pred, zero_division=0)),  # seqeval default mode
    }
    repaired = [repair_iob2(tags) for tags in pred]
    scores["repaired_f1"] = scores["f1"] if repaired == pred else strict_f1(gold, repaired)
    for name, row in report.items():
        if not name.endswith(" avg"):
            scores[f"f1_{name}"] = float(row["f1-score"])
    return scores


def strict_f1(gold_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> float:
    """Only the headline strict IOB2 micro-F1: what early stopping needs each epoch, at half the cost."""
    return float(f1_score(list(gold_tags), list(pred_tags), mode="strict", scheme=IOB2, zero_division=0))


def classification_scores(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float]:
    """``accuracy`` and ``macro_f1`` (over the labels present in gold or predictions)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predicted")
    return {
        "accuracy": float(accuracy_score(gold, pred)),
        "macro_f1": float(sk_f1_score(gold, pred, average="macro", zero_division=0)),
    }
