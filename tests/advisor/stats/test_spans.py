"""Strict IOB2 spans: the rule the bootstrap, the difficulty slices and per-unit scoring share,
checked against seqeval's strict mode."""

from __future__ import annotations

import numpy as np
import pytest
from seqeval.scheme import IOB2, Entities

from advisor.stats import gold_entities, recognised_exactly, strict_entities, tag_type


def test_gold_entities_strict_iob2() -> None:
    spans = gold_entities(["I-loc", "B-per", "I-per", "I-loc", "B-loc", "B-loc"], item=7)
    assert [(s.item, s.start, s.end, s.type) for s in spans] == [
        (7, 1, 3, "per"),
        (7, 4, 5, "loc"),
        (7, 5, 6, "loc"),
    ]


def test_recognised_exactly_agrees_with_seqeval_strict() -> None:
    rng = np.random.default_rng(0)
    tags = np.array(["O", "B-a", "I-a", "B-b", "I-b"])
    for _ in range(300):
        gold = list(rng.choice(tags, size=8, p=[0.4, 0.2, 0.15, 0.15, 0.1]))
        predicted = list(rng.choice(tags, size=8, p=[0.4, 0.2, 0.15, 0.15, 0.1]))
        expected = {(e.tag, e.start, e.end) for e in Entities([predicted], IOB2, suffix=False).entities[0]}
        for span in gold_entities(gold):
            assert recognised_exactly(span, predicted) == ((span.type, span.start, span.end) in expected)


@pytest.mark.parametrize(
    "tag, expected", [("B-loc", "loc"), ("I-per-son", "per-son"), ("O", "O"), ("X", "X")]
)
def test_tag_type_strips_the_position_prefix(tag: str, expected: str) -> None:
    assert tag_type(tag) == expected


def test_strict_entities_ignore_a_stray_inside_tag() -> None:
    assert strict_entities(["I-a", "B-a", "I-a", "O", "I-b"]) == {(1, 3, "a")}
