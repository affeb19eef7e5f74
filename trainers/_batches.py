"""Frozen features of one split cut into padded, length-bucketed tensor batches on demand.

Rows are gathered per batch (also from a float16 memmap) and cast into one reused float32 block,
never all at once; a layer stack comes layer-first, the layout the scalar mix reads fastest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from trainers._corpus import LabelledItems as Corpus
from trainers._features import RowView, TokenFeatures, offsets_from_lengths
from trainers._pair import pair_split_of, side_segments
from trainers._tagger import casing_ids

__all__ = ["Batch", "Split", "feature_view", "label_set"]

_CHUNK_BATCHES = 50  # batches per length-sorting chunk: enough to bucket, few enough to stay random


def feature_view(feats: TokenFeatures, items: np.ndarray) -> TokenFeatures:
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
class Batch:
    """Padded inputs of ``items``; a pair batch's ``vectors``/``mask`` hold each first text, then each second."""

    items: np.ndarray
    vectors: torch.Tensor
    mask: torch.Tensor
    casing: torch.Tensor | None
    targets: torch.Tensor


class Split:
    """Features + label ids of one split, cut into padded tensor batches on demand.

    ``name`` names the split in errors (a pair corpus's splits are checked here, ``trainers._pair``).
    """

    def __init__(
        self,
        feats: TokenFeatures,
        corpus: Corpus,
        label_index: dict[str, int],
        casing: bool,
        name: str = "served",
    ):
        self.feats = feats
        self.corpus = corpus
        self.task = corpus.task
        self.lengths = feats.lengths().astype(np.int64)
        self.pair_split = pair_split_of(corpus, self.lengths, name) if self.task == "pair" else None
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

    def _segments(self, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(first row, length) of each padded sequence: the items, or both sides of pair items."""
        starts, lengths = self.feats.offsets[items], self.lengths[items]
        if self.pair_split is None:
            return starts, lengths
        return side_segments(starts, lengths, self.pair_split[items])

    def batch(self, items: np.ndarray, device: torch.device) -> Batch:
        starts, lengths = self._segments(items)
        n_steps = max(int(lengths.max()), 1)
        steps = np.arange(n_steps)
        real = steps[None, :] < lengths[:, None]
        rows = np.where(real, starts[:, None] + steps[None, :], 0)
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
        return Batch(
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


def label_set(*corpora: Corpus) -> list[str]:
    """Every label of the corpora, sorted: the model's output classes, the same for train and serving."""
    labels: set[str] = set()
    for corpus in corpora:
        labels.update(corpus.label_counts())
    return sorted(labels)
