"""The run report: a self-contained HTML page and a markdown twin, rendered from Jinja2 templates."""

from __future__ import annotations

from advisor.report._write import SECTIONS, TEMPLATE_DIR, render_report, write_report

__all__ = ["SECTIONS", "TEMPLATE_DIR", "render_report", "write_report"]
