"""A share is printed as a percentage it is: 0.15 % is "< 1 %", never "0 %"; 99.6 % is "> 99 %"."""

from __future__ import annotations

import math

import pytest

from advisor.stats import share_percent


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.0, "0 %"),
        (0.0015, "< 1 %"),
        (0.0099, "< 1 %"),
        (0.01, "1 %"),
        (0.374, "37 %"),
        (0.996, "> 99 %"),
        (1.0, "100 %"),
        (math.nan, "n/a"),
    ],
)
def test_share_percent(share: float, text: str) -> None:
    assert share_percent(share) == text
