"""Distribution summaries of the metric columns: what ``advisor metrics`` prints, as a table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from advisor.difficulty._partition import PartitionRule, partition

__all__ = ["QUANTILES", "summarize_metrics"]

QUANTILES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)


def summarize_metrics(table: pd.DataFrame, rule: PartitionRule | None = None) -> pd.DataFrame:
    """One row per metric column of an :func:`item_metrics` table.

    Columns: ``metric``, ``n``, quantiles ``q0 ... q100`` (no interpolation, so ``inf`` stays exact),
    ``mean_finite``, ``share_modal`` (share of units tied at the most common value), ``modal_value``,
    ``share_inf`` (never-seen units of ``ner_unseen``), ``threshold``, ``higher_is_harder`` (False:
    difficult = value <= threshold, as for ``pair_overlap``), ``n_difficult``, ``n_easy``,
    ``partition`` (the partition's description, saying when a metric cannot be split).
    """
    rows = []
    for name in table.attrs.get("metrics", []):
        values = table[name].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        row: dict[str, object] = {"metric": name, "n": len(values)}
        if len(values):
            quantiles = np.quantile(values, QUANTILES, method="inverted_cdf")
            distinct, counts = np.unique(values, return_counts=True)
            finite = values[np.isfinite(values)]
            row |= {f"q{round(q * 100)}": float(v) for q, v in zip(QUANTILES, quantiles, strict=True)}
            row |= {
                "mean_finite": float(finite.mean()) if len(finite) else np.nan,
                "share_modal": float(counts.max() / len(values)),
                "modal_value": float(distinct[np.argmax(counts)]),
                "share_inf": float(np.isinf(values).mean()),
            }
        split = partition(table[name], rule)
        row |= {
            "threshold": split.threshold,
            "higher_is_harder": split.higher_is_harder,
            "n_difficult": split.n_difficult,
            "n_easy": split.n_easy,
            "partition": split.description,
        }
        rows.append(row)
    return pd.DataFrame(rows)
