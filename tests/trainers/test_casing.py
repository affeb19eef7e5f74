from __future__ import annotations

from trainers import CASING_CLASSES, casing_ids


def test_casing_classes() -> None:
    tokens = ["paris", "NASA", "Paris", "iPhone", "2017", "A4", ",", "...", "I", "@user", "ñandú", "日本"]
    names = [CASING_CLASSES[i] for i in casing_ids(tokens)]
    assert names == [
        "lower",
        "upper",
        "title",
        "mixed",
        "digit",
        "digit",
        "punct",
        "punct",
        "title",
        "lower",
        "lower",
        "other",
    ]
