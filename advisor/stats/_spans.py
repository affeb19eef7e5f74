"""Strict IOB2 entity spans of raw tag sequences: the one span rule the bootstrap, the difficulty slices
and the per-unit scoring (``advisor.vocabulary``) share.

``B-X`` opens an entity, the ``I-X`` right after it continue it, and anything else ends it; a stray
``I-X`` (after ``O`` or after another type) is no entity. Readers normalise gold tags to IOB2, so on
gold data this equals seqeval's strict IOB2 parse (``mode="strict"``, ``scheme=IOB2``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["EntitySpan", "gold_entities", "recognised_exactly", "strict_entities", "tag_type"]


@dataclass(frozen=True)
class EntitySpan:
    """A gold entity: sentence index, token span ``[start, end)`` and type."""

    item: int
    start: int
    end: int
    type: str

    @property
    def length(self) -> int:
        return self.end - self.start


def tag_type(tag: str) -> str:
    """``B-loc`` / ``I-loc`` -> ``loc``; ``O`` stays ``O``."""
    if tag == "O":
        return "O"
    return tag.split("-", 1)[1] if len(tag) > 2 and tag[1] == "-" else tag


def gold_entities(tags: Sequence[str], item: int = 0) -> list[EntitySpan]:
    """Strict IOB2 entities of one sentence: ``B-X`` opens, ``I-X`` continues; a stray ``I-X`` is no entity.

    Readers normalise gold tags to IOB2, so on gold data this equals seqeval's strict IOB2 parse.
    """
    spans: list[EntitySpan] = []
    position = 0
    n = len(tags)
    while position < n:
        tag = tags[position]
        if tag.startswith("B-"):
            kind = tag[2:]
            end = position + 1
            while end < n and tags[end] == f"I-{kind}":
                end += 1
            spans.append(EntitySpan(item, position, end, kind))
            position = end
        else:
            position += 1
    return spans


def strict_entities(tags: Sequence[str]) -> set[tuple[int, int, str]]:
    """Strict IOB2 entities ``(start, end, type)`` of raw tags, as a set to intersect gold with predictions."""
    return {(e.start, e.end, e.type) for e in gold_entities(list(tags))}


def recognised_exactly(span: EntitySpan, predicted: Sequence[str]) -> bool:
    """Whether strict IOB2 decoding of ``predicted`` yields exactly this entity (type and both bounds)."""
    if predicted[span.start] != f"B-{span.type}":
        return False
    inside = f"I-{span.type}"
    if any(predicted[i] != inside for i in range(span.start + 1, span.end)):
        return False
    return span.end >= len(predicted) or predicted[span.end] != inside
