"""Scores on the evaluation set, computed by the standard libraries (seqeval, scikit-learn).

NER headline is strict IOB2 entity micro-F1 (seqeval ``mode="strict"``) on the *raw* predictions:
an entity counts only if its B- tag, every I- tag and the type match, so a stray ``I-`` that opens
an entity is an error, as strict scoring means. Beside it: ``repaired_f1`` (strict F1 after
:func:`repair_iob2`, what a post-processing step would give) and the conlleval-style F1 (seqeval
default mode, which accepts an entity started by a stray I-) so numbers compare with older papers.

The strict and the conlleval scores are counted here (``trainers._entities``, numpy over the whole
corpus), not by seqeval: early stopping scores the full dev set every epoch of every cell
(:class:`StrictF1` finds the gold entities once), and every cell scores its test predictions
(unprofiled, CoNLL-size proxy: strict F1 of a dev pass 0.146 s with seqeval, 0.005 s here; seqeval's
default-mode F1 of the test set 0.09 s). The entity rules and the precision / recall /
F1 arithmetic are seqeval's own (``IOB2`` patterns, ``get_entities``, ``_prf_divide``, the same float
operations in the same order), so the numbers are bit-for-bit equal (tested against seqeval); a tag
outside ``O`` / ``B-*`` / ``I-*`` falls back to seqeval, errors included.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from seqeval.metrics import classification_report, f1_score
from seqeval.scheme import IOB2
from sklearn.metrics import accuracy_score
from sklearn.metrics import f1_score as sk_f1_score

from trainers._entities import EntityCounter, is_plain_tag

__all__ = ["StrictF1", "classification_scores", "ner_scores", "repair_iob2", "strict_f1"]


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


def _check_aligned(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sequences but {len(pred)} predicted")
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if len(g) != len(p):
            raise ValueError(f"sequence {i}: {len(g)} gold tags but {len(p)} predicted")


def _plain_iob2(*corpora: Sequence[Sequence[str]]) -> bool:
    """Every tag is ``O…``, ``B…`` or ``I…``: the tags the fast counters handle like seqeval."""
    return all(is_plain_tag(tag) for tag in {tag for corpus in corpora for seq in corpus for tag in seq})


def _lengths(tags: Sequence[Sequence[str]]) -> list[int]:
    return [len(seq) for seq in tags]


def _entity_counts(
    gold: list[list[str]], pred: list[list[str]], rule: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Per entity type under ``rule``: true positives, predicted, gold, and the type names."""
    counter = EntityCounter(_lengths(gold), rule)
    gold_spans = counter.spans(gold)
    return counter.counts(gold_spans, counter.spans(pred))


def _micro_prf(tp: np.ndarray, n_pred: np.ndarray, n_true: np.ndarray) -> tuple[float, float, float]:
    return _prf(int(tp.sum()), int(n_pred.sum()), int(n_true.sum()))


def _prf(tp: int, n_pred: int, n_true: int) -> tuple[float, float, float]:
    """seqeval's precision / recall / F1 (beta 1, zero_division 0), operation for operation."""
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_true if n_true else 0.0
    denom = 1.0 * precision + recall
    return precision, recall, 2.0 * precision * recall / (denom if denom != 0.0 else 1.0)


def _strict_report(gold: list[list[str]], pred: list[list[str]]) -> dict[str, float]:
    """Strict micro ``f1`` / ``precision`` / ``recall`` and ``f1_<TYPE>`` (types of gold or predictions)."""
    if not _plain_iob2(gold, pred):
        return _seqeval_strict_report(gold, pred)
    tp, n_pred, n_true, kinds = _entity_counts(gold, pred, "strict")
    precision, recall, f1 = _micro_prf(tp, n_pred, n_true)
    scores = {"f1": f1, "precision": precision, "recall": recall}
    for i, kind in enumerate(kinds):
        scores[f"f1_{kind}"] = _prf(int(tp[i]), int(n_pred[i]), int(n_true[i]))[2]
    return scores


def _seqeval_strict_report(gold: list[list[str]], pred: list[list[str]]) -> dict[str, float]:
    strict = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    with warnings.catch_warnings():  # no entity at all: seqeval averages empty arrays
        warnings.simplefilter("ignore", RuntimeWarning)
        report = classification_report(gold, pred, output_dict=True, **strict)
    micro = report.get("micro avg", {"precision": 0.0, "recall": 0.0, "f1-score": 0.0})
    scores = {
        "f1": float(micro["f1-score"]),
        "precision": float(micro["precision"]),
        "recall": float(micro["recall"]),
    }
    for name, row in report.items():
        if not name.endswith(" avg"):
            scores[f"f1_{name}"] = float(row["f1-score"])
    return scores


def ner_scores(gold_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> dict[str, float]:
    """Entity-level scores: strict IOB2 ``f1``/``precision``/``recall`` on the raw predictions,
    ``repaired_f1`` (strict, after :func:`repair_iob2`), ``conlleval_f1``, ``f1_<TYPE>``."""
    gold = [list(tags) for tags in gold_tags]
    pred = [list(tags) for tags in pred_tags]
    _check_aligned(gold, pred)
    report = _strict_report(gold, pred)
    scores = {
        "f1": report["f1"],
        "precision": report["precision"],
        "recall": report["recall"],
        "conlleval_f1": _conlleval_f1(gold, pred),
    }
    repaired = [repair_iob2(tags) for tags in pred]
    scores["repaired_f1"] = scores["f1"] if repaired == pred else strict_f1(gold, repaired)
    scores.update({name: value for name, value in report.items() if name.startswith("f1_")})
    return scores


def _conlleval_f1(gold: list[list[str]], pred: list[list[str]]) -> float:
    """seqeval's default-mode micro-F1 (chunks as conlleval finds them), counted in one numpy pass."""
    if not _plain_iob2(gold, pred):
        return float(f1_score(gold, pred, zero_division=0))
    tp, n_pred, n_true, _ = _entity_counts(gold, pred, "conlleval")
    return _micro_prf(tp, n_pred, n_true)[2]


def strict_f1(gold_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> float:
    """Only the headline strict IOB2 micro-F1 (for one fixed gold corpus, :class:`StrictF1` is faster)."""
    return StrictF1(gold_tags)(pred_tags)


class StrictF1:
    """Strict IOB2 micro-F1 of predictions against one gold corpus, whose entities are found once.

    What early stopping calls after every epoch on the dev set: only the predictions' entities are
    counted per call (~65k words: milliseconds).
    """

    def __init__(self, gold_tags: Sequence[Sequence[str]]) -> None:
        self.gold = [list(tags) for tags in gold_tags]
        self.counter = EntityCounter(_lengths(self.gold), "strict")
        self.gold_spans = self.counter.spans(self.gold) if _plain_iob2(self.gold) else None

    def __call__(self, pred_tags: Sequence[Sequence[str]]) -> float:
        pred = list(pred_tags)
        if self.gold_spans is None or not _plain_iob2(pred):
            return float(f1_score(self.gold, pred, mode="strict", scheme=IOB2, zero_division=0))
        _check_aligned(self.gold, pred)
        tp, n_pred, n_true, _ = self.counter.counts(self.gold_spans, self.counter.spans(pred))
        return _micro_prf(tp, n_pred, n_true)[2]


def classification_scores(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float]:
    """``accuracy`` and ``macro_f1`` (over the labels present in gold or predictions)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predicted")
    return {
        "accuracy": float(accuracy_score(gold, pred)),
        "macro_f1": float(sk_f1_score(gold, pred, average="macro", zero_division=0)),
    }
