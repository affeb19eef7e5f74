"""How a measured amount reads in a table or on a figure: the report, the plots and the app share it.

Why one function: a cost table that writes "1.12e+03" next to "71,748", or "0.000975" next to
"9.75e-04", makes the reader decode notation instead of compare numbers. A leaf: it imports nothing
of the advisor, so every package (the verdict, contextuality, the app) calls it without a cycle.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["not_a_plain_number", "readable_number"]

#: Digits after the point at most: below 0.000001 a measured amount reads as its bound.
_MAX_DECIMALS = 6


def not_a_plain_number(value: Any) -> str | None:
    """How a value that is no finite number reads (None / NaN '–', inf '∞', text as it is); None otherwise."""
    if value is None:
        return "–"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(number):
        return "–"
    if math.isinf(number):
        return "∞" if number > 0 else "−∞"
    return None


def readable_number(value: Any, signed: bool = False) -> str:
    """About three significant digits, thousands separators, never scientific notation.

    1120.0 -> '1,120', 56.54 -> '56.5', 2.5 -> '2.5', 0.000975 -> '0.000975', 4.0 -> '4';
    None / NaN -> '–', inf -> '∞'; text passes unchanged. ``signed`` writes a '+' before positives.
    """
    if isinstance(value, bool):
        return str(value)
    special = not_a_plain_number(value)
    if special is not None:
        return special
    number = float(value)
    sign = "+" if signed else ""
    size = abs(number)
    if size >= 100 or size == 0 or (size >= 1 and number.is_integer()):
        return f"{number:{sign},.0f}"
    if size < 10.0**-_MAX_DECIMALS:
        bound = f"{10.0**-_MAX_DECIMALS:.{_MAX_DECIMALS}f}"
        return f"< {bound}" if number > 0 else f"> −{bound}"
    decimals = min(_MAX_DECIMALS, 2 - math.floor(math.log10(size)))
    text = f"{number:{sign}.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
