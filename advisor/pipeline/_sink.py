"""The sink: every trained cell goes to MLflow through the tracker's API, and is remembered for the analysis.

Per cell: the metrics (the primary one under its own name and as ``score``), the per-item predictions
table, the time spent training, evaluating and logging. The predictions stay in memory for the
analysis stages; cells an earlier process finished are read back once, by :meth:`CellSink.reuse`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from advisor.grid import Cell, CellKey

__all__ = ["CellSink", "cell_metrics", "predictions_frame", "predictions_from_frame"]


def cell_metrics(result: Any, primary: str) -> dict[str, float]:
    """What a cell logs: score, primary metric, dev score, costs, other eval scores, scalar-mix weights."""
    return {
        "score": result.score,
        primary: result.score,
        "dev_score": result.dev_score,
        "train_seconds": result.train_seconds,
        "inference_ms_per_item": result.inference_ms_per_item,
        "peak_memory_mb": result.peak_memory_mb,
        "n_params": result.n_params,
        "epochs": result.epochs,
        "steps": result.steps,
        "best_step": result.best_step,
        "under_trained": float(result.under_trained),
        **{f"eval_{k}": v for k, v in result.scores.items() if k != primary},
        **{k: v for k, v in result.to_dict().items() if k.startswith("mix_")},
    }


def predictions_frame(task: str, corpus: Any, result: Any) -> pd.DataFrame:
    """Per-item predictions as a table; NER tags are space-joined strings (one row per sentence)."""
    correct = [float(g == p) for g, p in zip(corpus.labels, result.predictions, strict=True)]
    if task == "ner":
        return pd.DataFrame(
            {
                "item": np.arange(len(corpus)),
                "line": corpus.line_numbers,
                "gold": [" ".join(t) for t in corpus.labels],
                "prediction": [" ".join(p) for p in result.predictions],
                "correct": correct,
                "gold_prob": [float(np.mean(p)) if len(p) else float("nan") for p in result.gold_probs],
            }
        )
    return pd.DataFrame(
        {
            "item": np.arange(len(corpus)),
            "line": corpus.line_numbers,
            "gold": corpus.labels,
            "prediction": result.predictions,
            "correct": correct,
            "gold_prob": [float(p) for p in result.gold_probs],
        }
    )


def predictions_from_frame(task: str, frame: pd.DataFrame) -> list[Any]:
    values = frame.sort_values("item")["prediction"].tolist()
    return [str(v).split() for v in values] if task == "ner" else [str(v) for v in values]


@dataclass
class CellSink:
    """Logs cells through ``tracker`` and keeps their predictions and timings."""

    tracker: Any  # advisor.tracking.AnalysisTracker
    task: str
    primary: str
    test: Any  # the evaluation corpus
    timings: dict[str, float]
    predictions: dict[CellKey, list[Any]] = field(default_factory=dict)
    layer_weights: dict[CellKey, list[float]] = field(default_factory=dict)  # scalar-mix cells only
    computed: list[Cell] = field(default_factory=list)

    def _add(self, key: str, seconds: float) -> None:
        self.timings[key] = self.timings.get(key, 0.0) + seconds

    def log(self, cell: Cell, result: Any) -> None:
        """Log one trained cell (metrics last: its ``score`` marks it finished)."""
        self._add(f"train.{cell.embedding}", result.train_seconds)
        self._add("evaluate", result.inference_ms_per_item * len(self.test) / 1000)
        t0 = time.perf_counter()
        frame = predictions_frame(self.task, self.test, result)
        history = list(zip(result.dev_steps, result.dev_history, strict=True))
        metrics = cell_metrics(result, self.primary)
        self.tracker.log_cell(cell.embedding, cell.size, cell.seed, metrics, frame, dev_history=history)
        self._add("logging", time.perf_counter() - t0)
        self.predictions[cell.key] = result.predictions
        if getattr(result, "layer_weights", None):
            self.layer_weights[cell.key] = list(result.layer_weights)
        self.computed.append(cell)

    def reuse(self, cells: list[Cell]) -> None:
        """Predictions of cells an earlier process finished, from their logged tables."""
        for cell in cells:
            frame = self.tracker.load_predictions(cell.embedding, cell.seed, cell.size)
            self.predictions[cell.key] = predictions_from_frame(self.task, frame)
