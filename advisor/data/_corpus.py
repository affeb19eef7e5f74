"""The one in-memory representation of a labelled dataset, for both tasks.

A :class:`Corpus` is a small frozen dataclass rather than a ``datasets.Dataset``: every later stage
(features, trainers, metrics) wants plain token lists and labels, and line numbers must survive so
errors and per-item reports can point back into the user's file.

- ``task == "ner"``: ``labels[i]`` is the list of IOB2 tags of sentence ``i`` (normalised on load).
- ``task == "classify"``: ``labels[i]`` is the label string of item ``i``; ``texts[i]`` its raw text.
- ``task == "pair"``: item ``i`` is two texts with one label. ``tokens[i]`` holds the words of the
  first text followed by those of the second, ``pair_split[i]`` says how many words the first has
  (so every family featurizes one word sequence per item and every word keeps one row);
  ``texts[i]`` is the first raw text and ``texts_b[i]`` the second. Both sides have at least one word.

``tokens`` and ``labels`` are lists, or for a big NER file :class:`~advisor.data._packed.Packed`
sequences (ids into one vocabulary; ``texts`` then joins tokens when asked): either reads as a
sequence of ``list[str]``, indexed and iterated, never mutated.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from advisor.data._packed import JoinedTexts, Packed, take
from advisor.vocabulary import task_choices

__all__ = ["TASKS", "Corpus", "DataSplits", "Task", "check_predictions", "check_task"]

Task = Literal["ner", "classify", "pair"]
TASKS: tuple[str, ...] = tuple(task_choices())  # the tasks registry (advisor.vocabulary)


@dataclass(frozen=True)
class Corpus:
    """Tokens and labels of one split, with where each item came from."""

    task: Task
    tokens: Sequence[list[str]]
    labels: Sequence[Any]
    source: str = "<memory>"
    line_numbers: Sequence[int] = field(default_factory=list)
    texts: Sequence[str] = field(default_factory=list)
    scheme: str | None = None
    encoding: str = "utf-8"
    skipped_lines: tuple[int, ...] = ()  # file lines of items dropped for having no text
    pair_split: Sequence[int] = ()  # pair task: words of the first text in ``tokens[i]``
    texts_b: Sequence[str] = ()  # pair task: the second raw text of each item

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.labels):
            raise ValueError("tokens and labels differ in length")
        if self.task == "pair":
            self._check_pairs()
        if not self.texts:
            joined = (
                JoinedTexts(self.tokens)
                if isinstance(self.tokens, Packed)
                else [" ".join(t) for t in self.tokens]
            )
            object.__setattr__(self, "texts", joined)
        if not self.line_numbers:
            object.__setattr__(self, "line_numbers", list(range(1, len(self.tokens) + 1)))

    def _check_pairs(self) -> None:
        """A pair corpus has one split per item, inside the item: both sides non-empty."""
        if len(self.pair_split) != len(self.tokens):
            raise ValueError("a pair corpus needs one pair_split per item")
        for split, words in zip(self.pair_split, self.tokens, strict=True):
            if not 0 < int(split) < len(words):
                raise ValueError("pair_split must leave at least one word on each side")
        if self.texts_b and len(self.texts_b) != len(self.tokens):
            raise ValueError("texts_b and tokens differ in length")
        if not self.texts_b:
            second = [" ".join(w[int(k) :]) for w, k in zip(self.tokens, self.pair_split, strict=True)]
            object.__setattr__(self, "texts_b", second)
        if not self.texts:
            first = [" ".join(w[: int(k)]) for w, k in zip(self.tokens, self.pair_split, strict=True)]
            object.__setattr__(self, "texts", first)

    @property
    def is_pair(self) -> bool:
        return self.task == "pair"

    def sides(self, i: int) -> tuple[list[str], list[str]]:
        """The words of the first and the second text of pair item ``i``."""
        words, split = list(self.tokens[i]), int(self.pair_split[i])
        return words[:split], words[split:]

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def n_tokens(self) -> int:
        if isinstance(self.tokens, Packed):
            return sum(self.tokens.lengths())
        return sum(len(t) for t in self.tokens)

    def label_counts(self) -> Counter[str]:
        """Tags (NER, counted per token) or labels (classification) with their counts."""
        if isinstance(self.labels, Packed):
            return self.labels.counts()
        if self.task == "ner":
            return Counter(tag for tags in self.labels for tag in tags)
        return Counter(self.labels)

    def label_set(self) -> list[str]:
        return sorted(self.label_counts())

    def vocabulary(self) -> Counter[str]:
        if isinstance(self.tokens, Packed):
            return self.tokens.counts()
        return Counter(tok for sent in self.tokens for tok in sent)

    def subset(self, indices: Sequence[int] | np.ndarray, source: str | None = None) -> Corpus:
        """The items at ``indices``, in that order (a view for packed storage)."""
        idx = [int(i) for i in indices]
        return replace(
            self,
            tokens=take(self.tokens, idx),
            labels=take(self.labels, idx),
            line_numbers=take(self.line_numbers, idx),
            texts=take(self.texts, idx),
            source=source or self.source,
            pair_split=take(self.pair_split, idx) if self.pair_split else (),
            texts_b=take(self.texts_b, idx) if self.texts_b else (),
        )

    def content_hash(self) -> str:
        """Stable hash of the content (task, tokens, labels): keys caches and resume, not file names."""
        digest = hashlib.sha256()
        digest.update(self.task.encode())
        for toks, lab in zip(self.tokens, self.labels, strict=True):
            digest.update(json.dumps([toks, lab], ensure_ascii=False).encode())
        if self.pair_split:
            digest.update(json.dumps([int(k) for k in self.pair_split]).encode())
        return digest.hexdigest()[:16]


@dataclass(frozen=True)
class DataSplits:
    """Train / dev / test corpora plus what the readers noticed (scheme, encoding, how split)."""

    train: Corpus
    dev: Corpus
    test: Corpus
    split_method: str = "given"
    warnings: list[str] = field(default_factory=list)
    whole: Corpus | None = None  # the training file as read, before a split held dev/test out of it

    @property
    def task(self) -> Task:
        return self.train.task

    def sizes(self) -> dict[str, int]:
        return {"train": len(self.train), "dev": len(self.dev), "test": len(self.test)}

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for part in (self.train, self.dev, self.test):
            digest.update(part.content_hash().encode())
        return digest.hexdigest()[:16]


def check_predictions(
    predicted: Sequence[Any], evaluation: Corpus, key: Any, wrong_count: Any, wrong_tags: Any
) -> None:
    """One prediction per evaluation item and, for NER, one tag per token; else the caller's catalog error.

    ``wrong_count`` / ``wrong_tags`` are :mod:`advisor._error_codes` entries (the difficulty slices and
    the gain model each name the check in their own range).
    """
    if len(predicted) != len(evaluation):
        raise wrong_count(
            key=key, n=len(predicted), n_eval=len(evaluation), hint="predict every evaluation item, in order"
        )
    if evaluation.task != "ner":
        return
    for i, (tags, tokens) in enumerate(zip(predicted, evaluation.tokens, strict=True)):
        if len(tags) != len(tokens):
            raise wrong_tags(
                key=key,
                i=i,
                n_tags=len(tags),
                n_tokens=len(tokens),
                file=evaluation.source,
                line=evaluation.line_numbers[i],
                hint="predict one IOB2 tag per token",
            )


def check_task(task: str, train: Corpus, evaluation: Corpus, mismatch: Any) -> None:
    """The task a caller asks for is the task of both corpora; else the caller's catalog error."""
    if task != train.task or task != evaluation.task:
        raise mismatch(task=task, train=train.task, evaluation=evaluation.task)
