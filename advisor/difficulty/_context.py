"""What every difficulty metric is computed from: the two corpora, the unit level and shared caches.

Metrics are registered functions ``fn(context) -> np.ndarray`` (one value per unit of the table at
``context.level``); the context computes training statistics and parses once, lazily, so that three
metrics over the same corpora do not count or parse three times.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from advisor._error_codes import E501, E502, E503, E504
from advisor.vocabulary import task_choices, task_spec

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from advisor.data import Corpus

__all__ = ["LEVELS", "MetricContext", "default_level"]

#: Units a task can be analysed at, its default first (the task specs of :mod:`advisor.vocabulary`).
LEVELS: dict[str, tuple[str, ...]] = {name: task_spec(name).levels for name in task_choices()}


def default_level(task: str) -> str:
    """Entities are the natural NER unit (the paper's span metric is per entity); sentences otherwise."""
    return LEVELS[task][0]


@dataclass
class MetricContext:
    """Inputs shared by the metrics of one table: training and evaluation corpus, level, parse options."""

    train: Corpus
    evaluation: Corpus
    level: str
    spacy_model: str | None = None
    cache_dir: Path | None = None

    def __post_init__(self) -> None:
        if self.train.task != self.evaluation.task:
            raise E501(
                train=self.train.task,
                evaluation=self.evaluation.task,
                hint="compute difficulty metrics on two splits of the same dataset",
            )
        if self.task not in LEVELS:
            raise E502(task=self.task)
        if self.level not in LEVELS[self.task]:
            raise E503(level=self.level, task=self.task, choices=", ".join(LEVELS[self.task]))
        if len(self.train) == 0:
            raise E504()

    @property
    def task(self) -> str:
        return self.train.task

    @cached_property
    def train_token_counts(self) -> Counter[str]:
        """Exact-string (case-sensitive) token counts in the training split."""
        return self.train.vocabulary()

    @cached_property
    def eval_docs(self) -> list[Doc]:
        """Dependency parses of the evaluation tokens, from the on-disk cache when possible."""
        from advisor.difficulty._parse import parse_tokens

        return parse_tokens(self.evaluation.tokens, spacy_model=self.spacy_model, cache_dir=self.cache_dir)

    @cached_property
    def eval_side_docs(self) -> list[tuple[Doc, Doc]]:
        """Pair task: parses of each item's two texts, each text alone (one parse of the concatenation
        would draw arcs from one sentence into the other); one cached parse of all sides."""
        from advisor.difficulty._parse import parse_tokens

        sides = [self.evaluation.sides(i) for i in range(len(self.evaluation))]
        words = [a for a, _ in sides] + [b for _, b in sides]
        docs = parse_tokens(words, spacy_model=self.spacy_model, cache_dir=self.cache_dir)
        return list(zip(docs[: len(sides)], docs[len(sides) :], strict=True))
