"""The report of a closed run: judged from the Analysis the stages assembled, rendered, recorded.

Written after the runs are closed, so it states the run's final status; judged from the run's own
:class:`~advisor.analysis.Analysis` (with that status), the same object a reader gets back with
``advisor.tracking.load_analysis``, so the run is not read back to be reported.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from advisor.analysis import Analysis
from advisor.tracking import headline_metrics, log_report

__all__ = ["final_report"]


def final_report(tracker: Any, analysis: Analysis) -> float:
    """Judge ``analysis``, render ``report/`` and the run description, log them with the headline
    metrics (MLflow's runs table shows the answer); the seconds taken."""
    from advisor.report import verdict_description, write_report
    from advisor.verdict import recommend

    started = time.perf_counter()
    recommendation = recommend(analysis)
    description = verdict_description(recommendation, analysis.status)
    with tempfile.TemporaryDirectory() as tmp:
        html, md = write_report(analysis, tmp, recommendation=recommendation)
        files = (Path(html), Path(md))
        log_report(tracker.client, tracker.parent_id, files, Path(tmp) / "figures", description)
    tracker.log_parent_metrics(headline_metrics(recommendation, analysis))
    return time.perf_counter() - started
