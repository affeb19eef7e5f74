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

import contextlib
import math
import resource
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from trainers._budget import EarlyStopping, eval_interval
from trainers._classifier import make_classifier
from trainers._config import TrainConfig, TrainResult
from trainers._corpus import LabelledItems as Corpus
from trainers._errors import T201, T202, T203, T204, T205
from trainers._evaluate import StrictF1, classification_scores, ner_scores
from trainers._features import RowView, TokenFeatures, offsets_from_lengths
from trainers._mix import ScalarMix, layer_norms
from trainers._precision import autocast, resolve_precision
from trainers._tagger import BiLSTMTagger, casing_ids

__all__ = ["fit_and_evaluate"]

_CHUNK_BATCHES = 50  # batches per length-sorting chunk: enough to bucket, few enough to stay random


def _feature_view(feats: TokenFeatures, items: np.ndarray) -> TokenFeatures:
    """``feats.subset(items)`` as a view over ``feats.vectors`` (same rows, same order, no copy)."""
    items = np.asarray(items, dtype=np.int64)
    lengths = feats.lengths()[items]
    offsets = offsets_from_lengths(lengths)
    shift = np.repeat(feats.offsets[items] - offsets[:-1], lengths)
    row_of = np.arange(int(offsets[-1]), dtype=np.int64) + shift
    return TokenFeatures(vectors=RowView(feats.vectors, row_of), offsets=offsets)  # type: ignore[arg-type]


class _InputBuffer:
    """One reusable float32 block that a split's padded batches are cast into, batch after batch.

    A CoNLL-size dev batch of a layer stack is ~66 MB, above glibc's mmap threshold, so a fresh
    tensor per batch was page-faulted in anew every time (alone: 43 ms per such batch vs 10 ms into
    a reused block; in a small contextual cell the dev passes' cast went 3.3 -> 2.4 s over 10 epochs).
    The block is numpy-allocated (transparent huge pages) and grows to the largest batch.
    A batch's tensor is valid until the split's next batch: training back-propagates each batch
    before asking for the next one, and prediction is done with a batch before the next.
    """

    def __init__(self) -> None:
        self._flat: torch.Tensor | None = None

    def take(self, shape: tuple[int, ...]) -> torch.Tensor:
        numel = math.prod(shape)
        if self._flat is None or self._flat.numel() < numel:
            self._flat = torch.from_numpy(np.empty(numel, dtype=np.float32))
        return self._flat[:numel].view(shape)


def _model_input(gathered: np.ndarray, buffer: _InputBuffer) -> torch.Tensor:
    """Padded rows as float32; a layer stack ``(batch, steps, layers, dim)`` comes layer-first.

    The cast is torch's (exact like numpy's, but vectorised: numpy's float16 cast was ~1/5 of a
    layer-stack cell). Layer-first is the layout :class:`~trainers._mix.ScalarMix` reads fastest (one
    contiguous matrix-vector product, 2x cheaper forward + backward than mixing an inner axis), and
    the cast writes it into ``buffer`` in the same pass. Rows gathered as float32 are used as they are.
    """
    tensor = torch.from_numpy(gathered)
    if tensor.ndim == 4:
        tensor = tensor.permute(2, 0, 1, 3)
    if tensor.dtype == torch.float32 and tensor.is_contiguous():
        return tensor
    out = buffer.take(tuple(tensor.shape))
    out.copy_(tensor)
    return out


@dataclass
class _Batch:
    items: np.ndarray
    vectors: torch.Tensor
    mask: torch.Tensor
    casing: torch.Tensor | None
    targets: torch.Tensor


class _Split:
    """Features + label ids of one split, cut into padded tensor batches on demand."""

    def __init__(self, feats: TokenFeatures, corpus: Corpus, label_index: dict[str, int], casing: bool):
        self.feats = feats
        self.corpus = corpus
        self.task = corpus.task
        self.lengths = feats.lengths().astype(np.int64)
        if self.task == "ner":
            flat = [label_index[tag] for tags in corpus.labels for tag in tags]
            self.token_targets = np.asarray(flat, dtype=np.int64)
            self.targets = None
        else:
            self.targets = np.asarray([label_index[label] for label in corpus.labels], dtype=np.int64)
        self._input_buffer = _InputBuffer()
        self.casing = None
        if casing:
            self.casing = casing_ids([tok for sent in corpus.tokens for tok in sent])

    def __len__(self) -> int:
        return len(self.lengths)

    def batch(self, items: np.ndarray, device: torch.device) -> _Batch:
        lengths = self.lengths[items]
        n_steps = max(int(lengths.max()), 1)
        steps = np.arange(n_steps)
        real = steps[None, :] < lengths[:, None]
        rows = np.where(real, self.feats.offsets[items][:, None] + steps[None, :], 0)
        gathered = np.asarray(self.feats.vectors[rows])  # one gather, also from a float16 memmap
        gathered[~real] = 0
        vectors = _model_input(gathered, self._input_buffer)
        # Empty items get one all-zero step so every model sees at least one position.
        model_mask = steps[None, :] < np.maximum(lengths, 1)[:, None]
        casing = None
        if self.casing is not None:
            casing = torch.from_numpy(np.where(real, self.casing[rows], 0)).to(device)
        if self.task == "ner":
            targets = torch.from_numpy(np.where(real, self.token_targets[rows], 0))
        else:
            targets = torch.from_numpy(self.targets[items])
        return _Batch(
            items=items,
            vectors=vectors.to(device),
            mask=torch.from_numpy(model_mask).to(device),
            casing=casing,
            targets=targets.to(device),
        )

    def training_batches(self, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Shuffle, sort by length within chunks, cut into batches, shuffle the batches."""
        order = rng.permutation(len(self))
        chunk = batch_size * _CHUNK_BATCHES
        batches: list[np.ndarray] = []
        for start in range(0, len(order), chunk):
            part = order[start : start + chunk]
            part = part[np.argsort(self.lengths[part], kind="stable")]
            batches.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
        return [batches[i] for i in rng.permutation(len(batches))]

    def inference_batches(self, batch_size: int) -> list[np.ndarray]:
        order = np.argsort(self.lengths, kind="stable")
        return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


@dataclass
class _Outputs:
    predictions: list
    gold_probs: list
    loss: float


def _observed_transitions(train: _Split, labels: list[str]) -> np.ndarray:
    """``[a, b]``: tag ``b`` follows tag ``a`` somewhere in the training labels (what a CRF never forbids).

    Only a CRF reads it; without one, the per-token Python loop cost a full-size cell ~0.5 s.
    """
    ids = train.token_targets
    observed = np.zeros((len(labels), len(labels)), dtype=bool)
    within = np.ones(len(ids), dtype=bool)
    starts = train.feats.offsets[:-1]
    within[starts[starts < len(ids)]] = False  # the first word of an item follows nothing
    follows = np.flatnonzero(within)
    observed[ids[follows - 1], ids[follows]] = True
    return observed


class _Model:
    """The network plus task-specific forward / loss / decode, so the loop is one for both tasks."""

    def __init__(self, task: str, labels: list[str], dim: int, config: TrainConfig, train: _Split):
        self.task = task
        self.labels = labels
        self.precision = resolve_precision(config.precision, config.device)
        stack = train.feats.vectors
        self.mix = ScalarMix(stack.shape[1], layer_norms(stack)) if stack.ndim == 3 else None
        if task == "ner":
            self.net: nn.Module = BiLSTMTagger(
                dim,
                labels,
                projection=config.projection,
                hidden=config.hidden,
                dropout=config.dropout,
                use_crf=config.use_crf,
                casing_features=config.casing_features,
                observed_transitions=_observed_transitions(train, labels) if config.use_crf else None,
                mix=self.mix,
            )
        else:
            self.net = make_classifier(
                config.classifier,
                dim,
                len(labels),
                config.projection,
                config.hidden,
                config.dropout,
                mix=self.mix,
            )

    def forward(self, batch: _Batch) -> torch.Tensor:
        """Tag scores (NER) or logits, computed in the config's precision and returned as float32."""
        with autocast(self.precision, batch.vectors.device):
            if self.task == "ner":
                out = self.net.emissions(batch.vectors, batch.casing, batch.mask)
            else:
                out = self.net(batch.vectors, batch.mask)
        return out.float()

    def loss(self, batch: _Batch) -> torch.Tensor:
        scores = self.forward(batch)
        if self.task == "ner":
            return self.net.loss(scores, batch.targets, batch.mask)
        return nn.functional.cross_entropy(scores, batch.targets)

    @torch.no_grad()
    def predict(
        self, split: _Split, batch_size: int, device: torch.device, with_probs: bool = True
    ) -> _Outputs:
        """Predictions and p(gold) in the split's own item order, plus the mean loss.

        ``with_probs=False`` (the per-epoch dev pass) leaves ``gold_probs`` empty: early stopping
        reads only the predictions and the loss, and per-token floats cost a Python loop.
        """
        self.net.eval()
        predictions: list = [None] * len(split)
        gold_probs: list = [None] * len(split)
        total_loss, total_weight = 0.0, 0
        for items in split.inference_batches(batch_size):
            batch = split.batch(items, device)
            if self.task == "ner":
                emissions = self.forward(batch)
                weight = int(batch.mask.sum())
                total_loss += float(self.net.loss(emissions, batch.targets, batch.mask)) * weight
                paths, probs = self.net.decode(emissions, batch.mask, with_probs)
                for row, item in enumerate(items.tolist()):
                    n = int(split.lengths[item])
                    predictions[item] = [self.labels[k] for k in paths[row][:n]]  # raw: scored strictly
                if probs is not None:
                    p_gold = probs.gather(2, batch.targets.unsqueeze(2)).squeeze(2).cpu().numpy()
                    for row, item in enumerate(items.tolist()):
                        gold_probs[item] = p_gold[row, : int(split.lengths[item])].tolist()
            else:
                logits = self.forward(batch)
                weight = len(items)
                total_loss += float(nn.functional.cross_entropy(logits, batch.targets)) * weight
                probs = logits.softmax(dim=-1)
                best = probs.argmax(dim=-1).tolist()
                p_gold = probs.gather(1, batch.targets.unsqueeze(1)).squeeze(1).tolist()
                for row, item in enumerate(items.tolist()):
                    predictions[item] = self.labels[best[row]]
                    gold_probs[item] = float(p_gold[row])
            total_weight += weight
        return _Outputs(predictions, gold_probs, total_loss / max(total_weight, 1))

    def score(self, corpus: Corpus, predictions: list) -> dict[str, float]:
        if self.task == "ner":
            return ner_scores(corpus.labels, predictions)
        return classification_scores(corpus.labels, predictions)

    def primary_scorer(self, corpus: Corpus) -> Callable[[list], float]:
        """The metric early stopping reads after every epoch; for NER the gold entities are found once."""
        if self.task == "ner":
            return StrictF1(corpus.labels)
        return lambda predictions: classification_scores(corpus.labels, predictions)["accuracy"]


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


def _label_set(*corpora: Corpus) -> list[str]:
    labels: set[str] = set()
    for corpus in corpora:
        labels.update(corpus.label_counts())
    return sorted(labels)


def _resolve_device(requested: str | None) -> torch.device:
    if requested is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)


@contextlib.contextmanager
def _reproducible(seed: int, device: torch.device, num_threads: int | None) -> Iterator[None]:
    """Seed torch on a forked RNG (the caller's stream is untouched); pin threads; restore after.

    On CPU the kernels used here (LSTM, conv, linear, Adam) are deterministic already; the global
    deterministic-algorithms switch is only flipped on CUDA, where it matters (on CPU its first
    call imports torch's compiler stack, seconds per process, for no gain).
    """
    devices = [device.index or 0] if device.type == "cuda" else []
    previous_threads = torch.get_num_threads()
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        if device.type == "cuda":
            was_deterministic = torch.are_deterministic_algorithms_enabled()
            was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
            torch.use_deterministic_algorithms(True, warn_only=True)
        if num_threads is not None:
            torch.set_num_threads(num_threads)
        try:
            yield
        finally:
            if device.type == "cuda":
                torch.use_deterministic_algorithms(was_deterministic, warn_only=was_warn_only)
            torch.set_num_threads(previous_threads)


def _proc_status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 2**10  # kB
    except OSError:
        return None
    return None


def _start_memory_window(device: torch.device) -> float:
    """Open a per-model memory window; returns the resident baseline (MB) on CPU.

    Linux lets a process reset its resident high-water mark (``5`` to ``/proc/self/clear_refs``),
    so each model's peak is its own and not the process's peak so far (which would make every
    embedding look equally expensive once the encoder has been loaded).
    """
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        return 0.0
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return 0.0
    return _proc_status_mb("VmRSS") or 0.0


def _peak_memory_mb(device: torch.device, baseline: float) -> float:
    """GPU: peak allocated by torch; CPU: resident high-water mark above the window's baseline.

    Where the high-water mark cannot be reset (not Linux), this is the process's peak RSS.
    """
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    hwm = _proc_status_mb("VmHWM")
    if hwm is not None and baseline > 0:
        return max(hwm - baseline, 0.0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _parameter_groups(model: _Model, config: TrainConfig) -> list[dict]:
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


def _endless_batches(train: _Split, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Epoch after epoch of length-bucketed, shuffled batches (a fresh shuffle every epoch)."""
    while True:
        yield from train.training_batches(batch_size, rng)


def _train_step(model: _Model, optimizer: torch.optim.Optimizer, batch: _Batch) -> None:
    optimizer.zero_grad(set_to_none=True)
    model.loss(batch).backward()
    optimizer.step()


def _fit(model: _Model, train: _Split, dev: _Split, config: TrainConfig, device: torch.device) -> _Fitted:
    """Adam steps with early stopping on the dev primary metric (``trainers._budget``); best weights kept."""
    rng = np.random.default_rng(config.seed)
    optimizer = torch.optim.Adam(_parameter_groups(model, config), lr=config.lr)
    every = eval_interval(len(train), config.batch_size, config.eval_every)
    stopping = EarlyStopping(config.patience, config.min_steps)
    best_state = {k: v.detach().clone() for k, v in model.net.state_dict().items()}
    dev_score = model.primary_scorer(dev.corpus)
    batches = _endless_batches(train, config.batch_size, rng)
    started, step, stopped_by = time.perf_counter(), 0, "ceiling"
    model.net.train()
    while step < config.max_steps:
        _train_step(model, optimizer, train.batch(next(batches), device))
        step += 1
        if step % every and step < config.max_steps:
            continue
        dev_out = model.predict(dev, _inference_batch(config), device, with_probs=False)
        model.net.train()
        if stopping.observe(step, dev_score(dev_out.predictions), dev_out.loss):
            best_state = {k: v.detach().clone() for k, v in model.net.state_dict().items()}
        if stopping.patience_ran_out(step):
            stopped_by = "patience"
            break
    train_seconds = time.perf_counter() - started
    model.net.load_state_dict(best_state)
    return _Fitted(stopping, step, stopped_by, every, train_seconds)


def _inference_batch(config: TrainConfig) -> int:
    return max(config.batch_size, 256)


def _evaluate(
    model: _Model, evaluation: _Split, config: TrainConfig, device: torch.device
) -> tuple[_Outputs, float]:
    """Predictions on the evaluation split and the seconds they took (GPU work finished, not queued)."""
    started = time.perf_counter()
    outputs = model.predict(evaluation, _inference_batch(config), device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return outputs, time.perf_counter() - started


def _splits(
    pairs: dict[str, tuple[TokenFeatures, Corpus]], config: TrainConfig
) -> tuple[list[str], dict[str, _Split]]:
    """The label set of all three corpora and each split's batches-on-demand view."""
    corpora = [corpus for _, corpus in pairs.values()]
    labels = _label_set(*corpora)
    label_index = {label: i for i, label in enumerate(labels)}
    use_casing = corpora[0].task == "ner" and config.casing_features
    splits = {name: _Split(feats, corpus, label_index, use_casing) for name, (feats, corpus) in pairs.items()}
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
) -> TrainResult:
    """Train the task's downstream model on ``train``, early-stop on ``dev``, score on ``eval``.

    ``train_items``: train on these items of ``train_feats`` (``train_corpus`` holds just them, in
    this order); their rows are read from ``train_feats`` per batch instead of copied.
    """
    config = config or TrainConfig()
    if train_items is not None:
        train_feats = _feature_view(train_feats, train_items)
    pairs = {
        "train": (train_feats, train_corpus),
        "dev": (dev_feats, dev_corpus),
        "eval": (eval_feats, eval_corpus),
    }
    _check_inputs(pairs)
    task = train_corpus.task
    primary = "f1" if task == "ner" else "accuracy"
    labels, splits = _splits(pairs, config)
    device = _resolve_device(config.device)
    with _reproducible(config.seed, device, config.num_threads):
        memory_baseline = _start_memory_window(device)
        model = _Model(task, labels, train_feats.dim, config, splits["train"])
        model.net.to(device)
        fitted = _fit(model, splits["train"], splits["dev"], config, device)
        eval_out, inference_seconds = _evaluate(model, splits["eval"], config, device)
        scores = model.score(eval_corpus, eval_out.predictions) if len(eval_corpus) else {primary: 0.0}
    return TrainResult(
        task=task,
        primary_metric=primary,
        score=float(scores[primary]),
        scores=scores,
        dev_score=float(fitted.stopping.best_score),
        predictions=eval_out.predictions,
        gold_probs=eval_out.gold_probs,
        steps=fitted.steps,
        best_step=fitted.stopping.best_step,
        stopped_by=fitted.stopped_by,
        eval_every=fitted.eval_every,
        epochs=fitted.steps * config.batch_size / max(len(train_corpus), 1),
        train_seconds=fitted.train_seconds,
        inference_ms_per_item=1000.0 * inference_seconds / max(len(eval_corpus), 1),
        n_params=sum(p.numel() for p in model.net.parameters() if p.requires_grad),
        device=str(device),
        precision=model.precision,
        peak_memory_mb=_peak_memory_mb(device, memory_baseline),
        labels=labels,
        dev_history=fitted.stopping.history,
        dev_steps=fitted.stopping.steps,
        layer_weights=model.mix.weights() if model.mix is not None else [],
        mix_gamma=float(model.mix.gamma.detach()) if model.mix is not None else float("nan"),
    )
