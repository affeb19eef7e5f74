"""The report renders every section, inlines its figures, and says what the verdict says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.report import SECTIONS, write_report
from advisor.verdict import Thresholds, analysis_from_scores, make_synthetic_analysis, recommend

FAST = Thresholds(n_boot=200)


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    analysis = make_synthetic_analysis()
    return write_report(analysis, tmp_path_factory.mktemp("report"), FAST)


def test_html_has_every_section_and_inlined_images_only(full_report: tuple[Path, Path]) -> None:
    html = full_report[0].read_text(encoding="utf-8")
    for heading in SECTIONS:
        assert re.search(rf"<h2 id=\"[a-z-]+\">{re.escape(heading)}</h2>", html), heading
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert len(images) == 5  # learning curves, data efficiency, extrapolation, costs, difficulty gaps
    assert all(src.startswith("data:image/png;base64,iVBORw0KGgo") for src in images)  # PNG magic
    assert not re.search(r"<(script|link)\b", html)  # self-contained: no external CSS/JS
    assert "http://" not in html and "https://" not in html


def test_markdown_has_every_section_and_linked_figures(full_report: tuple[Path, Path]) -> None:
    md_path = full_report[1]
    markdown = md_path.read_text(encoding="utf-8")
    for heading in SECTIONS:
        assert f"\n\n## {heading}\n" in markdown, heading  # a blank line apart from what comes before
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", markdown)
    assert len(links) == 5
    for link in links:
        assert (md_path.parent / link).read_bytes().startswith(b"\x89PNG")


def test_report_states_the_verdict_reasons_and_thresholds(full_report: tuple[Path, Path]) -> None:
    rec = recommend(make_synthetic_analysis(), FAST)
    html, markdown = (p.read_text(encoding="utf-8") for p in full_report)
    assert rec.verdict == "use contextual"
    assert f"**{rec.verdict.upper()}**" in markdown
    assert f'<div class="label">{rec.verdict}</div>' in html
    for reason in rec.reasons[:3]:
        assert reason in markdown
    assert "| acceptable_loss | 0.01 |" in markdown
    assert "contextual / static" in markdown  # cost ratios
    assert "B-LOC, B-ORG" in markdown  # dataset labels
    assert "| numpy |" in markdown  # library versions


def test_without_difficulty_figure_the_slices_table_is_rendered(tmp_path: Path, monkeypatch) -> None:
    import advisor.report._write as writer

    monkeypatch.setattr(writer, "plot_difficulty_gaps", lambda slices: None)
    _, md_path = write_report(make_synthetic_analysis(), tmp_path, FAST)
    markdown = md_path.read_text(encoding="utf-8")
    assert "| metric | size | pair | slice |" in markdown and "| gap (pts) | CI (pts) |" in markdown
    assert "| unseen | 1,600 | contextual-static | difficult-minus-easy |" in markdown
    assert "difficulty_gaps.png" not in markdown


def test_inconclusive_run_without_slices_still_renders(tmp_path: Path) -> None:
    analysis = analysis_from_scores(
        {"contextual": {100: [0.5], 800: [0.9]}, "static": {100: [0.3], 800: [0.5]}}
    )
    html_path, md_path = write_report(analysis, tmp_path, FAST)
    markdown = md_path.read_text(encoding="utf-8")
    assert "**INCONCLUSIVE**" in markdown and "too few seeds" in markdown
    assert "This run has no difficulty analysis." in markdown
    for heading in SECTIONS:
        assert f">{heading}</h2>" in html_path.read_text(encoding="utf-8")
