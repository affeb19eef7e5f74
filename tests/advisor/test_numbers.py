"""One way a measured amount reads (advisor.numbers): thousands separators, about three significant
digits, never scientific notation; what is no number reads as a dash, infinity or itself."""

from __future__ import annotations

import math

import pytest

from advisor.numbers import not_a_plain_number, readable_number


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1120.0, "1,120"),
        (71748, "71,748"),
        (56.54, "56.5"),
        (2.5, "2.5"),
        (4.0, "4"),
        (0.000975, "0.000975"),
        (0.0, "0"),
        ("12345", "12,345"),  # an MLflow param is read back as text
        (1e-9, "< 0.000001"),
    ],
)
def test_a_number_reads_without_notation(value: object, expected: str) -> None:
    assert readable_number(value) == expected


def test_signed_writes_a_plus_before_positives_only() -> None:
    assert readable_number(1.94, signed=True) == "+1.94"
    assert readable_number(-1.94, signed=True) == "-1.94"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "–"), (math.nan, "–"), (math.inf, "∞"), (-math.inf, "−∞"), ("?", "?"), (True, "True")],
)
def test_what_is_no_plain_number_reads_as_such(value: object, expected: str) -> None:
    assert readable_number(value) == expected


def test_a_plain_number_has_no_special_reading() -> None:
    assert not_a_plain_number(3.0) is None
    assert not_a_plain_number("3") is None
