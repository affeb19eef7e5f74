"""What a caller sets (:class:`TrainConfig`) and what one trained model reports (:class:`TrainResult`).

The defaults are tuned for *speed first*: ``advisor run`` trains some 40-50 models (embeddings x
training-set sizes x seeds) on 2 CPU cores in a few minutes. Measured with
``experiments/bench_trainers.py`` on WNUT-17 (full train, GloVe 50-d, seed 0, 10 epochs; process
CPU seconds per epoch incl. the dev pass, on a shared, heavily loaded 2-core machine):

| projection / hidden / batch / lr | CPU s/epoch | dev F1 | test F1 |
|---|---|---|---|
| 128 / 64 / 32 / 3e-3 | 2.90 | 0.421 | 0.298 |
| **64 / 64 / 64 / 5e-3** (default) | 1.80 | 0.407 | 0.274 |
| 64 / 32 / 64 / 5e-3 | 1.46 | 0.384 | 0.244 |

- ``projection=64``: a learnt linear map of the frozen vectors before the recurrent layer makes
  the cost of a step nearly independent of the embedding width (50-d GloVe vs 768-d BERT); it is
  the same layer for every embedding, so the comparison stays fair.
- ``hidden=64`` (per direction): halving it saves 20 % more time but costs 3 F1 points.
- ``batch_size=64, lr=5e-3``: fewer, larger steps are cheaper per token on CPU; the higher
  learning rate compensates for fewer updates.
- ``max_steps``, ``min_steps``, ``patience``, ``anneals``, ``eval_every``: the training budget in optimizer steps
  with early stopping on dev (:mod:`trainers._budget`), the same rule for every embedding; callers
  (the run profiles) set the ceiling and the patience.
- ``num_threads=1``: these models are too small to gain from intra-op threads, and on a busy
  machine two threads made one LSTM step ~25x slower (measured); one thread per model also lets
  callers run models side by side.
- ``use_crf=False``: the CRF layer (Python loop over time steps) costs extra time per epoch;
  callers can switch it on.
- ``precision="auto"``: the downstream model computes in bfloat16 (autocast; fp32 weights, loss,
  optimizer and scalar mix) where the CPU has native bf16 (AVX512-BF16 or AMX), float32 elsewhere;
  see :mod:`trainers._precision`. ``advisor`` resolves it before a run, so the resolved value is
  logged and a run is never resumed in another precision.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from trainers._errors import T101, T102

__all__ = ["CLASSIFIERS", "PRECISIONS", "TrainConfig", "TrainResult"]

CLASSIFIERS: tuple[str, ...] = ("cnn", "bilstm")
#: How the downstream model computes: "auto" picks bfloat16 on CPUs with native bf16, else float32.
PRECISIONS: tuple[str, ...] = ("auto", "float32", "bfloat16")


@dataclass
class TrainConfig:
    """Hyper-parameters of the downstream model and its training loop (same for every embedding)."""

    max_steps: int = 4000  # ceiling: a cell that reaches it while dev still improves is under-trained
    min_steps: int = 600  # floor: no patience stop before this many steps (small cells learn late)
    patience: int = 5  # dev evaluations without improvement before stopping
    anneals: int = 2  # plateaus that halve the learning rate before the next one stops the cell
    eval_every: int | None = None  # steps between dev evaluations; None: one epoch clamped to [20, 100]
    batch_size: int = 64
    lr: float = 5e-3
    hidden: int = 64
    dropout: float = 0.3
    use_crf: bool = False
    classifier: Literal["cnn", "bilstm"] = "cnn"
    seed: int = 0
    device: str | None = None
    projection: int = 64
    casing_features: bool = True
    num_threads: int | None = 1
    mix_lr_factor: float = 10.0  # learning-rate multiplier of the scalar-mix weights (layer stacks only)
    precision: str = "auto"

    def __post_init__(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise T101(classifier=self.classifier, choices=", ".join(CLASSIFIERS))
        positive = {
            "max_steps": self.max_steps,
            "patience": self.patience,
            "eval_every": self.eval_every or 1,
            "batch_size": self.batch_size,
            "hidden": self.hidden,
            "projection": self.projection,
        }
        for name, value in positive.items():
            if value < 1:
                raise T102(name=name, requirement="be at least 1", value=value)
        if self.anneals < 0:
            raise T102(name="anneals", requirement="be at least 0", value=self.anneals)
        if not 0 <= self.min_steps <= self.max_steps:
            raise T102(name="min_steps", requirement="lie in [0, max_steps]", value=self.min_steps)
        if not self.lr > 0:
            raise T102(name="lr", requirement="be positive", value=self.lr)
        if not 0.0 <= self.dropout < 1.0:
            raise T102(name="dropout", requirement="be in [0, 1)", value=self.dropout)
        if self.precision not in PRECISIONS:
            raise T102(
                name="precision", requirement=f"be one of {', '.join(PRECISIONS)}", value=self.precision
            )

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
    steps: int  # optimizer steps taken
    train_seconds: float
    inference_ms_per_item: float
    n_params: int
    device: str
    peak_memory_mb: (
        float  # CPU: resident memory added while training + evaluating this model; GPU: torch peak
    )
    labels: list[str] = field(default_factory=list)
    precision: str = "float32"  # what the downstream model computed in (resolved, never "auto")
    best_step: int = 0  # the step of the best dev score (whose weights were kept)
    stopped_by: str = "patience"  # "patience" or "ceiling" (trainers._budget.STOPPED_BY)
    eval_every: int = 0  # steps between dev evaluations
    epochs: float = 0.0  # passes over the training set the steps amount to
    dev_history: list[float] = field(default_factory=list)  # dev primary metric per evaluation
    dev_steps: list[int] = field(default_factory=list)  # the optimizer step of each evaluation
    layer_weights: list[float] = field(default_factory=list)  # scalar-mix softmax weights, layer 0 first
    mix_gamma: float = float("nan")  # scalar-mix scale; NaN when the features were not a layer stack
    dev_seconds: float = 0.0  # of ``train_seconds``: the dev evaluations (what a larger dev set costs)

    @property
    def under_trained(self) -> bool:
        """Stopped at the step ceiling while dev was still improving (patience had not run out)."""
        return self.stopped_by == "ceiling"

    def to_dict(self) -> dict[str, float | int | str]:
        """Flat scalars for MLflow: ``scores`` are prefixed ``eval_``, per-item lists are left out."""
        flat: dict[str, float | int | str] = {
            "task": self.task,
            "primary_metric": self.primary_metric,
            "score": float(self.score),
            "dev_score": float(self.dev_score),
            "steps": int(self.steps),
            "best_step": int(self.best_step),
            "stopped_by": self.stopped_by,
            "under_trained": int(self.under_trained),
            "eval_every": int(self.eval_every),
            "epochs": float(self.epochs),
            "train_seconds": float(self.train_seconds),
            "inference_ms_per_item": float(self.inference_ms_per_item),
            "n_params": int(self.n_params),
            "device": self.device,
            "precision": self.precision,
            "peak_memory_mb": float(self.peak_memory_mb),
        }
        for name, value in self.scores.items():
            flat[f"eval_{name}"] = float(value)
        for layer, weight in enumerate(self.layer_weights):
            flat[f"mix_weight.{layer}"] = float(weight)
        if self.layer_weights:
            flat["mix_gamma"] = float(self.mix_gamma)
        return flat
