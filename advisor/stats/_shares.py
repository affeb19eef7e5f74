"""How a share (of resamples, of items) is printed as a percentage, the same way in every room.

A share is never rounded to a number it is not: 0.15 % reads "< 1 %", not "0 %"; 99.6 % reads
"> 99 %", not "100 %". Only an exact 0 or 1 prints as "0 %" or "100 %".
"""

from __future__ import annotations

import math

__all__ = ["share_percent"]


def share_percent(share: float) -> str:
    """ "37 %", "< 1 %", "> 99 %", "0 %", "100 %"; a missing share (NaN) reads "n/a"."""
    if not math.isfinite(share):
        return "n/a"
    if share <= 0:
        return "0 %"
    if share >= 1:
        return "100 %"
    if share < 0.01:
        return "< 1 %"
    if share > 0.99:
        return "> 99 %"
    return f"{100 * share:.0f} %"
