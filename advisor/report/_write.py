"""Write the run report: one self-contained HTML file and a markdown twin, from Jinja2 templates.

The HTML inlines its figures as base64 PNG and its CSS, so it can be mailed or logged to MLflow and
opened anywhere offline. The markdown links the same figures as files in ``figures/`` next to it
(markdown viewers rarely show data URIs).
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from matplotlib.figure import Figure

from advisor.analysis import Analysis
from advisor.contextuality import encoder_name, layer_figures, layer_report
from advisor.plots import (
    plot_costs,
    plot_data_efficiency,
    plot_difficulty_gaps,
    plot_extrapolation,
    plot_learning_curves,
)
from advisor.report._partial import partial_label, partial_notice
from advisor.verdict import (
    COST_COLUMNS,
    MIN_MEASURABLE_MB,
    Recommendation,
    Thresholds,
    method_notes,
    not_a_plain_number,
    readable_number,
    recommend,
    render,
)

__all__ = ["SECTIONS", "TEMPLATE_DIR", "render_report", "write_report"]

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"
#: What markdown renders as HTML: a ``<`` before a tag name, ``/``, ``!`` or ``?``, and an entity.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?\w+;)")

#: Columns of the run's embedding table shown in the report (others are internal details).
EMBEDDING_COLUMNS: tuple[str, ...] = (
    "embedding",
    "model",
    "dim",
    "embedding_bytes",
    "featurize_seconds",
    "featurize_items_per_s",
    "cache_hit",
)

#: Section headings, in order, shared by both templates (and checked by the tests).
SECTIONS: tuple[str, ...] = (
    "Verdict",
    "Learning curves",
    "Data efficiency",
    "Learning-curve extrapolation",
    "Costs",
    "Difficulty slices",
    "Dataset",
    "Embeddings and encoder",
    "Environment",
    "Method",
    "Thresholds",
)


def _num(value: Any, spec: str = ".3f") -> str:
    """Format a number; NaN/None/inf read as a dash or '∞' rather than 'nan'."""
    special = not_a_plain_number(value)
    return special if special is not None else format(float(value), spec)


def _cell(value: Any) -> str:
    """A table cell: booleans as yes/no, numbers readable (separators, no scientific notation), None as a
    dash (a classification dataset has no tagging scheme), the rest as text."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return readable_number(value)
    return str(value)


def _pts(value: Any, spec: str = "+.1f") -> str:
    """A score difference in points (0.019 -> '+1.9'), as the verdict states gaps."""
    try:
        text = _num(100 * float(value), spec)
    except (TypeError, ValueError):
        return _num(value)
    return "0.0" if text in ("+0.0", "-0.0") else text  # as the verdict writes a zero gap


def _count(value: Any) -> str:
    """A count with thousands separators (9001 -> '9,001'); text passes unchanged."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return _num(value, ",.0f")
    return str(value) if value is not None else "–"


def _param(key: str, value: Any) -> str:
    """A logged param as text: a plain count (all digits) gets separators; ids, hashes and seeds do not."""
    text = _short(value)
    if re.fullmatch(r"\d{4,}", text) and not key.endswith(("hash", "id", "seed")):
        return f"{int(text):,}"
    return text


def _short(value: Any, limit: int = 160) -> str:
    """Long parameter values (JSON blobs) are cut: the report is for reading."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(value: Any) -> str:
    """Make text safe inside a markdown table cell."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _md_text(value: Any) -> Any:
    """Every value the markdown template prints, with what markdown would read as HTML made text.

    The markdown is logged to MLflow and opened in viewers that render HTML inside markdown: a dataset
    name, path, label or tag such as ``<img src=x onerror=…>`` must stay text. Only a ``<`` that opens
    a tag, comment or autolink and an ``&`` that spells an entity are escaped, so "p < 0.05" and "> 99 %"
    read as written. Numbers pass unchanged.
    """
    if value is None or isinstance(value, int | float):
        return value
    return _TAG_START.sub("&lt;", _ENTITY.sub("&amp;", str(value)))


def _environment(markdown: bool = False) -> Environment:
    """The Jinja environment: HTML autoescaped, markdown through :func:`_md_text`."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        finalize=_md_text if markdown else None,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["num"] = _num
    env.filters["pts"] = _pts
    env.filters["count"] = _count
    env.filters["md"] = _md
    return env


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def _figures(analysis: Analysis, rec: Recommendation) -> dict[str, dict[str, Any]]:
    """Every figure of the report as PNG bytes with a caption; absent figures are left out."""
    figures: dict[str, tuple[Figure | None, str]] = {
        "learning_curves": (
            plot_learning_curves(analysis, rec.fits, rec.thresholds.confidence),
            "Mean score per training size with the t-interval over seeds (band; an error bar where a family "
            "has one size); dashed: fitted curves.",
        ),
        "data_efficiency": (
            plot_data_efficiency(rec.efficiency) if rec.efficiency else None,
            "Contextual's mean curve against the full-data score of each baseline; "
            "the thick bar spans the bootstrap interval of the matching size.",
        ),
        "extrapolation": (
            plot_extrapolation(rec.fits, rec.extrapolations, rec.thresholds.max_extrapolation)
            if rec.fits
            else None,
            "Fitted learning curves extended to "
            f"{rec.thresholds.max_extrapolation:g}× the largest size (shaded); dotted: the target; "
            "vertical lines: items needed (dashed when unreliable).",
        ),
        "costs": (
            plot_costs(rec.costs) if rec.costs is not None else None,
            "Costs per embedding at the largest training size (median over seeds).",
        ),
        "difficulty_gaps": (
            plot_difficulty_gaps(analysis.slices),
            "Score gaps in points on difficult vs easy evaluation items (bootstrap CI over "
            f"{'sentences' if analysis.task == 'ner' else 'items'}).",
        ),
        **layer_figures(analysis),  # contextuality per layer, learned mix weights (advisor.contextuality)
    }
    out: dict[str, dict[str, Any]] = {}
    for name, (fig, caption) in figures.items():
        if fig is None:
            continue
        png = _png(fig)
        out[name] = {
            "png": png,
            "b64": base64.b64encode(png).decode("ascii"),
            "file": f"figures/{name}.png",
            "caption": caption,
        }
    return out


def _cost_rows(rec: Recommendation) -> tuple[list[str], list[dict[str, Any]]]:
    if rec.costs is None:
        return [], []
    table, ratios = rec.costs.table, rec.costs.ratios
    names = list(table.index)
    rows = []
    for col, label, unit in COST_COLUMNS:
        if not table[col].notna().any():
            continue
        rows.append(
            {
                "column": col,
                "label": label,
                "unit": unit,
                "values": [_cost_value(col, table.loc[n, col]) for n in names],
                "ratios": [
                    _num(ratios.loc[p, col], ",.1f") + "×"
                    if p in ratios.index and pd.notna(ratios.loc[p, col])
                    else "–"
                    for p in ("contextual/static", "contextual/random")
                ],
            }
        )
    return names, rows


def _cost_value(column: str, value: Any) -> str:
    """A cost cell; training peak memory under what resident-memory sampling resolves reads '< 1' (MB)."""
    if column == "peak_memory_mb" and pd.isna(value):
        return f"< {MIN_MEASURABLE_MB:g}"
    return readable_number(value)


def _memory_note(cost_rows: list[dict[str, Any]]) -> str:
    """Why a training peak memory reads '< 1' (worded as the method section words it); '' when none does."""
    below = f"< {MIN_MEASURABLE_MB:g}"
    if not any(row["column"] == "peak_memory_mb" and below in row["values"] for row in cost_rows):
        return ""
    return (
        f"Training peak memory {below} MB: below {MIN_MEASURABLE_MB:g} MB, what resident-memory sampling "
        "cannot resolve; not shown as a number and given no ratio."
    )


def _slice_table(slices: pd.DataFrame | None) -> list[dict[str, Any]]:
    """The gap table at its largest size, for when the difficulty figure is not available."""
    if slices is None or slices.empty:
        return []
    at = slices[slices["size"] == slices["size"].max()]
    return at.to_dict("records")


def _convergence_rows(rec: Recommendation) -> list[dict[str, Any]]:
    """The convergence audit as display rows; empty for runs from before the step budget."""
    if rec.convergence is None or rec.convergence.table.empty:
        return []
    return [
        {
            "embedding": r.embedding,
            "size": f"{int(r.size):,}",
            "seeds": int(r.seeds),
            "steps": _num(r.steps, ",.0f"),
            "best_step": _num(r.best_step, ",.0f"),
            "under_trained": int(r.under_trained),
            "flag": r.under_trained > 0,
        }
        for r in rec.convergence.table.itertuples()
    ]


def _ceiling_text(rec: Recommendation) -> str:
    ceiling = rec.convergence.max_steps if rec.convergence is not None else None
    return f"{ceiling:,}" if ceiling else "the profile's"


def _model_name(model: Any) -> Any:
    """A model the run loaded from a folder, by name (the packaged encoder's folder is this machine's
    site-packages, which says nothing to a reader); hub ids and ``packaged:`` names stay as they are."""
    return encoder_name(model) if isinstance(model, str) and Path(model).is_absolute() else model


def _context(
    analysis: Analysis, rec: Recommendation, figures: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    names, cost_rows = _cost_rows(rec)
    embeddings = []
    if analysis.embeddings is not None and len(analysis.embeddings):
        shown = [c for c in EMBEDDING_COLUMNS if c in analysis.embeddings.columns]
        embeddings = [
            {k: _cell(_model_name(v) if k == "model" else v) for k, v in row.items()}
            for row in analysis.embeddings[shown].to_dict("records")
        ]
    params = [
        (k, _param(k, v))
        for k, v in (analysis.params or {}).items()
        if k not in ("embedding_info", "dataset_info", "environment")
    ]
    env = dict(analysis.environment or {})
    libraries = env.pop("libraries", None) or {}
    return {
        "title": f"advisor report: {analysis.dataset.get('name', 'dataset')} ({analysis.task})",
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "analysis": analysis,
        "rec": rec,
        "words": render(rec),  # every sentence, from the verdict's one renderer
        "partial": partial_notice(analysis.status),
        "partial_label": partial_label(analysis.status),
        "sections": SECTIONS,
        "figures": figures,
        "metric_label": {"f1": "strict IOB2 entity micro-F1", "accuracy": "accuracy"}.get(
            analysis.primary_metric, analysis.primary_metric
        ),
        "cost_names": names,
        "cost_rows": cost_rows,
        "cost_size": rec.costs.size if rec.costs is not None else None,
        "cost_memory_note": _memory_note(cost_rows),
        "slice_rows": _slice_table(analysis.slices),
        "convergence_rows": _convergence_rows(rec),
        "convergence_ceiling": _ceiling_text(rec),
        "overlap_rows": rec.overlap.to_dict("records") if rec.overlap is not None else [],
        "method_notes": method_notes(analysis, rec),
        "has_gap_figure": "difficulty_gaps" in figures,
        "dataset_items": [(k, _cell(v)) for k, v in analysis.dataset.items() if k != "labels"],
        "labels": list(analysis.dataset.get("labels") or []),
        "embedding_rows": embeddings,
        "embedding_text_columns": ("embedding", "model", "cache_hit"),
        "layer_section": layer_report(analysis),
        "params_items": params,
        "environment_items": list(env.items()),
        "library_items": sorted(libraries.items()),
        "threshold_items": list(rec.thresholds.to_dict().items()),
    }


def render_report(
    analysis: Analysis, rec: Recommendation, figures: Mapping[str, Mapping[str, Any]]
) -> tuple[str, str]:
    """HTML and markdown text of the report (figures must already be rendered)."""
    context = _context(analysis, rec, figures)
    html_text = _environment().get_template("report.html.j2").render(context)
    return html_text, _environment(markdown=True).get_template("report.md.j2").render(context)


def write_report(
    analysis: Analysis,
    out_dir: str | Path,
    thresholds: Thresholds | None = None,
    *,
    recommendation: Recommendation | None = None,
) -> tuple[Path, Path]:
    """Judge ``analysis`` with :func:`advisor.verdict.recommend` and write ``report.html`` + ``report.md``.

    Figures are also written to ``out_dir/figures/`` (the markdown links them). Pass ``recommendation``
    when the caller already has it, so the report shows exactly the verdict the caller printed.
    Returns both paths.
    """
    rec = recommendation if recommendation is not None else recommend(analysis, thresholds)
    out = Path(out_dir)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    figures = _figures(analysis, rec)
    for figure in figures.values():
        (out / figure["file"]).write_bytes(figure["png"])
    html_text, markdown = render_report(analysis, rec, figures)
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(html_text, encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    return html_path, md_path
