"""What the trainers read of a labelled corpus: a structural type, so ``trainers`` needs nothing from ``advisor``.

``advisor.data.Corpus`` satisfies it; so does any object with these attributes (tests may pass
their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["LabelledItems"]


class LabelledItems(Protocol):
    """Items with gold labels: NER sentences (tokens and one tag per token) or texts with one label."""

    task: str  # "ner" | "classify" | "pair" (a pair item's tokens: the first text's words, then the second's)
    tokens: Sequence[Sequence[str]]
    labels: Sequence[Any]
    source: str
    line_numbers: Sequence[int]
    pair_split: Sequence[int]  # pair task: words of the first text in ``tokens[i]``; empty otherwise

    def __len__(self) -> int: ...

    def label_counts(self) -> Any: ...
