"""The downstream network of one task with its forward, loss, decoding and scoring.

One object for every task, so the training loop, the evaluation and the serving measurement read
the same code: a BiLSTM tagger (NER), a classifier (CNN / BiLSTM) or the pair model (that
classifier's encoder over each text, ``trainers._pair``) behind the same projection, with a
learned scalar mix in front when the features are a layer stack. A pair is scored like a text:
one label per item, accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from trainers._batches import Batch, Split
from trainers._classifier import make_classifier, make_encoder
from trainers._config import TrainConfig
from trainers._corpus import LabelledItems as Corpus
from trainers._features import TokenFeatures
from trainers._mix import ScalarMix, layer_norms
from trainers._pair import PairClassifier
from trainers._precision import autocast, resolve_precision
from trainers._scoring import TaskScoring, scoring_for
from trainers._tagger import BiLSTMTagger

__all__ = ["Outputs", "ServingModel", "TaskModel"]


@dataclass
class Outputs:
    predictions: list
    gold_probs: list
    loss: float


def _observed_transitions(train: Split, labels: list[str]) -> np.ndarray:
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


class TaskModel:
    """The network plus task-specific forward / loss / decode, so the loop is one for both tasks."""

    def __init__(
        self,
        task: str,
        labels: list[str],
        dim: int,
        config: TrainConfig,
        train: Split,
        scoring: TaskScoring | None = None,
    ):
        self.task = task
        self.scoring = scoring_for(task, scoring)  # the caller's headline, else the task's default
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
        elif task == "pair":
            encoder = make_encoder(
                config.classifier, dim, config.projection, config.hidden, config.dropout, mix=self.mix
            )
            self.net = PairClassifier(encoder, len(labels), config.hidden, config.dropout)
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

    def forward(self, batch: Batch) -> torch.Tensor:
        """Tag scores (NER) or logits, computed in the config's precision and returned as float32."""
        with autocast(self.precision, batch.vectors.device):
            if self.task == "ner":
                out = self.net.emissions(batch.vectors, batch.casing, batch.mask)
            else:
                out = self.net(batch.vectors, batch.mask)
        return out.float()

    def loss(self, batch: Batch) -> torch.Tensor:
        scores = self.forward(batch)
        if self.task == "ner":
            return self.net.loss(scores, batch.targets, batch.mask)
        return nn.functional.cross_entropy(scores, batch.targets)

    @torch.no_grad()
    def predict(
        self, split: Split, batch_size: int, device: torch.device, with_probs: bool = True
    ) -> Outputs:
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
        return Outputs(predictions, gold_probs, total_loss / max(total_weight, 1))

    def score(self, corpus: Corpus, predictions: list) -> dict[str, float]:
        return self.scoring.scores(corpus.labels, predictions)

    def primary_scorer(self, corpus: Corpus) -> Callable[[list], float]:
        """The headline early stopping reads after every epoch (``TaskScoring.dev_scorer``)."""
        return self.scoring.dev_scorer(corpus.labels)


class ServingModel:
    """A freshly initialised downstream model that predicts batches the way a service would.

    Serving costs are measured on it (``advisor.costs``): time and memory do not depend on the weight
    values, so no training is needed. ``probe`` (a few items with their features) sizes the model.
    A pair batch is served like any other, ``predict(features, corpus)``: the corpus's ``pair_split``
    says where each item's first text ends.
    """

    def __init__(
        self,
        labels: list[str],
        dim: int,
        config: TrainConfig,
        probe: tuple[TokenFeatures, Corpus],
        device: str,
    ):
        feats, corpus = probe
        self.labels = labels
        self.device = torch.device(device)
        self._label_index = {label: i for i, label in enumerate(labels)}
        self._casing = corpus.task == "ner" and config.casing_features
        self.model = TaskModel(corpus.task, labels, dim, config, self._split(feats, corpus))
        self.model.net.to(self.device)
        self.model.net.eval()

    def _split(self, feats: TokenFeatures, corpus: Corpus) -> Split:
        return Split(feats, corpus, self._label_index, self._casing)

    @property
    def param_bytes(self) -> int:
        return int(sum(p.numel() * p.element_size() for p in self.model.net.parameters()))

    def predict(self, feats: TokenFeatures, corpus: Corpus) -> list:
        """Predictions for one batch of items (all at once); GPU work finished, not queued."""
        out = self.model.predict(self._split(feats, corpus), max(len(corpus), 1), self.device)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return out.predictions
