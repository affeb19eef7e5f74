"""The fine-tuned reference: the contextual encoder trained end to end with a linear head.

What most practitioners would ship, and so the ceiling the frozen comparison is read against:
token classification for NER (each word is labelled on its first sub-word piece; the other pieces
are ignored by the loss, as in the BERT paper), sequence classification for text, and for a pair
of texts the encoder's own sequence-pair classification (the two texts go to the tokenizer as a
pair: ``[CLS] a [SEP] b [SEP]`` with segment ids for BERT, the model's own template elsewhere). AdamW with
linear warm-up and decay, gradient clipping, early stopping on the dev primary metric (ties broken
by dev loss), best weights kept, seeded (the head's initialisation, the batch order and dropout).

Sentences are given as pre-split words, like the frozen featurizer sees them, so both score the
same units. Pieces beyond ``max_length`` are cut: their words are predicted with the most frequent
training label (rare on sentence-level data; the count is returned in ``truncated_words``).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from trainers._config import TrainResult
from trainers._pair import pair_split_of
from trainers._scoring import TaskScoring, scoring_for
from trainers._system import peak_memory_mb, reproducible, resolve_device, start_memory_window

__all__ = ["FineTuneConfig", "FineTuner", "finetune_and_evaluate"]

_IGNORE = -100  # label of pieces the loss skips (not a word's first piece, specials, padding)


@dataclass
class FineTuneConfig:
    """Hyper-parameters of the fine-tuning loop: the usual BERT recipe, kept short for CPUs."""

    max_epochs: int = 10  # early stopping on dev (patience) usually ends it sooner
    patience: int = 1
    batch_size: int = 16
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_length: int = 128
    seed: int = 0
    device: str | None = None
    num_threads: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_epochs", "batch_size", "max_length"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.patience < 0 or not self.lr > 0:
            raise ValueError("patience must be >= 0 and lr positive")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Encoded:
    """One corpus as model inputs: piece ids, per-piece labels, and each word's first piece."""

    ids: list[list[int]]
    piece_labels: list[list[int]]  # NER only
    first_piece: list[np.ndarray]  # per item, per word: index of its first piece (-1: truncated away)
    targets: np.ndarray  # classification: label id per item
    type_ids: list[list[int]]  # pairs, where the tokenizer gives segment ids (BERT): 0 first text, 1 second


def _hub_kwargs(model: str) -> dict[str, Any]:
    return {"local_files_only": True} if Path(model).expanduser().is_dir() else {}


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """A new head is *meant* to be freshly initialised: the "newly initialized weights" notice is noise."""
    log = logging.getLogger("transformers")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


class FineTuner:
    """A tokenizer + encoder with a linear head for ``task`` over ``labels``; trains and predicts corpora."""

    def __init__(
        self,
        model: str,
        task: str,
        labels: Sequence[str],
        config: FineTuneConfig,
        scoring: TaskScoring | None = None,
    ) -> None:
        from transformers import (
            AutoModelForSequenceClassification,
            AutoModelForTokenClassification,
            AutoTokenizer,
        )

        self.task, self.labels, self.config = task, list(labels), config
        self.scoring = scoring_for(task, scoring)  # the caller's headline, else the task's default
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        kwargs = _hub_kwargs(model)
        tokenizer = AutoTokenizer.from_pretrained(model, **kwargs)
        if getattr(tokenizer, "add_prefix_space", None) is False:  # byte-level BPE: words need their space
            tokenizer = AutoTokenizer.from_pretrained(model, add_prefix_space=True, **kwargs)
        if tokenizer.pad_token is None:  # GPT-2 ships none; any id works under the attention mask
            tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
        self.tokenizer = tokenizer
        head = AutoModelForTokenClassification if task == "ner" else AutoModelForSequenceClassification
        with _quiet_transformers():
            self.model = head.from_pretrained(
                model,
                num_labels=len(self.labels),
                id2label=dict(enumerate(self.labels)),
                label2id=self.label_index,
                **kwargs,
            )
        self.model.config.pad_token_id = tokenizer.pad_token_id
        self.device = resolve_device(config.device)
        self.model.to(self.device)

    # -- inputs ---------------------------------------------------------------------------------

    def _tokenize(self, corpus: Any) -> tuple[Any, np.ndarray]:
        """Pieces of every item (truncated to ``max_length``) and the words of each pair's first text.

        A pair's texts go in as the tokenizer's sequence pair, so the encoder sees its own pair
        template; for other tasks the split is all zeros.
        """
        tokens = [list(t) if len(t) else [self.tokenizer.unk_token] for t in corpus.tokens]
        limit = {"truncation": True, "max_length": self.config.max_length, "is_split_into_words": True}
        if self.task != "pair":
            return self.tokenizer(tokens, **limit), np.zeros(len(tokens), dtype=np.int64)
        lengths = np.asarray([len(t) for t in corpus.tokens], dtype=np.int64)
        split = pair_split_of(corpus, lengths, "fine-tuning")
        first = [t[:k] for t, k in zip(tokens, split.tolist(), strict=True)]
        second = [t[k:] for t, k in zip(tokens, split.tolist(), strict=True)]
        return self.tokenizer(first, second, **limit), split

    def encode(self, corpus: Any) -> _Encoded:
        """Pieces of each item (truncated to ``max_length``), aligned to words with ``word_ids()``."""
        enc, split = self._tokenize(corpus)
        ids, piece_labels, firsts = [], [], []
        for i, words in enumerate(corpus.tokens):
            word_ids, sides = enc.word_ids(i), enc.sequence_ids(i)
            first = np.full(len(words), -1, dtype=np.int64)
            for pos, (w, side) in enumerate(zip(word_ids, sides, strict=True)):
                w = None if w is None else w + (int(split[i]) if side == 1 else 0)  # a pair's second text
                if w is not None and w < len(words) and first[w] < 0:
                    first[w] = pos
            ids.append(list(enc["input_ids"][i]))
            firsts.append(first)
            if self.task == "ner":
                row = [_IGNORE] * len(word_ids)
                for w, pos in enumerate(first):
                    if pos >= 0:
                        row[pos] = self.label_index.get(corpus.labels[i][w], _IGNORE)
                piece_labels.append(row)
        targets = np.asarray(
            [self.label_index.get(y, -1) for y in corpus.labels] if self.task != "ner" else [], dtype=np.int64
        )
        type_ids = [list(t) for t in enc["token_type_ids"]] if self._segments(enc) else []
        return _Encoded(ids, piece_labels, firsts, targets, type_ids)

    def _segments(self, enc: Any) -> bool:
        """Whether the model reads segment ids of a pair (BERT does; RoBERTa and DistilBERT have none)."""
        return self.task == "pair" and "token_type_ids" in enc

    def _batch(self, data: _Encoded, items: np.ndarray) -> dict[str, torch.Tensor]:
        """Padded tensors on the model's side of the tokenizer (XLNet pads left, most models right)."""
        longest = max(len(data.ids[i]) for i in items)
        left = self.tokenizer.padding_side == "left"
        ids = np.full((len(items), longest), self.tokenizer.pad_token_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        labels = np.full_like(ids, _IGNORE)
        types = np.full_like(ids, self.tokenizer.pad_token_type_id)
        for row, i in enumerate(items):
            n = len(data.ids[i])
            cols = slice(longest - n, longest) if left else slice(0, n)
            ids[row, cols], mask[row, cols] = data.ids[i], 1
            if self.task == "ner":
                labels[row, cols] = data.piece_labels[i]
            if data.type_ids:
                types[row, cols] = data.type_ids[i]
        batch = {"input_ids": ids, "attention_mask": mask}
        if data.type_ids:
            batch["token_type_ids"] = types
        batch["labels"] = labels if self.task == "ner" else data.targets[items]
        return {k: torch.from_numpy(np.asarray(v)).to(self.device) for k, v in batch.items()}

    def _offset(self, data: _Encoded, item: int, longest: int) -> int:
        return longest - len(data.ids[item]) if self.tokenizer.padding_side == "left" else 0

    # -- training and prediction ------------------------------------------------------------------

    def fit(self, train: Any, dev: Any, rng: np.random.Generator) -> tuple[float, list[float], int]:
        """Train with early stopping on dev; the best weights are kept.

        Returns (best dev score, dev history per epoch, optimizer steps per epoch).
        """
        c = self.config
        data, dev_data = self.encode(train), self.encode(dev)
        if self.task != "ner":
            keep = np.flatnonzero(data.targets >= 0)
        else:
            keep = np.arange(len(data.ids))
        steps_per_epoch = max(1, -(-len(keep) // c.batch_size))
        optimizer, schedule = self._optimizer(steps_per_epoch * c.max_epochs)
        best, best_loss, best_state = -1.0, float("inf"), copy.deepcopy(self.model.state_dict())
        history: list[float] = []
        dev_score = self.scoring.dev_scorer(dev.labels)
        for _epoch in range(c.max_epochs):
            self.model.train()
            for items in _length_batches(data, keep, c.batch_size, rng):
                loss = self.model(**self._batch(data, items)).loss
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad(set_to_none=True)
            predictions, _, dev_loss = self.predict_encoded(dev_data, dev)
            score = dev_score(predictions)
            history.append(score)
            if score > best or (score == best and dev_loss < best_loss):
                best, best_loss = score, dev_loss
                best_state = copy.deepcopy(self.model.state_dict())
            elif len(history) - 1 - int(np.argmax(history)) > c.patience:
                break
        self.model.load_state_dict(best_state)
        return best, history, steps_per_epoch

    def _optimizer(self, total_steps: int) -> tuple[torch.optim.Optimizer, Any]:
        c = self.config
        decay = [p for n, p in self.model.named_parameters() if p.ndim > 1 and "norm" not in n.lower()]
        rest = [p for n, p in self.model.named_parameters() if not (p.ndim > 1 and "norm" not in n.lower())]
        optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": c.weight_decay}, {"params": rest, "weight_decay": 0.0}],
            lr=c.lr,
        )
        warmup = max(1, int(c.warmup_ratio * total_steps))

        def factor(step: int) -> float:
            if step < warmup:
                return (step + 1) / warmup
            return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

        return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

    @torch.no_grad()
    def predict(self, corpus: Any) -> tuple[list[Any], list[Any]]:
        """Predictions and p(gold) per item (NER: per word), in corpus order."""
        predictions, gold_probs, _ = self.predict_encoded(self.encode(corpus), corpus)
        return predictions, gold_probs

    @torch.no_grad()
    def predict_encoded(self, data: _Encoded, corpus: Any) -> tuple[list[Any], list[Any], float]:
        self.model.eval()
        n = len(data.ids)
        predictions: list[Any] = [None] * n
        gold_probs: list[Any] = [None] * n
        total, weight = 0.0, 0
        order = np.argsort([len(x) for x in data.ids], kind="stable")
        for start in range(0, n, max(self.config.batch_size, 64)):
            items = order[start : start + max(self.config.batch_size, 64)]
            batch = self._batch(data, items)
            out = self.model(**{k: v for k, v in batch.items() if k != "labels"})
            probs = out.logits.float().softmax(dim=-1).cpu().numpy()
            losses = self._loss(out.logits, batch["labels"])
            total, weight = total + float(losses.sum()), weight + int(losses.numel())
            longest = batch["input_ids"].shape[1]
            for row, item in enumerate(items.tolist()):
                offset = self._offset(data, item, longest)
                predictions[item], gold_probs[item] = self._decode(probs[row], data, item, offset, corpus)
        return predictions, gold_probs, total / max(weight, 1)

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        flat = logits.reshape(-1, logits.shape[-1]).float()
        target = labels.reshape(-1)
        valid = target >= 0
        if not bool(valid.any()):
            return torch.zeros(0)
        return torch.nn.functional.cross_entropy(flat[valid], target[valid], reduction="none")

    def _decode(
        self, probs: np.ndarray, data: _Encoded, item: int, offset: int, corpus: Any
    ) -> tuple[Any, Any]:
        gold = corpus.labels[item]
        if self.task != "ner":
            best = int(probs.argmax())
            k = self.label_index.get(gold)
            return self.labels[best], float(probs[k]) if k is not None else 0.0
        fallback = self.label_index.get("O", 0)
        words, word_probs = [], []
        for w, pos in enumerate(data.first_piece[item]):
            p = probs[offset + pos] if pos >= 0 else None
            best = int(p.argmax()) if p is not None else fallback
            words.append(self.labels[best])
            k = self.label_index.get(gold[w]) if w < len(gold) else None
            word_probs.append(float(p[k]) if p is not None and k is not None else 0.0)
        return words, word_probs

    @property
    def n_params(self) -> int:
        return int(sum(p.numel() for p in self.model.parameters() if p.requires_grad))

    @property
    def weights_bytes(self) -> int:
        return int(sum(p.numel() * p.element_size() for p in self.model.parameters()))


def _length_batches(
    data: _Encoded, keep: np.ndarray, batch_size: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Shuffle, sort by length within chunks of 50 batches, cut, shuffle the batches (little padding)."""
    order = rng.permutation(keep)
    chunk = batch_size * 50
    lengths = np.asarray([len(x) for x in data.ids])
    batches: list[np.ndarray] = []
    for start in range(0, len(order), chunk):
        part = order[start : start + chunk]
        part = part[np.argsort(lengths[part], kind="stable")]
        batches.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


def _labels(*corpora: Any) -> list[str]:
    found: set[str] = set()
    for corpus in corpora:
        for label in corpus.labels:
            found.update(label if corpus.task == "ner" else [label])
    return sorted(found)


def finetune_and_evaluate(
    model: str,
    train: Any,
    dev: Any,
    evaluation: Any,
    config: FineTuneConfig | None = None,
    scoring: TaskScoring | None = None,
) -> TrainResult:
    """Fine-tune ``model`` on ``train``, early-stop on ``dev``, score on ``evaluation`` (a TrainResult).

    ``scoring``: the task's headline metric from the caller's task spec (default: the task's own).
    """
    config = config or FineTuneConfig()
    task = train.task
    scoring = scoring_for(task, scoring)
    labels = _labels(train, dev, evaluation)
    device = resolve_device(config.device)
    rng = np.random.default_rng(config.seed)
    with reproducible(config.seed, device, config.num_threads):
        baseline = start_memory_window(device)
        tuner = FineTuner(model, task, labels, config, scoring)
        started = time.perf_counter()
        dev_score, history, steps_per_epoch = tuner.fit(train, dev, rng)
        train_seconds = time.perf_counter() - started
        started = time.perf_counter()
        predictions, gold_probs = tuner.predict(evaluation)
        inference_seconds = time.perf_counter() - started
    primary = scoring.primary_metric
    scores = scoring.scores(evaluation.labels, predictions)
    return TrainResult(
        task=task,
        primary_metric=primary,
        score=float(scores[primary]),
        scores=scores,
        dev_score=float(dev_score),
        predictions=predictions,
        gold_probs=gold_probs,
        steps=len(history) * steps_per_epoch,
        best_step=(int(np.argmax(history)) + 1) * steps_per_epoch if history else 0,
        stopped_by=_stopped_by(history, config),
        eval_every=steps_per_epoch,
        epochs=float(len(history)),
        dev_history=history,
        dev_steps=[(i + 1) * steps_per_epoch for i in range(len(history))],
        train_seconds=train_seconds,
        inference_ms_per_item=1000.0 * inference_seconds / max(len(evaluation.labels), 1),
        n_params=tuner.n_params,
        device=str(device),
        peak_memory_mb=peak_memory_mb(device, baseline),
        labels=labels,
    )


def _stopped_by(history: list[float], config: FineTuneConfig) -> str:
    """ "ceiling" when all epochs ran and dev improved within the last ``patience`` + 1 of them."""
    if len(history) < config.max_epochs:
        return "patience"
    return "ceiling" if len(history) - 1 - int(np.argmax(history)) <= config.patience else "patience"
