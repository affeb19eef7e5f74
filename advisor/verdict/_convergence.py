"""The convergence audit of a run: which cells stopped at the step ceiling while dev still improved.

A curve point read from an under-trained cell measures the budget, not the embedding, and it biases
the data-efficiency figure toward whichever family learns faster. Each cell logs its steps, the step
of its best dev score and ``under_trained`` (1: it reached ``max_steps`` before patience ran out);
this module summarises them per (family, size) and words the flag the CLI, the report and the
verdict show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from advisor.analysis import Analysis

__all__ = [
    "ConvergenceAudit",
    "MajorityBaseline",
    "at_majority_cells",
    "convergence_audit",
    "under_trained_caveat",
]


@dataclass
class ConvergenceAudit:
    """Per (family, size): seeds, median steps and best step, and how many seeds were under-trained."""

    table: pd.DataFrame  # embedding, size, seeds, steps, best_step, under_trained
    max_steps: int | None  # the ceiling the run trained under (None: not logged)

    @property
    def flagged(self) -> pd.DataFrame:
        """Rows with at least one under-trained seed."""
        if self.table.empty:
            return self.table
        return self.table[self.table["under_trained"] > 0]

    def to_dict(self) -> dict:
        return {"max_steps": self.max_steps, "table": self.table.to_dict("records")}


def _ceiling(analysis: Analysis) -> int | None:
    raw = (analysis.params or {}).get("train_config")
    if not raw:
        return None
    value = json.loads(raw).get("max_steps")
    return int(value) if value is not None else None


def convergence_audit(analysis: Analysis) -> ConvergenceAudit:
    """The audit from the run's cells (runs from before the step budget have no ``steps``: empty table)."""
    curves = analysis.curves
    columns = ["embedding", "size", "seeds", "steps", "best_step", "under_trained"]
    if curves.empty or "steps" not in curves.columns:
        return ConvergenceAudit(pd.DataFrame(columns=columns), _ceiling(analysis))
    frame = curves.assign(
        best_step=curves.get("best_step", float("nan")),
        under_trained=curves.get("under_trained", 0.0).fillna(0.0),
    )
    grouped = frame.groupby(["embedding", "size"])
    table = pd.DataFrame(
        {
            "seeds": grouped["seed"].nunique(),
            "steps": grouped["steps"].median(),
            "best_step": grouped["best_step"].median(),
            "under_trained": grouped["under_trained"].sum().astype(int),
        }
    ).reset_index()
    return ConvergenceAudit(table[columns], _ceiling(analysis))


def under_trained_caveat(audit: ConvergenceAudit) -> str | None:
    """One sentence naming the under-trained (family, size) points and what to do; None when there are none."""
    flagged = audit.flagged
    if flagged.empty:
        return None
    points = ", ".join(
        f"{r.embedding} at {int(r.size):,} ({int(r.under_trained)} of {int(r.seeds)} seeds)"
        for r in flagged.itertuples()
    )
    ceiling = f"{audit.max_steps:,}-step " if audit.max_steps else ""
    advice = f"--max-steps {4 * audit.max_steps}" if audit.max_steps else "a higher --max-steps"
    return (
        f"under-trained: {points} reached the {ceiling}ceiling while dev still improved, so those curve points "
        f"understate the family and the figures read from them (gaps, data efficiency, fits) may be biased; "
        f"re-run with {advice}"
    )


@dataclass(frozen=True)
class MajorityBaseline:
    """Always predicting the most frequent test label: its accuracy and the label."""

    share: float
    label: str


def majority_baseline(analysis: Analysis) -> MajorityBaseline | None:
    """The majority-label baseline of a one-label-per-item task, from the item table's gold labels
    (None for NER, a headline other than accuracy, or a run without the item table)."""
    items = analysis.items
    if analysis.primary_metric != "accuracy" or items is None or "gold" not in items or items.empty:
        return None
    counts = items["gold"].astype(str).value_counts()
    return MajorityBaseline(float(counts.iloc[0]) / float(counts.sum()), str(counts.index[0]))


def at_majority_cells(analysis: Analysis) -> tuple[MajorityBaseline, list[tuple[str, int, int, int]]] | None:
    """Per (family, size) the seeds that scored at or below the majority-label baseline.

    Why: such a cell learned nothing beyond the label prior — an optimisation that failed (one seed
    collapsing at a large learning rate) or features with no signal at that size — and its score
    pulls the family's mean down. The step audit cannot see it: dev stopped improving, as it should.
    """
    baseline = majority_baseline(analysis)
    curves = analysis.curves
    if baseline is None or curves.empty:
        return None
    frame = curves.assign(at_or_below=curves["score"] <= baseline.share + 1e-9)
    grouped = frame.groupby(["embedding", "size"])
    table = pd.DataFrame({"low": grouped["at_or_below"].sum(), "seeds": grouped["seed"].nunique()})
    points = [
        (str(name), int(size), int(row.low), int(row.seeds))
        for (name, size), row in table.iterrows()
        if row.low > 0
    ]
    return (baseline, points) if points else None
