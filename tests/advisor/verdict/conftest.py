"""Synthetic runs with a known verdict, shared by the verdict tests.

The builders live in the package (``advisor.verdict.make_synthetic_analysis``, ``analysis_from_scores``
and the per-verdict curves ``VERDICT_CURVES``) so the app, the report and CLI tests can build the
same runs; this fixture names the standard cases.
"""

from __future__ import annotations

import pytest

from advisor.analysis import Analysis
from advisor.verdict import VERDICT_CURVES, make_synthetic_analysis


@pytest.fixture
def make_case():
    """Factory: ``make_case("static is enough", noise=0.001, ...)`` -> Analysis with that verdict in reach."""

    def build(verdict: str, **kwargs: object) -> Analysis:
        return make_synthetic_analysis(curves=VERDICT_CURVES[verdict], **kwargs)

    return build
