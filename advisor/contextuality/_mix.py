"""The learned scalar-mix weights of a run's contextual cells, as one table (embedding, seed, size, layer, weight).

Built from weights held in memory (:func:`mix_weights_frame`) or from rows a reader collected
(:func:`mix_weights_rows`); the same sorted layout either way, so a resumed run's table is the
same whichever process trained a cell.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from advisor.grid import CellKey

__all__ = ["MIX_COLUMNS", "mix_weights_frame", "mix_weights_rows"]

MIX_COLUMNS = ["embedding", "seed", "size", "layer", "weight"]


def mix_weights_rows(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """The table from one dict per (cell, layer), sorted by embedding, size, seed and layer."""
    frame = pd.DataFrame(list(rows), columns=MIX_COLUMNS)
    return frame.sort_values(["embedding", "size", "seed", "layer"]).reset_index(drop=True)


def mix_weights_frame(weights: dict[CellKey, list[float]]) -> pd.DataFrame:
    """The table from weights held in memory: ``(embedding, size, seed) -> weight per layer``."""
    return mix_weights_rows(
        {"embedding": emb, "seed": int(seed), "size": int(size), "layer": layer, "weight": float(weight)}
        for (emb, size, seed), per_layer in weights.items()
        for layer, weight in enumerate(per_layer)
    )
