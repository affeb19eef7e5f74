"""A data-efficiency figure pinned at the smallest size tried is worded censored wherever it is shown:
the verdict's reasons and JSON, the markdown and HTML reports (never a point interval "8.0 … 8.0")."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.analysis import Analysis
from advisor.report import write_report
from advisor.verdict import Recommendation, Thresholds, analysis_from_scores, recommend

FAST = Thresholds(n_boot=200)
SIZES = (100, 200, 400, 800)
WORDING = "it needs at most 1/8.0 of the data; censored: matched at the smallest size tried, 100 items"


@pytest.fixture(scope="module")
def censored() -> tuple[Analysis, Recommendation]:
    """Contextual above static's full-data score at every size, 100 items included."""
    seeds = (-0.01, 0.0, 0.01)
    scores = {
        "random": {n: [m + s for s in seeds] for n, m in zip(SIZES, (0.3, 0.35, 0.4, 0.45), strict=True)},
        "static": {n: [m + s for s in seeds] for n, m in zip(SIZES, (0.5, 0.55, 0.6, 0.65), strict=True)},
        "contextual": {n: [m + s for s in seeds] for n, m in zip(SIZES, (0.7, 0.75, 0.8, 0.85), strict=True)},
    }
    analysis = analysis_from_scores(scores)
    return analysis, recommend(analysis, FAST)


def test_the_verdict_words_it_censored(censored: tuple[Analysis, Recommendation]) -> None:
    _, rec = censored
    static = next(e for e in rec.efficiency if e.baseline == "static")
    assert static.censored and static.size_needed == 100
    assert any(WORDING in reason for reason in rec.reasons)
    assert not any("1/8.0 to 1/8.0" in reason for reason in rec.reasons)
    assert all(e["censored"] for e in rec.to_dict()["efficiency"])


def test_both_reports_show_it_censored(censored: tuple[Analysis, Recommendation], tmp_path: Path) -> None:
    analysis, rec = censored
    html_path, md_path = write_report(analysis, tmp_path, FAST, recommendation=rec)
    md, html = md_path.read_text(encoding="utf-8"), html_path.read_text(encoding="utf-8")
    assert "| static | 0.650 | 100 | ≤ 1/8.0 (censored) | censored | ≥ 8.0 (censored) |" in md
    assert "8.0 … 8.0" not in md and "8.0 … 8.0" not in html
    assert "<td>censored</td>" in html and "≤ 1/8.0 (censored)" in html
    assert WORDING in md and WORDING in html
