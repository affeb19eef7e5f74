"""What a caller sets (:class:`TrainConfig`) and what one trained model reports (:class:`TrainResult`).

The defaults are tuned for *speed first*: ``advisor run`` trains some 40-50 models (embeddings x
training-set sizes x seeds) on 2 CPU cores in a few minutes, so one full-data WNUT-17 tagger must
train in a few seconds. Measured with ``experiments/bench_trainers.py`` (see the numbers in the
module docstring of :mod:`trainers._loop`):

- ``projection=128``: a linear map of the frozen vectors to 128 dims before the recurrent layer
  makes the cost of a step nearly independent of the embedding width (50-d GloVe vs 768-d BERT),
  and is the same learnt layer for every embedding, so the comparison stays fair.
- ``hidden=64`` (per direction), ``batch_size=32``, ``lr=3e-3``: with Adam this reaches its best
  dev score in ~5-8 epochs; larger hidden sizes cost time without a better dev score on WNUT/TREC.
- ``max_epochs=10, patience=2``: the dev score plateaus early on frozen features; patience 2
  rides out one noisy epoch without paying for many.
- ``use_crf=False``: the CRF layer costs ~2x per epoch (Python loop over time steps) for ~0-1
  F1 point on WNUT with these features; callers can switch it on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from advisor.errors import ConfigError

__all__ = ["CLASSIFIERS", "TrainConfig", "TrainResult"]

CLASSIFIERS: tuple[str, ...] = ("cnn", "bilstm")


@dataclass
class TrainConfig:
    """Hyper-parameters of the downstream model and its training loop (same for every embedding)."""

    max_epochs: int = 10
    patience: int = 2
    batch_size: int = 32
    lr: float = 3e-3
    hidden: int = 64
    dropout: float = 0.3
    use_crf: bool = False
    classifier: Literal["cnn", "bilstm"] = "cnn"
    seed: int = 0
    device: str | None = None
    projection: int = 128
    casing_features: bool = True
    num_threads: int | None = 1

    def __post_init__(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ConfigError(
                f"unknown classifier {self.classifier!r}",
                hint=f"choose one of: {', '.join(CLASSIFIERS)}",
                code="E210",
            )
        positive = {
            "max_epochs": self.max_epochs,
            "batch_size": self.batch_size,
            "hidden": self.hidden,
            "projection": self.projection,
        }
        for name, value in positive.items():
            if value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}", code="E211")
        if self.patience < 0:
            raise ConfigError(f"patience must be >= 0, got {self.patience}", code="E211")
        if not self.lr > 0:
            raise ConfigError(f"lr must be positive, got {self.lr}", code="E211")
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must be in [0, 1), got {self.dropout}", code="E211")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainResult:
    """Scores, per-item outputs and costs of one trained model on the evaluation set."""

    task: str
    primary_metric: str
    score: float
    scores: dict[str, float]
    dev_score: float
    predictions: list[Any]
    gold_probs: list[Any]
    epochs: int
    train_seconds: float
    inference_ms_per_item: float
    n_params: int
    device: str
    peak_memory_mb: float
    labels: list[str] = field(default_factory=list)
    dev_history: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, float | int | str]:
        """Flat scalars for MLflow: ``scores`` are prefixed ``eval_``, per-item lists are left out."""
        flat: dict[str, float | int | str] = {
            "task": self.task,
            "primary_metric": self.primary_metric,
            "score": float(self.score),
            "dev_score": float(self.dev_score),
            "epochs": int(self.epochs),
            "train_seconds": float(self.train_seconds),
            "inference_ms_per_item": float(self.inference_ms_per_item),
            "n_params": int(self.n_params),
            "device": self.device,
            "peak_memory_mb": float(self.peak_memory_mb),
        }
        for name, value in self.scores.items():
            flat[f"eval_{name}"] = float(value)
        return flat
