"""The cells of an analysis: one row per finished (embedding, size, seed), in the parent's cells table.

The writer keeps the rows in memory and logs them as ``analysis/cells.json`` after every cell, so
a reader needs one download instead of a metric history per child and metric. Runs logged before
that table existed are read from the children's metric histories (:func:`rows_from_history`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from advisor.grid import CellKey
from advisor.tracking._layout import CELLS_TABLE, EMBEDDING_TAG, SEED_TAG

__all__ = [
    "CELLS_TABLE",
    "CELL_METRICS",
    "CellKey",
    "cell_row",
    "curves_frame",
    "rows_from_history",
    "rows_from_table",
]

CELL_METRICS = (
    "score",
    "train_seconds",
    "inference_ms_per_item",
    "peak_memory_mb",
    "n_params",
    "epochs",
    "steps",  # optimizer steps the cell took
    "best_step",  # the step of its best dev score (those weights were kept)
    "under_trained",  # 1: stopped at the step ceiling while dev still improved
    "dev_score",
    "eval_repaired_f1",  # NER: strict F1 after repairing stray I- tags, shown beside the strict headline
)


def cell_row(embedding: str, size: int, seed: int, metrics: dict[str, Any]) -> dict[str, Any]:
    """The row of one cell: its key and the logged values of :data:`CELL_METRICS` (None is not logged)."""
    row: dict[str, Any] = {"embedding": embedding, "seed": int(seed), "size": int(size)}
    for key in CELL_METRICS:
        if metrics.get(key) is not None:
            row[key] = float(metrics[key])
    return row


def rows_from_table(frame: pd.DataFrame) -> dict[CellKey, dict[str, Any]]:
    """Rows of a cells table read back (NaN where a cell did not log a metric that another cell did)."""
    rows = frame.to_dict("records")
    return {(r["embedding"], int(r["size"]), int(r["seed"])): r for r in rows}


def rows_from_history(client: Any, children: list[Any]) -> dict[CellKey, dict[str, Any]]:
    """Rows rebuilt from the children's metric histories (runs from before the cells table)."""
    rows: dict[CellKey, dict[str, Any]] = {}
    for child in children:
        emb, seed = child.data.tags[EMBEDDING_TAG], int(child.data.tags[SEED_TAG])
        for key in CELL_METRICS:
            for metric in client.get_metric_history(child.info.run_id, key):
                row = rows.setdefault(
                    (emb, int(metric.step), seed), {"embedding": emb, "seed": seed, "size": int(metric.step)}
                )
                row[key] = metric.value
    return rows


def curves_frame(rows: list[dict[str, Any]], full_size: int | None) -> pd.DataFrame:
    """The ``Analysis.curves`` frame: finished cells only, sorted, with the fraction of the full data."""
    curves = pd.DataFrame([r for r in rows if "score" in r])
    if curves.empty:
        return pd.DataFrame(columns=["embedding", "seed", "size", "score", *CELL_METRICS[1:]])
    columns = ["embedding", "seed", "size", *(k for k in CELL_METRICS if k in curves.columns)]
    curves = curves[columns].sort_values(["embedding", "size", "seed"]).reset_index(drop=True)
    curves["fraction"] = curves["size"] / (full_size or curves["size"].max())
    return curves
