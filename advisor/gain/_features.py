"""Features of the gain model, computed from training-set statistics only.

The gain model must score *unlabelled* production text later (``advisor predict-gain``), where neither
gold labels nor the trained downstream models exist. So every feature is a function of the item's
tokens and of :class:`TrainingStatistics` (per-word label counts and the label prior, saved as JSON
beside the booster), and the very same function computes the features at fit time and at predict time.

Units: classification -> one row per sentence; sentence pairs -> one row per pair; NER -> one row per
*token*. Entities would be the paper's unit, but gold entities do not exist in unlabelled text, so
they cannot be scored there.

The difficulty metrics are recomputed here from the statistics with the very formulas of
:mod:`advisor.difficulty` (``smoothed_label_table``, ``unseen_share``, ``label_count``; a test checks
they equal :func:`advisor.difficulty.item_metrics`):

- classification: ``classify_unseen`` (share of never-seen tokens), ``classify_ambiguity`` (label
  entropy of the mean smoothed p(label | word)), ``classify_complexity`` (mean dependency distance;
  needs a spaCy parse, so it is optional).
- pairs: ``pair_unseen``, ``pair_ambiguity`` and ``pair_complexity`` over both texts, and
  ``pair_overlap`` (share of the shorter text's words found in the other), as in
  :mod:`advisor.difficulty`; ``length_ratio`` = shorter text's words / longer text's words.
- NER tokens: ``ner_unseen`` = 1 / training count, with never-seen tokens at ``2.0`` instead of
  ``inf`` (above every seen token's 1/count <= 1, and finite for the booster); ``ner_ambiguity`` =
  number of distinct labels (entity type or O) of the token in training, NaN (missing, which
  LightGBM routes on its own) for a never-seen token, as in the difficulty metric. ``ner_complexity`` is left
  out: at token level it is the length of the *gold* entity, unknown on unlabelled text.

Cheap extras: length, casing, digits, training frequency (log1p count) and, for NER tokens, whether
the neighbours are unseen and the sentence's unseen share (context is what a contextual encoder adds).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from advisor._error_codes import E801, E802
from advisor.data import Corpus
from advisor.difficulty import label_count, label_entropy, lexical_overlap, smoothed_label_table, unseen_share
from advisor.stats import tag_type
from advisor.vocabulary import one_label_per_item, task_spec

__all__ = [
    "FEATURES",
    "NEVER_SEEN",
    "PAIR_JOIN",
    "PARSED",
    "FeatureSpec",
    "TrainingStatistics",
    "default_features",
    "gain_features",
    "item_of",
    "unit_of",
]

#: ``ner_unseen`` of a token never seen in training (1/count is at most 1 for seen tokens).
NEVER_SEEN = 2.0
STATISTICS_VERSION = 1


@dataclass(frozen=True)
class FeatureSpec:
    """How a feature reads in an insight sentence: a phrase and a kind (share, number, flag)."""

    phrase: str
    kind: str  # "share" (0-1, printed as %), "number", "flag" (0/1)


FEATURES: dict[str, dict[str, FeatureSpec]] = {
    "classify": {
        "classify_unseen": FeatureSpec("share of words unseen in training", "share"),
        "classify_ambiguity": FeatureSpec("label entropy of its words (bits)", "number"),
        "classify_complexity": FeatureSpec("mean dependency distance (tokens)", "number"),
        "n_tokens": FeatureSpec("length in tokens", "number"),
        "mean_word_length": FeatureSpec("mean word length (characters)", "number"),
        "share_capitalised": FeatureSpec("share of capitalised words after the first", "share"),
        "share_digits": FeatureSpec("share of words with digits", "share"),
        "mean_log_count": FeatureSpec("mean log(1 + training count) of its words", "number"),
        "min_log_count": FeatureSpec("lowest log(1 + training count) of its words", "number"),
    },
    "pair": {
        "pair_unseen": FeatureSpec("share of words unseen in training", "share"),
        "pair_ambiguity": FeatureSpec("label entropy of its words (bits)", "number"),
        "pair_complexity": FeatureSpec("mean dependency distance of its two texts (tokens)", "number"),
        "pair_overlap": FeatureSpec("share of the shorter text's words found in the other text", "share"),
        "n_tokens": FeatureSpec("length of both texts in tokens", "number"),
        "length_ratio": FeatureSpec("length of the shorter text over the longer", "share"),
        "mean_word_length": FeatureSpec("mean word length (characters)", "number"),
        "share_digits": FeatureSpec("share of words with digits", "share"),
        "mean_log_count": FeatureSpec("mean log(1 + training count) of its words", "number"),
        "min_log_count": FeatureSpec("lowest log(1 + training count) of its words", "number"),
    },
    "ner": {
        "ner_unseen": FeatureSpec("1 / training count (2 = never seen)", "number"),
        "ner_ambiguity": FeatureSpec("number of distinct training labels", "number"),
        "log_count": FeatureSpec("log(1 + training count)", "number"),
        "token_length": FeatureSpec("length in characters", "number"),
        "is_capitalised": FeatureSpec("capitalised", "flag"),
        "is_upper": FeatureSpec("all upper case", "flag"),
        "has_digit": FeatureSpec("containing a digit", "flag"),
        "is_first": FeatureSpec("first in its sentence", "flag"),
        "sentence_length": FeatureSpec("sentence length in tokens", "number"),
        "prev_unseen": FeatureSpec("preceded by an unseen word", "flag"),
        "next_unseen": FeatureSpec("followed by an unseen word", "flag"),
        "sentence_unseen_share": FeatureSpec("share of unseen words in the sentence", "share"),
    },
}


#: The features that need a spaCy parse, left out by ``default_features(task, parse=False)``.
PARSED: frozenset[str] = frozenset({"classify_complexity", "pair_complexity"})


def unit_of(task: str) -> str:
    """The gain model's unit, as the task spec names it: sentences, pairs or NER tokens."""
    return task_spec(task).gain_unit


def item_of(task: str) -> str:
    """What the gain model keeps together (CV folds, insight halves, bootstrap): an item of the data, i.e.
    the unit itself where each item is one unit (a sentence, a pair), else the sentence of NER tokens."""
    return unit_of(task) if one_label_per_item(task) else "sentence"


def default_features(task: str, parse: bool = True) -> list[str]:
    """All features of ``task``; ``parse=False`` drops the spaCy-based complexity."""
    names = list(FEATURES[task])
    return [n for n in names if parse or n not in PARSED]


@dataclass(frozen=True)
class TrainingStatistics:
    """What the features need from the training split: per-word label counts and the label prior.

    ``word_label_counts[w][y]`` counts occurrences of word ``w`` in training sentences labelled ``y``
    (classification) or tagged with entity type ``y`` / ``O`` (NER). The prior is the share of
    training sentences per label (classification) or of tokens per type (NER).
    """

    task: str
    word_label_counts: dict[str, dict[str, int]]
    label_prior: dict[str, float]
    spacy_model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_corpus(cls, train: Corpus, spacy_model: str | None = None) -> TrainingStatistics:
        counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
        if train.task == "ner":
            for tokens, tags in zip(train.tokens, train.labels, strict=True):
                for token, tag in zip(tokens, tags, strict=True):
                    counts[token][tag_type(tag)] += 1
            prior_counts = Counter(tag_type(tag) for tags in train.labels for tag in tags)
        else:
            for tokens, label in zip(train.tokens, train.labels, strict=True):
                for token in tokens:
                    counts[token][str(label)] += 1
            prior_counts = Counter(str(label) for label in train.labels)
        total = sum(prior_counts.values()) or 1
        return cls(
            task=train.task,
            word_label_counts={w: dict(c) for w, c in counts.items()},
            label_prior={label: n / total for label, n in sorted(prior_counts.items())},
            spacy_model=spacy_model,
        )

    @cached_property
    def token_counts(self) -> dict[str, int]:
        return {w: sum(c.values()) for w, c in self.word_label_counts.items()}

    @cached_property
    def _probability_table(self) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
        """Smoothed p(label | word) exactly as :func:`advisor.difficulty.word_label_probabilities`."""
        labels = list(self.label_prior)
        prior = np.array([self.label_prior[y] for y in labels])
        index = {w: i for i, w in enumerate(self.word_label_counts)}
        counts = np.zeros((len(index), len(labels)))
        column = {y: k for k, y in enumerate(labels)}
        for w, row in self.word_label_counts.items():
            for y, n in row.items():
                counts[index[w], column[y]] = n
        return index, smoothed_label_table(counts, prior), prior

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATISTICS_VERSION,
            "task": self.task,
            "word_label_counts": self.word_label_counts,
            "label_prior": self.label_prior,
            "spacy_model": self.spacy_model,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> TrainingStatistics:
        if payload.get("version") != STATISTICS_VERSION or payload.get("task") not in FEATURES:
            raise E801(version=payload.get("version"), task=payload.get("task"), expected=STATISTICS_VERSION)
        return cls(
            task=payload["task"],
            word_label_counts={
                w: {y: int(n) for y, n in c.items()} for w, c in payload["word_label_counts"].items()
            },
            label_prior={y: float(p) for y, p in payload["label_prior"].items()},
            spacy_model=payload.get("spacy_model"),
            extra=dict(payload.get("extra", {})),
        )


def _log_count(count: int) -> float:
    return math.log1p(count)


def _text_values(words: Sequence[str], seen: Sequence[int]) -> dict[str, float]:
    """The cheap extras of a text's words (classification and pairs share them): length, word length,
    digits, training frequency."""
    n = len(words)
    return {
        "n_tokens": float(n),
        "mean_word_length": float(np.mean([len(t) for t in words])) if n else 0.0,
        "share_digits": sum(any(ch.isdigit() for ch in t) for t in words) / n if n else 0.0,
        "mean_log_count": float(np.mean([_log_count(c) for c in seen])) if n else 0.0,
        "min_log_count": min((_log_count(c) for c in seen), default=0.0),
    }


def _classify_rows(
    stats: TrainingStatistics, tokens: Sequence[Sequence[str]], names: Sequence[str], cache_dir: Path | None
) -> dict[str, list[float]]:
    counts = stats.token_counts
    index, table, prior = stats._probability_table
    columns: dict[str, list[float]] = {n: [] for n in names}
    for sentence in tokens:
        seen = [counts.get(t, 0) for t in sentence]
        n = len(sentence)
        values = {
            "classify_unseen": unseen_share(seen),
            "share_capitalised": sum(t[:1].isupper() for t in sentence[1:]) / (n - 1) if n > 1 else 0.0,
            **_text_values(sentence, seen),
        }
        if "classify_ambiguity" in columns:
            values["classify_ambiguity"] = label_entropy(sentence, index, table, prior)
        for name in names:
            if name != "classify_complexity":
                columns[name].append(float(values[name]))
    if "classify_complexity" in columns:
        from advisor.difficulty import dependency_distance, parse_tokens

        docs = parse_tokens(tokens, spacy_model=stats.spacy_model, cache_dir=cache_dir)
        columns["classify_complexity"] = [dependency_distance(doc) for doc in docs]
    return columns


def _pair_rows(
    stats: TrainingStatistics,
    tokens: Sequence[Sequence[str]],
    pair_split: Sequence[int],
    names: Sequence[str],
    cache_dir: Path | None,
) -> dict[str, list[float]]:
    """Pair features: the classification ones over both texts' words, plus overlap and length ratio."""
    counts = stats.token_counts
    index, table, prior = stats._probability_table
    columns: dict[str, list[float]] = {n: [] for n in names}
    sides = [
        (list(words[: int(k)]), list(words[int(k) :])) for words, k in zip(tokens, pair_split, strict=True)
    ]
    for words, (a, b) in zip(tokens, sides, strict=True):
        seen = [counts.get(t, 0) for t in words]
        longer = max(len(a), len(b))
        values = {
            "pair_unseen": unseen_share(seen),
            "pair_overlap": lexical_overlap(a, b),
            "length_ratio": min(len(a), len(b)) / longer if longer else float("nan"),
            **_text_values(words, seen),
        }
        if "pair_ambiguity" in columns:
            values["pair_ambiguity"] = label_entropy(words, index, table, prior)
        for name in names:
            if name != "pair_complexity":
                columns[name].append(float(values[name]))
    if "pair_complexity" in columns:
        from advisor.difficulty import parse_tokens, pooled_arc_length

        # Each text parsed alone, all first texts then all second ones: the metric's parse and cache.
        docs = parse_tokens([a for a, _ in sides] + [b for _, b in sides], stats.spacy_model, cache_dir)
        pairs = zip(docs[: len(sides)], docs[len(sides) :], strict=True)
        columns["pair_complexity"] = [pooled_arc_length(pair) for pair in pairs]
    return columns


def _ner_rows(
    stats: TrainingStatistics, tokens: Sequence[Sequence[str]], names: Sequence[str]
) -> dict[str, list[float]]:
    counts = stats.token_counts
    labels = stats.word_label_counts
    columns: dict[str, list[float]] = {n: [] for n in names}
    for sentence in tokens:
        seen = [counts.get(t, 0) for t in sentence]
        n = len(sentence)
        sentence_unseen = unseen_share(seen)
        for i, token in enumerate(sentence):
            values = {
                "ner_unseen": 1.0 / seen[i] if seen[i] else NEVER_SEEN,
                "ner_ambiguity": label_count(labels.get(token)),
                "log_count": _log_count(seen[i]),
                "token_length": float(len(token)),
                "is_capitalised": float(token[:1].isupper()),
                "is_upper": float(token.isupper()),
                "has_digit": float(any(ch.isdigit() for ch in token)),
                "is_first": float(i == 0),
                "sentence_length": float(n),
                "prev_unseen": float(i > 0 and seen[i - 1] == 0),
                "next_unseen": float(i + 1 < n and seen[i + 1] == 0),
                "sentence_unseen_share": sentence_unseen,
            }
            for name in names:
                columns[name].append(values[name])
    return columns


#: How a pair's two texts are joined in the ``text`` column (the parallel-text convention).
PAIR_JOIN = " ||| "


def gain_features(
    stats: TrainingStatistics,
    tokens: Sequence[Sequence[str]],
    names: Sequence[str] | None = None,
    cache_dir: Path | str | None = None,
    *,
    pair_split: Sequence[int] | None = None,
) -> pd.DataFrame:
    """One row per unit (sentence, pair, or NER token) of ``tokens``: ``item``, ``unit``, ``text`` and the features.

    ``item`` is the sentence index (the CV and bootstrap group); ``unit`` is the token position for
    NER. Only ``stats`` is needed, so this runs on unlabelled text exactly as at fit time. A pair
    model needs ``pair_split`` (words of the first text in each ``tokens[i]``, as ``Corpus.pair_split``);
    its ``text`` shows the two texts joined by :data:`PAIR_JOIN`.
    """
    available = FEATURES[stats.task]
    chosen = list(names) if names is not None else default_features(stats.task)
    unknown = [n for n in chosen if n not in available]
    if unknown:
        raise E802(task=stats.task, names=", ".join(unknown), choices=", ".join(available))
    folder = Path(cache_dir) if cache_dir is not None else None
    if stats.task == "ner":
        frame = pd.DataFrame(
            {
                "item": [i for i, s in enumerate(tokens) for _ in s],
                "unit": [k for s in tokens for k in range(len(s))],
                "text": [t for s in tokens for t in s],
            }
        )
        columns = _ner_rows(stats, tokens, chosen)
    elif stats.task == "pair":
        if pair_split is None or len(pair_split) != len(tokens):
            raise ValueError("pair features need one pair_split per item")
        splits = zip(tokens, pair_split, strict=True)
        texts = [" ".join(s[: int(k)]) + PAIR_JOIN + " ".join(s[int(k) :]) for s, k in splits]
        frame = pd.DataFrame({"item": range(len(tokens)), "unit": range(len(tokens)), "text": texts})
        columns = _pair_rows(stats, tokens, pair_split, chosen, folder)
    else:
        frame = pd.DataFrame(
            {"item": range(len(tokens)), "unit": range(len(tokens)), "text": [" ".join(s) for s in tokens]}
        )
        columns = _classify_rows(stats, tokens, chosen, folder)
    for name in chosen:
        frame[name] = np.asarray(columns[name], dtype=float)
    frame.attrs.update({"task": stats.task, "unit": unit_of(stats.task), "features": chosen})
    return frame
