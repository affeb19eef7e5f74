"""View models of the app's encoder-layer sections: the layer sweep, contextuality, the learned mix weights.

Why: a verdict about contextual embeddings is about *this* encoder read at *these* layers. The app
shows which layers carry the task (``advisor layers``: dev score of each single layer next to the
scalar mix), how contextual the encoder's vectors are on the user's data (Ethayarajh 2019) and which
layers each cell's scalar mix leaned on. Everything is read from what ``advisor run`` and
``advisor layers`` logged, through :mod:`advisor.tracking`; no Streamlit calls here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.app._job import _LAUNCH
from advisor.contextuality import encoder_name, sweep_summary
from advisor.numbers import readable_number
from advisor.settings import DEFAULT_POOLING
from advisor.tracking import find_layer_sweeps
from advisor.tracking import load_layer_sweep as load_sweep_run

__all__ = [
    "CONTEXTUALITY_LABELS",
    "SweepView",
    "contextuality_table",
    "find_layer_sweeps",
    "layers_command",
    "load_layer_sweep",
    "mix_weights_by_cell",
    "sweep_label",
    "sweep_table",
]

#: Display names of the contextuality table's columns (advisor.contextuality.TABLE_COLUMNS), in order.
CONTEXTUALITY_LABELS: dict[str, str] = {
    "layer": "layer",
    "self_similarity": "self-similarity",
    "self_similarity_adjusted": "self-similarity − baseline",
    "intra_similarity": "intra-sentence similarity",
    "intra_similarity_adjusted": "intra-sentence − baseline",
    "mev": "MEV",
    "mev_baseline": "MEV baseline",
    "mev_adjusted": "MEV − baseline",
    "anisotropy": "anisotropy baseline",
    "static_share": "words with MEV > 0.5",
}


def contextuality_table(analysis: Analysis) -> pd.DataFrame:
    """The run's per-layer contextuality (0 = input embeddings) with readable columns; empty without one."""
    table = (analysis.layer_tables or {}).get("contextuality")
    if table is None or table.empty:
        return pd.DataFrame()
    shown = table[[c for c in CONTEXTUALITY_LABELS if c in table.columns]].copy()
    shown["layer"] = shown["layer"].astype(int)
    return shown.rename(columns=CONTEXTUALITY_LABELS).reset_index(drop=True)


def mix_weights_by_cell(analysis: Analysis) -> pd.DataFrame:
    """One row per scalar-mix cell (size, seed): its learned softmax weight per layer and its top layer."""
    weights = (analysis.layer_tables or {}).get("mix_weights")
    if weights is None or weights.empty:
        return pd.DataFrame()
    pivot = weights.pivot_table(
        index=["embedding", "size", "seed"], columns="layer", values="weight", aggfunc="last"
    )
    pivot = pivot.reindex(sorted(pivot.columns, key=int), axis=1)
    top = pivot.idxmax(axis=1).astype(int)
    pivot.columns = [f"layer {int(c)}" for c in pivot.columns]
    frame = pivot.reset_index()
    frame.insert(3, "top layer", top.to_numpy())
    frame[["size", "seed"]] = frame[["size", "seed"]].astype(int)
    return frame.sort_values(["embedding", "size", "seed"]).reset_index(drop=True)


@dataclass(frozen=True)
class SweepView:
    """One logged layer sweep: its rows (layer, seed, dev_score, test_score, ...) and what it was run on."""

    run_id: str
    task: str
    metric: str
    size: int
    n_seeds: int
    data: str
    encoder: str  # readable name of the encoder
    table: pd.DataFrame
    mix_weights: pd.DataFrame  # seed, layer, weight of the mix rows (empty if none were logged)


def load_layer_sweep(run_id: str, tracking_uri: str | None = None) -> SweepView:
    """A logged sweep as the page shows it: its rows, what it was run on, the encoder by a readable name."""
    sweep = load_sweep_run(run_id, tracking_uri)
    return SweepView(
        run_id=run_id,
        task=sweep.task,
        metric=sweep.primary_metric,
        size=sweep.size,
        n_seeds=len(sweep.seeds),
        data=sweep.data,
        encoder=encoder_name(str(sweep.encoder.get("model", ""))),  # the packaged model by name, not its path
        table=sweep.table,
        mix_weights=sweep.mix_weights,
    )


def sweep_table(view: SweepView) -> pd.DataFrame:
    """Dev score × 100 by layer (then the scalar mix), each layer's distance to the mix, the best layer marked."""
    summary = sweep_summary(view.table)
    mix = summary.loc[summary["layer"] == "mix", "dev_mean"]
    mix_mean = float(mix.iloc[0]) if len(mix) else float("nan")
    singles = summary["layer"] != "mix"
    best = summary.loc[singles, "dev_mean"].max()
    seeds = (
        view.table.sort_values("seed")
        .groupby("layer")["dev_score"]
        .agg(lambda s: " ".join(f"{100 * v:.1f}" for v in s))
    )
    return pd.DataFrame(
        {
            "layer": ["scalar mix" if k == "mix" else k for k in summary["layer"]],
            "dev (seeds)": [seeds[k] for k in summary["layer"]],
            "dev mean": 100 * summary["dev_mean"].to_numpy(),
            "dev − mix": np.where(singles, 100 * (summary["dev_mean"].to_numpy() - mix_mean), np.nan),
            f"test {view.metric} mean": 100 * summary["test_mean"].to_numpy(),
            "best layer": (singles & (summary["dev_mean"] == best)).to_numpy(),
        }
    )


def layers_command(
    dataset: dict[str, Any],
    *,
    tracking_uri: str,
    experiment: str,
    profile: str,
    seeds: int,
    size: int | None = None,
    contextual: str | None = None,
    pooling: str = DEFAULT_POOLING,
    pair_encoding: str | None = None,
    python: str | None = None,
) -> list[str]:
    """The ``advisor layers`` argument list for the page's dataset (the sweep is logged as its own run);
    ``pair_encoding`` only for pair data (the command refuses it for other tasks)."""
    import sys

    args = [python or sys.executable, "-c", _LAUNCH, "layers", dataset["data"], "--task", dataset["task"]]
    optional = {
        "--dev": dataset.get("dev"),
        "--test": dataset.get("test"),
        "--text-col": dataset.get("text_col"),
        "--label-col": dataset.get("label_col"),
        "--contextual": contextual,
        "--size": str(size) if size else None,
        "--pair-encoding": pair_encoding,
    }
    for flag, value in optional.items():
        if value:
            args += [flag, str(value)]
    args += ["--pooling", pooling, "--seeds", str(seeds), "--profile", profile]
    return [*args, "--tracking-uri", tracking_uri, "--experiment", experiment]


def sweep_label(run: Any) -> str:
    """How a sweep is named in the picker: its data file, task, size and when it ran."""
    params = run.data.params
    data = Path(params.get("data", "?")).name
    started = pd.Timestamp(run.info.start_time, unit="ms").strftime("%Y-%m-%d %H:%M")
    size = readable_number(params.get("size", "?"))  # "1,730 items", as every other count
    return f"{data} · {params.get('task', '?')} · {size} items · {started} · {run.info.run_id[:8]}"
