"""The results of one ``advisor run``, read back from MLflow, in one in-memory object.

:class:`Analysis` is the contract between the run loader (``advisor.tracking.load_analysis``) and
everything that judges a run (the verdict, the figures, the report, the app): they all take an
``Analysis`` and never read MLflow themselves, so the CLI and the app cannot compute differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from advisor._error_codes import E601
from advisor.vocabulary import FAMILIES, ordered

__all__ = ["CURVE_COLUMNS", "EMBEDDING_ORDER", "Analysis"]

#: Embedding families in order of cost, cheapest first; figures and tables use this order.
EMBEDDING_ORDER: tuple[str, ...] = tuple(FAMILIES)

#: Columns every ``curves`` frame must have; the cost columns are optional (missing -> NaN in cost tables).
CURVE_COLUMNS: tuple[str, ...] = ("embedding", "seed", "size", "score")


@dataclass
class Analysis:
    """Learning curves, costs, dataset facts and (optionally) difficulty slices of one run."""

    task: str  # "ner" | "classify"
    primary_metric: str  # "f1" (strict IOB2 entity micro-F1) | "accuracy"; scores are in [0, 1]
    curves: pd.DataFrame  # one row per finished cell: embedding, seed, size, fraction, score, costs...
    embeddings: pd.DataFrame  # one row per embedding: embedding, model, dim, embedding_bytes, featurize_*
    dataset: dict  # name, content_hash, n_train, n_dev, n_test, labels (list), scheme, ...
    params: dict  # grid sizes, seeds, profile, contextual model, static file, device, ...
    environment: dict  # python, platform, cpu, gpu, library versions
    slices: pd.DataFrame | None = None  # difficulty gap analysis (advisor.difficulty.gap_analysis schema)
    items: pd.DataFrame | None = None  # per-eval-item table (difficulty values, correctness per embedding)
    run_id: str | None = None
    experiment: str | None = None
    status: str | None = None
    # contextual layer tables by name: "contextuality" (per layer), "mix_weights" (per cell and layer)
    layer_tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    item_scores: Any = None  # advisor.stats.ItemScores (per-test-item counts); None: older run

    def __post_init__(self) -> None:
        missing = [c for c in CURVE_COLUMNS if c not in self.curves.columns]
        if missing:
            raise E601(
                columns=", ".join(missing),
                hint=f"a curves table needs at least: {', '.join(CURVE_COLUMNS)}",
            )

    @property
    def full_size(self) -> int:
        """The largest training-set size in the grid (0 when no cell finished)."""
        return int(self.curves["size"].max()) if len(self.curves) else 0

    @property
    def embedding_names(self) -> list[str]:
        """Embeddings with at least one finished cell, cheapest first."""
        present = set(self.curves["embedding"])
        return ordered(sorted(present))

    @property
    def sizes(self) -> list[int]:
        """Distinct training-set sizes, ascending."""
        return sorted(int(s) for s in self.curves["size"].unique())

    @property
    def seeds(self) -> list[int]:
        """Distinct seeds over all cells."""
        return sorted(int(s) for s in self.curves["seed"].unique())

    def score_matrix(self, embedding: str) -> pd.DataFrame:
        """Scores of one embedding as a size x seed table (NaN where a cell is missing)."""
        rows = self.curves[self.curves["embedding"] == embedding]
        if rows.empty:
            return pd.DataFrame(dtype=float)
        table = rows.pivot_table(index="size", columns="seed", values="score", aggfunc="mean")
        return table.sort_index().astype(float)
