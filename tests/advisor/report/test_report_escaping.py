"""User strings in the report (dataset name, paths, labels, tags, experiment) stay text: the markdown is
logged to MLflow and opened in viewers that render HTML inside markdown, so ``<img onerror=…>`` in a
dataset name must not become an element there (issue 28)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from advisor.report import write_report
from advisor.verdict import Thresholds, make_synthetic_analysis, recommend

INJECTED = "<img src=x onerror=alert(1)>"
FAST = Thresholds(n_boot=200)


def test_user_strings_are_text_in_both_reports(tmp_path: Path) -> None:
    analysis = make_synthetic_analysis(slice_effects={})
    analysis = dataclasses.replace(
        analysis,
        experiment=f"exp {INJECTED}",
        dataset={**analysis.dataset, "name": f"data {INJECTED}", "labels": ["<b>B-PER</b>", "O & <i>"]},
        params={**analysis.params, "static_file": f"/tmp/{INJECTED}.txt", "tag.owner": "<script>x</script>"},
    )
    html_path, md_path = write_report(analysis, tmp_path, FAST)
    markdown = md_path.read_text(encoding="utf-8")
    for raw in ("<img", "<b>", "<script>", "<i>"):
        assert raw not in markdown, raw
    assert "# advisor report: data &lt;img src=x onerror=alert(1)> (ner)" in markdown
    assert "&lt;b>B-PER&lt;/b>, O & &lt;i>" in markdown  # a lone "&" and ">" read as written
    assert "&lt;script>x&lt;/script>" in markdown and "/tmp/&lt;img src=x onerror=alert(1)>.txt" in markdown
    reason = recommend(analysis, FAST).reasons[0]
    # the verdict's prose ("P(gap > 1.0 pts) > 99.9 %") is untouched
    assert ">" in reason and reason in markdown
    html = html_path.read_text(encoding="utf-8")
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
