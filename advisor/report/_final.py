"""The report ``advisor run`` logs, written after the run is closed so that it states the final status."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from advisor.report._partial import partial_notice
from advisor.report._write import write_report
from advisor.verdict import Recommendation, render

__all__ = ["log_final_report", "verdict_description"]


def verdict_description(rec: Recommendation, status: str | None) -> str:
    """Markdown for the MLflow run description: the verdict summary (with the partial notice if any)."""
    notice = partial_notice(status)
    lines = [f"**{notice}**", ""] if notice else []
    words = render(rec)
    lines += [f"**Verdict: {rec.verdict.upper()}**", "", words.headline, ""]
    lines += [f"- {reason}" for reason in words.reasons]
    lines += [f"- {sentence}" for sentence in [*words.carrying, *words.easier]]
    lines += [f"- caveat: {c}" for c in words.caveats]
    return "\n".join(lines).strip() + "\n"


def log_final_report(client: Any, run_id: str, tracking_uri: str) -> float:
    """Re-read the closed run, judge it, log ``report/`` and the run description; returns the seconds taken."""
    from advisor.tracking import load_analysis, set_description
    from advisor.verdict import recommend

    started = time.perf_counter()
    analysis = load_analysis(run_id, tracking_uri)
    rec = recommend(analysis)
    with tempfile.TemporaryDirectory() as tmp:
        html, md = write_report(analysis, tmp, recommendation=rec)
        client.log_artifact(run_id, str(html), "report")
        client.log_artifact(run_id, str(md), "report")
        client.log_artifacts(run_id, str(Path(tmp) / "figures"), "report/figures")
    set_description(client, run_id, verdict_description(rec, analysis.status))
    return time.perf_counter() - started
