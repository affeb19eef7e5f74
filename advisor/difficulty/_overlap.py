"""Do two difficulty metrics pick out the same items? Pairwise overlap of their difficult slices.

If two metrics split the evaluation set the same way (or in mirror image: one's difficult slice is
the other's easy slice), their gap findings are one finding counted twice, and a "the gap is carried
by ambiguous items" may really be about unseen ones. On WNUT-17, before unseen items were taken out
of ambiguity, the ambiguity and unseen slices were exactly such a mirror image.

Per pair of metrics, over the items both can place in a slice: ``same`` = share placed in the same
slice, ``mirror`` = share placed in opposite slices (1 - same), ``kappa`` = Cohen's kappa of the two
splits (agreement beyond chance; negative for a mirror image), ``jaccard`` = overlap of the two
difficult slices. A pair is flagged when ``max(same, mirror) >= WARN_SHARE`` (80 %) and
``|kappa| >= MIN_KAPPA``: two very unbalanced splits agree on most items by chance alone, so the
share alone would cry wolf.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from advisor.difficulty._partition import PartitionRule, partition
from advisor.stats import share_percent

__all__ = ["MIN_KAPPA", "OVERLAP_COLUMNS", "WARN_SHARE", "overlap_warnings", "slice_overlap"]

WARN_SHARE = 0.8
MIN_KAPPA = 0.4
OVERLAP_COLUMNS: list[str] = [
    "metric_a", "metric_b", "n_items", "same", "mirror", "kappa", "jaccard", "direction", "warn",
]  # fmt: skip


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    observed = float(np.mean(a == b))
    pa, pb = float(a.mean()), float(b.mean())
    chance = pa * pb + (1 - pa) * (1 - pb)
    return (observed - chance) / (1 - chance) if chance < 1 else float("nan")


def slice_overlap(
    table: pd.DataFrame, metrics: list[str] | None = None, rule: PartitionRule | None = None
) -> pd.DataFrame:
    """One row per pair of splittable metrics of an item table (see the module docstring)."""
    names = metrics or list(table.attrs.get("metrics") or [])
    parts = {name: partition(table[name], rule) for name in names if name in table.columns}
    parts = {name: p for name, p in parts.items() if p.splittable}
    rows = []
    for a, b in combinations(parts, 2):
        both = (parts[a].difficult | parts[a].easy) & (parts[b].difficult | parts[b].easy)
        da = parts[a].difficult[both].to_numpy(bool)
        db = parts[b].difficult[both].to_numpy(bool)
        if not len(da):
            continue
        same = float(np.mean(da == db))
        union = int((da | db).sum())
        kappa = _kappa(da, db)
        rows.append(
            {
                "metric_a": a,
                "metric_b": b,
                "n_items": len(da),
                "same": same,
                "mirror": 1 - same,
                "kappa": kappa,
                "jaccard": float((da & db).sum() / union) if union else float("nan"),
                "direction": "same" if same >= 0.5 else "mirror",
                "warn": bool(max(same, 1 - same) >= WARN_SHARE and abs(kappa) >= MIN_KAPPA),
            }
        )
    return pd.DataFrame(rows, columns=OVERLAP_COLUMNS)


def overlap_warnings(overlap: pd.DataFrame) -> list[str]:
    """Plain sentences for the flagged pairs (the verdict prints them as caveats)."""
    out = []
    for row in overlap[overlap["warn"]].itertuples() if len(overlap) else ():
        share = row.same if row.direction == "same" else row.mirror
        how = (
            "the same slices"
            if row.direction == "same"
            else "mirror-image slices (one's difficult is the other's easy)"
        )
        out.append(
            f"{row.metric_a} and {row.metric_b} put {share_percent(share)} of {row.n_items} items in {how} "
            f"(kappa {row.kappa:+.2f}): their slice findings are largely one finding, not two"
        )
    return out
