"""The run report: a self-contained HTML page and a markdown twin, rendered from Jinja2 templates."""

from __future__ import annotations

from advisor.report._final import log_final_report, verdict_description
from advisor.report._partial import FINAL_STATUS, is_partial, partial_label, partial_notice
from advisor.report._write import SECTIONS, TEMPLATE_DIR, render_report, write_report

__all__ = [
    "FINAL_STATUS",
    "SECTIONS",
    "TEMPLATE_DIR",
    "is_partial",
    "log_final_report",
    "partial_label",
    "partial_notice",
    "render_report",
    "verdict_description",
    "write_report",
]
