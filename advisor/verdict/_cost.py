"""The cost side: what each embedding costs to train, store and serve, and contextual's multiples.

Serving cost comes from the run's dedicated serving pass (:mod:`advisor.costs`): raw text ->
tokenize -> embedding (feature cache off) -> downstream model, batch 1 and 64, median of repeats,
with its provenance; serving memory is weights + one batch of features. Neither depends on the
feature cache or the order of runs. Runs from before that pass fall back to featurization time
(cache-dependent: optimistic when the cache was warm) plus the downstream model's inference time,
and the comparison says so (``serving_measured`` False).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.verdict._codes import BASELINES, CONTEXTUAL
from advisor.verdict._phrases import provenance_text
from advisor.vocabulary import is_frozen

__all__ = ["COST_COLUMNS", "CostComparison", "compare_costs"]

#: Cost columns of the comparison table: (column, label, unit); lower is cheaper for every one.
COST_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("latency_ms_per_item", "serving latency, batch 1 (raw text to prediction)", "ms/item"),
    ("batch_ms_per_item", "serving time per item, batch 64", "ms/item"),
    ("serving_memory_mb", "serving memory (weights + one batch)", "MB"),
    ("featurize_ms_per_item", "featurization", "ms/item"),
    ("inference_ms_per_item", "downstream model inference", "ms/item"),
    ("train_seconds", "training time (largest size)", "s"),
    ("featurize_seconds", "featurization time (whole run)", "s"),
    ("encode_seconds", "embedding pass over train/dev/test (once, from raw text)", "s"),
    ("peak_memory_mb", "training peak memory (process)", "MB"),
    ("embedding_mb", "embedding table / model size", "MB"),
    ("n_params", "downstream parameters", "count"),
    ("dim", "embedding dimension", "d"),
)


#: Peak memory below this (MB) is noise in resident-set sampling; ratios of such values mean nothing.
MIN_MEASURABLE_MB = 1.0


@dataclass
class CostComparison:
    """Per-embedding costs at the largest training size (median over seeds) and contextual's ratios."""

    table: pd.DataFrame  # index: embedding; columns: COST_COLUMNS names + items_per_s, epochs
    ratios: pd.DataFrame  # index: "contextual/static", "contextual/random"; same cost columns
    size: int
    serving_measured: bool = False  # True: the dedicated serving pass; False: the cache-dependent fallback
    provenance: dict[str, Any] | None = None  # how the serving pass was measured
    conditions: dict[str, Any] | None = None  # what it ran under: load average, precision, spread

    def value(self, embedding: str, column: str) -> float:
        if embedding not in self.table.index or column not in self.table.columns:
            return math.nan
        return float(self.table.loc[embedding, column])

    def ratio(self, pair: str, column: str) -> float:
        if pair not in self.ratios.index or column not in self.ratios.columns:
            return math.nan
        return float(self.ratios.loc[pair, column])

    def to_dict(self) -> dict[str, Any]:
        def clean(frame: pd.DataFrame) -> dict[str, dict[str, float | None]]:
            return {
                str(i): {c: (None if pd.isna(v) else float(v)) for c, v in row.items()}
                for i, row in frame.iterrows()
            }

        return {
            "size": self.size,
            "table": clean(self.table),
            "ratios": clean(self.ratios),
            "serving_measured": self.serving_measured,
            "provenance": self.provenance,
            "conditions": self.conditions,
        }

    def provenance_text(self) -> str:
        """How the serving numbers were measured (:func:`advisor.verdict._phrases.provenance_text`)."""
        return provenance_text(self)


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name].astype(float) if name in frame.columns else pd.Series(np.nan, index=frame.index)


def _cell_costs(analysis: Analysis, size: int, names: list[str]) -> pd.DataFrame:
    """Per-embedding medians over seeds of the costs logged per cell (medians: one slow seed is noise)."""
    cells = analysis.curves[analysis.curves["size"] == size]
    per_cell = pd.DataFrame(
        {
            "embedding": cells["embedding"],
            "inference_ms_per_item": _column(cells, "inference_ms_per_item"),
            "train_seconds": _column(cells, "train_seconds"),
            "peak_memory_mb": _column(cells, "peak_memory_mb"),
            "n_params": _column(cells, "n_params"),
            "epochs": _column(cells, "epochs"),
        }
    )
    return per_cell.groupby("embedding").median().reindex(names)


def _join_embedding_facts(
    table: pd.DataFrame, emb: pd.DataFrame | None, names: list[str], serving: bool
) -> dict[str, Any] | None:
    """Add the per-embedding facts (featurization, size, serving pass) to ``table`` in place;
    returns the serving pass's provenance when the run measured one."""
    if not (emb is not None and len(emb) and "embedding" in emb.columns):
        for name in ("featurize_ms_per_item", "featurize_seconds", "encode_seconds", "embedding_mb", "dim"):
            table[name] = np.nan
        return None
    facts = emb.drop_duplicates("embedding").set_index("embedding").reindex(names)
    per_s = _column(facts, "featurize_items_per_s")
    table["featurize_ms_per_item"] = np.where(per_s > 0, 1000.0 / per_s, np.nan)
    table["featurize_seconds"] = _column(facts, "featurize_seconds")
    # The encoder's own pass (kept in the feature cache, so a warm cache still reports it); others: featurizing
    table["encode_seconds"] = _column(facts, "encode_seconds").fillna(table["featurize_seconds"])
    table["embedding_mb"] = _column(facts, "embedding_bytes") / 1e6
    table["dim"] = _column(facts, "dim")
    for column in ("serving_ms_per_item_b1", "serving_ms_per_item_b64", "serving_memory_mb"):
        table[column] = _column(facts, column)
    return json.loads(str(facts["serving_provenance"].dropna().iloc[0])) if serving else None


def _conditions(emb: pd.DataFrame | None) -> dict[str, Any] | None:
    """What the serving pass ran under (load, precision, spread); None for runs from before it was kept."""
    if emb is None or "serving_conditions" not in getattr(emb, "columns", ()):
        return None
    stored = emb["serving_conditions"].dropna()
    return json.loads(str(stored.iloc[0])) if len(stored) else None


def _add_serving(table: pd.DataFrame, serving: bool) -> None:
    """Serving latency from the dedicated pass, else (older runs) featurization plus the downstream model."""
    if serving:
        table["latency_ms_per_item"] = table["serving_ms_per_item_b1"]
        table["batch_ms_per_item"] = table["serving_ms_per_item_b64"]
    else:  # older runs: featurization (cache-dependent) plus the downstream model
        table["latency_ms_per_item"] = table["inference_ms_per_item"] + table["featurize_ms_per_item"].fillna(
            0.0
        )
        table["batch_ms_per_item"] = np.nan
        table["serving_memory_mb"] = np.nan
    table["items_per_s"] = np.where(
        table["latency_ms_per_item"] > 0, 1000.0 / table["latency_ms_per_item"], np.nan
    )


def _ratios(table: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Contextual's multiple of each cheaper frozen family's cost (the paper's first, then e.g. distilled);
    no memory ratio below what sampling resolves."""
    ratio_rows = {}
    others = [name for name in table.index if name not in (CONTEXTUAL, *BASELINES) and is_frozen(str(name))]
    for cheap in [*BASELINES, *others]:
        if CONTEXTUAL in table.index and cheap in table.index:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = table.loc[CONTEXTUAL] / table.loc[cheap]
            if "peak_memory_mb" in ratio.index and (
                min(table.loc[CONTEXTUAL, "peak_memory_mb"], table.loc[cheap, "peak_memory_mb"])
                < MIN_MEASURABLE_MB
            ):
                ratio["peak_memory_mb"] = np.nan  # below what resident-memory sampling resolves: no ratio
            ratio_rows[f"{CONTEXTUAL}/{cheap}"] = ratio
    ratios = pd.DataFrame(ratio_rows).T if ratio_rows else pd.DataFrame(columns=order)
    return ratios.replace([np.inf, -np.inf], np.nan)


def compare_costs(analysis: Analysis) -> CostComparison:
    """Medians over seeds at the largest size, joined with the per-embedding featurization facts."""
    size = analysis.full_size
    names = analysis.embedding_names
    table = _cell_costs(analysis, size, names)
    emb = analysis.embeddings
    serving = emb is not None and "serving_ms_per_item_b1" in getattr(emb, "columns", ())
    provenance = _join_embedding_facts(table, emb, names, serving)
    _add_serving(table, serving)
    order = [c for c, _, _ in COST_COLUMNS] + ["items_per_s", "epochs"]
    table = table[order]
    table.index.name = "embedding"
    ratios = _ratios(table, order)
    # Below what resident-memory sampling resolves (static, distilled: a small model on features already
    # in memory reads ~0 MB): not a measurement, so not shown.
    table.loc[table["peak_memory_mb"] < MIN_MEASURABLE_MB, "peak_memory_mb"] = np.nan
    return CostComparison(
        table=table,
        ratios=ratios,
        size=size,
        serving_measured=serving,
        provenance=provenance,
        conditions=_conditions(emb),
    )
