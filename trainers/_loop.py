"""Train one downstream model on frozen features and score it on the evaluation set.

Every embedding goes through exactly this loop with the same :class:`~trainers.TrainConfig`:
Adam for a budget of optimizer steps with early stopping on the dev-set primary metric (ties broken
by dev loss, a floor and a ceiling of steps: :mod:`trainers._budget`), best weights kept,
length-bucketed batches (sorted by length within chunks, chunks' batches shuffled) so padding is
small, and a seed that makes a CPU run bit-for-bit repeatable. Features may be a float16 memmap:
rows are gathered and converted per batch, never all at once. A contextual layer stack
``(words, layers, dim)`` gets a learned scalar mix (``trainers._mix``) in front of the same model;
its final weights are returned in :attr:`TrainResult.layer_weights`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from trainers._batches import Batch, Split, feature_view, label_set
from trainers._budget import ANNEAL_FACTOR, EarlyStopping, eval_interval
from trainers._config import TrainConfig, TrainResult
from trainers._corpus import LabelledItems as Corpus
from trainers._errors import T201, T202, T203, T204, T205
from trainers._features import TokenFeatures
from trainers._model import Outputs, TaskModel
from trainers._scoring import TaskScoring, scoring_for
from trainers._system import peak_memory_mb, reproducible, resolve_device, start_memory_window

__all__ = ["fit_and_evaluate"]


def _check_inputs(pairs: dict[str, tuple[TokenFeatures, Corpus]]) -> None:
    tasks = {name: corpus.task for name, (_, corpus) in pairs.items()}
    if len(set(tasks.values())) != 1:
        raise T201(tasks=tasks)
    dims = {name: (feats.n_layers, feats.dim) for name, (feats, _) in pairs.items()}
    if len(set(dims.values())) != 1:
        raise T202(dims=dims)
    for name, (feats, corpus) in pairs.items():
        if len(feats) != len(corpus):
            raise T203(name=name, n_feats=len(feats), n_items=len(corpus))
        token_counts = np.fromiter((len(t) for t in corpus.tokens), dtype=np.int64, count=len(corpus))
        mismatched = np.flatnonzero(feats.lengths() != token_counts)
        if len(mismatched):
            i = int(mismatched[0])
            raise T204(
                name=name,
                i=i,
                n_tokens=token_counts[i],
                n_rows=feats.lengths()[i],
                file=corpus.source,
                line=corpus.line_numbers[i],
            )
        if len(corpus) == 0 and name != "eval":
            raise T205(name=name, file=corpus.source)


def _parameter_groups(model: TaskModel, config: TrainConfig) -> list[dict]:
    """The scalar mix's layer logits and scale learn ``mix_lr_factor`` times faster than the rest.

    They are a handful of parameters that must move far from uniform within the few hundred steps
    a small training set gives; at the model's learning rate they stayed near uniform.
    """
    if model.mix is None:
        return [{"params": list(model.net.parameters())}]
    mixed = {id(p) for p in model.mix.parameters()}
    rest = [p for p in model.net.parameters() if id(p) not in mixed]
    return [
        {"params": rest},
        {"params": list(model.mix.parameters()), "lr": config.lr * config.mix_lr_factor},
    ]


@dataclass
class _Fitted:
    """What early-stopped training leaves: the stopping record, the dev curve and the time it took."""

    stopping: EarlyStopping
    steps: int
    stopped_by: str
    eval_every: int
    train_seconds: float
    dev_seconds: float  # of train_seconds: the dev evaluations


def _endless_batches(train: Split, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Epoch after epoch of length-bucketed, shuffled batches (a fresh shuffle every epoch)."""
    while True:
        yield from train.training_batches(batch_size, rng)


def _train_step(model: TaskModel, optimizer: torch.optim.Optimizer, batch: Batch) -> None:
    optimizer.zero_grad(set_to_none=True)
    model.loss(batch).backward()
    optimizer.step()


def _fit(model: TaskModel, train: Split, dev: Split, config: TrainConfig, device: torch.device) -> _Fitted:
    """Adam steps with early stopping on the dev primary metric (``trainers._budget``); best weights kept."""
    rng = np.random.default_rng(config.seed)
    # foreach: one kernel per update over all tensors instead of a Python loop over them; the same
    # float operations (bit-identical weights), ~20 % less optimizer time on CPU (fused Adam is 2x
    # cheaper still but rounds differently: it would change the scores).
    optimizer = torch.optim.Adam(_parameter_groups(model, config), lr=config.lr, foreach=True)
    every = eval_interval(len(train), config.batch_size, config.eval_every)
    stopping = EarlyStopping(config.patience, config.min_steps, config.anneals)
    best_state = {k: v.detach().clone() for k, v in model.net.state_dict().items()}
    dev_score = model.primary_scorer(dev.corpus)
    batches = _endless_batches(train, config.batch_size, rng)
    started, step, stopped_by, dev_seconds = time.perf_counter(), 0, "ceiling", 0.0
    model.net.train()
    while step < config.max_steps:
        _train_step(model, optimizer, train.batch(next(batches), device))
        step += 1
        if step % every and step < config.max_steps:
            continue
        dev_started = time.perf_counter()
        dev_out = model.predict(dev, _inference_batch(config), device, with_probs=False)
        dev_seconds += time.perf_counter() - dev_started
        model.net.train()
        if stopping.observe(step, dev_score(dev_out.predictions), dev_out.loss):
            best_state = {k: v.detach().clone() for k, v in model.net.state_dict().items()}
        move = stopping.next_move(step)
        if move == "anneal":
            for group in optimizer.param_groups:
                group["lr"] *= ANNEAL_FACTOR
        elif move == "stop":
            stopped_by = "patience"
            break
    train_seconds = time.perf_counter() - started
    model.net.load_state_dict(best_state)
    return _Fitted(stopping, step, stopped_by, every, train_seconds, dev_seconds)


def _inference_batch(config: TrainConfig) -> int:
    return max(config.batch_size, 256)


def _evaluate(
    model: TaskModel, evaluation: Split, config: TrainConfig, device: torch.device
) -> tuple[Outputs, float]:
    """Predictions on the evaluation split and the seconds they took (GPU work finished, not queued)."""
    started = time.perf_counter()
    outputs = model.predict(evaluation, _inference_batch(config), device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return outputs, time.perf_counter() - started


def _splits(
    pairs: dict[str, tuple[TokenFeatures, Corpus]], config: TrainConfig
) -> tuple[list[str], dict[str, Split]]:
    """The label set of all three corpora and each split's batches-on-demand view (inputs checked)."""
    _check_inputs(pairs)
    corpora = [corpus for _, corpus in pairs.values()]
    labels = label_set(*corpora)
    label_index = {label: i for i, label in enumerate(labels)}
    use_casing = corpora[0].task == "ner" and config.casing_features
    splits = {
        name: Split(feats, corpus, label_index, use_casing, name=name)
        for name, (feats, corpus) in pairs.items()
    }
    return labels, splits


def fit_and_evaluate(
    train_feats: TokenFeatures,
    train_corpus: Corpus,
    dev_feats: TokenFeatures,
    dev_corpus: Corpus,
    eval_feats: TokenFeatures,
    eval_corpus: Corpus,
    config: TrainConfig | None = None,
    train_items: np.ndarray | None = None,
    scoring: TaskScoring | None = None,
) -> TrainResult:
    """Train the task's downstream model on ``train``, early-stop on ``dev``, score on ``eval``.

    ``train_items``: train on these items of ``train_feats`` (``train_corpus`` holds just them, in
    this order), read per batch, not copied. ``scoring``: the caller's headline (default: the task's).
    """
    config = config or TrainConfig()
    if train_items is not None:
        train_feats = feature_view(train_feats, train_items)
    pairs = {
        "train": (train_feats, train_corpus),
        "dev": (dev_feats, dev_corpus),
        "eval": (eval_feats, eval_corpus),
    }
    labels, splits = _splits(pairs, config)
    task = train_corpus.task
    scoring = scoring_for(task, scoring)
    device = resolve_device(config.device)
    with reproducible(config.seed, device, config.num_threads):
        memory_baseline = start_memory_window(device)
        model = TaskModel(task, labels, train_feats.dim, config, splits["train"], scoring)
        model.net.to(device)
        fitted = _fit(model, splits["train"], splits["dev"], config, device)
        eval_out, inference_seconds = _evaluate(model, splits["eval"], config, device)
        scores = model.score(eval_corpus, eval_out.predictions)
    return TrainResult(
        task=task,
        primary_metric=scoring.primary_metric,
        score=float(scores[scoring.primary_metric]),
        scores=scores,
        dev_score=float(fitted.stopping.best_score),
        predictions=eval_out.predictions,
        gold_probs=eval_out.gold_probs,
        **_training_record(fitted),
        epochs=fitted.steps * config.batch_size / max(len(train_corpus), 1),
        train_seconds=fitted.train_seconds,
        dev_seconds=fitted.dev_seconds,
        inference_ms_per_item=1000.0 * inference_seconds / max(len(eval_corpus), 1),
        n_params=sum(p.numel() for p in model.net.parameters() if p.requires_grad),
        device=str(device),
        precision=model.precision,
        peak_memory_mb=peak_memory_mb(device, memory_baseline),
        labels=labels,
        layer_weights=model.mix.weights() if model.mix is not None else [],
        mix_gamma=float(model.mix.gamma.detach()) if model.mix is not None else float("nan"),
    )


def _training_record(fitted: _Fitted) -> dict[str, Any]:
    """How training went: steps, the best step, why it stopped and the dev curve."""
    return {
        "steps": fitted.steps,
        "best_step": fitted.stopping.best_step,
        "stopped_by": fitted.stopped_by,
        "eval_every": fitted.eval_every,
        "dev_history": fitted.stopping.history,
        "dev_steps": fitted.stopping.steps,
    }
