"""Scores on the evaluation set, computed by the standard libraries (seqeval, scikit-learn).

NER headline is strict IOB2 entity micro-F1 (seqeval ``mode="strict"``) on the *raw* predictions:
an entity counts only if its B- tag, every I- tag and the type match, so a stray ``I-`` that opens
an entity is an error, as strict scoring means. Beside it: ``repaired_f1`` (strict F1 after
:func:`repair_iob2`, what a post-processing step would give) and the conlleval-style F1 (seqeval
default mode, which accepts an entity started by a stray I-) so numbers compare with older papers.

The strict scores are counted here, not by seqeval: early stopping scores the full dev set every
epoch of every cell, and seqeval's token objects cost ~0.3 s per CoNLL-size dev pass (~0.03 s here),
~130 CPU s over a 45-cell default grid (measured unprofiled; pyinstrument inflated it ~10x). The
entity rules and the precision / recall / F1 arithmetic are seqeval's own (``IOB2`` patterns,
``_prf_divide``, the same float operations in the same order), so the numbers are bit-for-bit equal
(tested against seqeval); a tag outside ``O`` / ``B-*`` / ``I-*`` falls back to seqeval, errors included.
"""

from __future__ import annotations

import warnings
from collections import Counter
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


def _check_aligned(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sequences but {len(pred)} predicted")
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if len(g) != len(p):
            raise ValueError(f"sequence {i}: {len(g)} gold tags but {len(p)} predicted")


def _plain_iob2(*corpora: Sequence[Sequence[str]]) -> bool:
    """Every tag is ``O…``, ``B…`` or ``I…``: the tags the fast strict counter handles like seqeval."""
    tags = {tag for corpus in corpora for seq in corpus for tag in seq}
    return all(tag and tag[0] in "BIO" for tag in tags)


def _entity_type(tag: str) -> str:
    return tag[1:].strip("-") or "_"  # seqeval's Token.tag


def _iob2_entities(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Strict IOB2 entities ``(start, end, type)``: a B-X and the I-X that follow it (seqeval's rules)."""
    entities = []
    i, n = 0, len(tags)
    while i < n:
        if tags[i][0] != "B":
            i += 1
            continue
        kind = _entity_type(tags[i])
        end = i + 1
        while end < n and tags[end][0] == "I" and _entity_type(tags[end]) == kind:
            end += 1
        entities.append((i, end, kind))
        i = end
    return entities


def _strict_counts(
    gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]
) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Per entity type: true positives, predicted, gold (what seqeval's strict mode counts)."""
    tp: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    n_true: Counter[str] = Counter()
    for g, p in zip(gold, pred, strict=True):
        true_entities = _iob2_entities(g)
        pred_entities = true_entities if p == g else _iob2_entities(p)
        n_true.update(kind for _, _, kind in true_entities)
        n_pred.update(kind for _, _, kind in pred_entities)
        tp.update(kind for _, _, kind in set(true_entities) & set(pred_entities))
    return tp, n_pred, n_true


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
    tp, n_pred, n_true = _strict_counts(gold, pred)
    precision, recall, f1 = _prf(sum(tp.values()), sum(n_pred.values()), sum(n_true.values()))
    scores = {"f1": f1, "precision": precision, "recall": recall}
    for kind in sorted(set(n_pred) | set(n_true)):
        scores[f"f1_{kind}"] = _prf(tp[kind], n_pred[kind], n_true[kind])[2]
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
        "conlleval_f1": float(f1_score(gold, pred, zero_division=0)),  # seqeval default mode
    }
    repaired = [repair_iob2(tags) for tags in pred]
    scores["repaired_f1"] = scores["f1"] if repaired == pred else strict_f1(gold, repaired)
    scores.update({name: value for name, value in report.items() if name.startswith("f1_")})
    return scores


def strict_f1(gold_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> float:
    """Only the headline strict IOB2 micro-F1: what early stopping needs each epoch."""
    gold, pred = list(gold_tags), list(pred_tags)
    if not _plain_iob2(gold, pred):
        return float(f1_score(gold, pred, mode="strict", scheme=IOB2, zero_division=0))
    _check_aligned(gold, pred)
    tp, n_pred, n_true = _strict_counts(gold, pred)
    return _prf(sum(tp.values()), sum(n_pred.values()), sum(n_true.values()))[2]


def classification_scores(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float]:
    """``accuracy`` and ``macro_f1`` (over the labels present in gold or predictions)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predicted")
    return {
        "accuracy": float(accuracy_score(gold, pred)),
        "macro_f1": float(sk_f1_score(gold, pred, average="macro", zero_division=0)),
    }
