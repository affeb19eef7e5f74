"""Save the report of a closed run: its HTML and Markdown, their figures, and the run page's description.

The report is rendered by :mod:`advisor.report` from the run's Analysis; here only where it goes
(``report/``, ``report/figures/``, the MLflow description tag).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from advisor.tracking._layout import REPORT_FIGURES, REPORT_FOLDER
from advisor.tracking._views import set_description

__all__ = ["log_report"]


def log_report(client: Any, run_id: str, files: tuple[Path, Path], figures: Path, description: str) -> None:
    """Log the report ``files`` (HTML, Markdown), the ``figures`` folder beside them and the description."""
    for path in files:
        client.log_artifact(run_id, str(path), REPORT_FOLDER)
    client.log_artifacts(run_id, str(figures), REPORT_FIGURES)
    set_description(client, run_id, description)
