"""Synthetic runs with a known verdict, shared by the verdict tests.

The builders live in the package (``advisor.verdict.make_synthetic_analysis`` and
``analysis_from_scores``) so the app, the report tests and the CLI tests can use the same runs;
these fixtures name the standard cases.
"""

from __future__ import annotations

import pytest

from advisor.analysis import Analysis
from advisor.verdict import make_synthetic_analysis

#: Power-law (a, b, c) settings that put each verdict in reach (noise 0.003, 3 seeds, 100..1600 items).
CASES: dict[str, dict[str, tuple[float, float, float]]] = {
    # contextual clearly ahead at full data, static far from catching up
    "use contextual": {
        "random": (0.72, 3.0, 0.45),
        "static": (0.80, 3.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # static and contextual follow the same curve; random clearly behind
    "static is enough": {
        "random": (0.70, 3.0, 0.45),
        "static": (0.86, 2.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # all three on the same curve
    "random is enough": {
        "random": (0.86, 2.0, 0.45),
        "static": (0.86, 2.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # contextual ahead now, but static is still climbing fast and catches up within a doubling of the data
    "label more data instead": {
        "random": (0.70, 3.0, 0.45),
        "static": (0.95, 3.0, 0.45),
        "contextual": (0.90, 1.0, 0.45),
    },
}


@pytest.fixture
def make_case():
    """Factory: ``make_case("static is enough", noise=0.003, ...)`` -> Analysis."""

    def build(verdict: str, **kwargs: object) -> Analysis:
        return make_synthetic_analysis(curves=CASES[verdict], **kwargs)

    return build
