"""The sentence-pair model: one sentence encoder over each text, InferSent's features, a small MLP.

Why this head (InferSent, Conneau et al. 2017; SentEval): every family (random, static, distilled,
contextual) is read by the *same* downstream model, as for single texts. The classifier's encoder
(CNN or BiLSTM + max-pool, behind the same projection and, for a layer stack, the same scalar mix)
runs over each text with shared weights and gives ``u`` and ``v``; ``[u; v; |u - v|; u * v]`` holds
both texts and how they compare, and an MLP with one hidden layer classifies it. A contextual
family that read the pair jointly has already let each word see the other text; the head is the same.

A pair item's feature rows are its first text's words, then its second's; ``pair_split[i]`` (from
the corpus) says where the first ends. A batch of ``B`` pairs is ``2 B`` padded sequences, the
first texts in rows ``0 .. B-1`` and the second texts in rows ``B .. 2B-1`` (:func:`side_segments`),
so the encoder runs once over both sides.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from trainers._errors import T206, T207
from trainers._mix import ScalarMix

__all__ = ["PairClassifier", "pair_split_of", "side_segments"]


def pair_split_of(corpus: Any, lengths: np.ndarray, name: str) -> np.ndarray:
    """The words of each item's first text, checked: one per item, both texts at least one word.

    Read with ``getattr``: the corpus protocol's ``pair_split`` may be absent on a non-pair object.
    """
    split = np.asarray(getattr(corpus, "pair_split", ()), dtype=np.int64).reshape(-1)
    source = getattr(corpus, "source", None)
    if len(split) != len(lengths):
        raise T206(name=name, n_splits=len(split), n_items=len(lengths), file=source)
    bad = np.flatnonzero((split < 1) | (split >= lengths))
    if len(bad):
        i = int(bad[0])
        lines = getattr(corpus, "line_numbers", ())
        line = int(lines[i]) if i < len(lines) else None
        raise T207(name=name, i=i, n_tokens=int(lengths[i]), split=int(split[i]), file=source, line=line)
    return split


def side_segments(
    starts: np.ndarray, lengths: np.ndarray, split: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(first row, length) of each side of the items: every first text, then every second text."""
    return np.concatenate([starts, starts + split]), np.concatenate([split, lengths - split])


class PairClassifier(nn.Module):
    """``encoder`` over both texts (shared weights) -> ``[u; v; |u - v|; u * v]`` -> MLP -> labels."""

    def __init__(self, encoder: nn.Module, num_labels: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.hidden = nn.Linear(4 * encoder.out_dim, hidden)
        self.output = nn.Linear(hidden, num_labels)

    @property
    def mix(self) -> ScalarMix | None:
        return self.encoder.mix

    def forward(self, vectors: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits of ``B`` pairs from ``2 B`` sequences: first texts, then second texts (module docstring)."""
        pooled = self.encoder(vectors, mask)
        u, v = pooled[: len(pooled) // 2], pooled[len(pooled) // 2 :]
        features = torch.cat([u, v, (u - v).abs(), u * v], dim=1)
        hidden = torch.relu(self.hidden(self.dropout(features)))
        return self.output(self.dropout(hidden))
