"""ELMo-style scalar mix: a learned, softmax-weighted sum of an encoder's layers, times a scale.

Why: which layer of a frozen encoder carries the word information a task needs differs by model
and task (the last layer of a sentence-embedding model is a poor word feature; the BERT paper's
feature-based NER combined the last four). Peters et al. (2018) let the downstream model learn it:
``gamma * sum_l softmax(s)_l * h_l``. The mix is a preprocessing layer that turns the
layer-first ``(layers, …, dim)`` stack into ``(…, dim)`` before the *same* projection + BiLSTM/CNN every other
embedding feeds, so "same downstream model" still holds; it adds ``layers + 1`` parameters.

Each layer is first rescaled to the same mean vector norm on the training words (fixed constants,
not learned): layers differ several-fold in norm, and without this a weight would mix "how useful"
with "how large", so the logged weights would not say which layers the task used. The common norm
is the layers' average, so the mixed vector has the scale of a raw layer and the projection after it
learns at the pace it does for single-layer features (unit-norm inputs trained markedly worse).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["ScalarMix", "layer_norms"]


def layer_norms(stack: np.ndarray, max_rows: int = 4096) -> np.ndarray:
    """Mean L2 norm of each layer over (up to ``max_rows`` evenly spaced) rows of a ``(rows, layers, dim)`` stack."""
    n = len(stack)
    if n == 0:
        return np.ones(stack.shape[1], dtype=np.float32)
    rows = np.unique(np.linspace(0, n - 1, num=min(n, max_rows)).astype(np.int64))
    sample = np.asarray(stack[rows], dtype=np.float32)
    norms = np.linalg.norm(sample, axis=-1).mean(axis=0)
    return np.where(norms > 0, norms, 1.0).astype(np.float32)


class ScalarMix(nn.Module):
    """``gamma * sum_l softmax(s)_l * h_l * mean(norm) / norm_l`` over the layer axis (the first)."""

    def __init__(self, n_layers: int, norms: np.ndarray | None = None) -> None:
        super().__init__()
        if n_layers < 1:
            raise ValueError("a scalar mix needs at least one layer")
        self.logits = nn.Parameter(torch.zeros(n_layers))  # uniform weights at the start
        self.gamma = nn.Parameter(torch.ones(()))
        norms = np.ones(n_layers, dtype=np.float32) if norms is None else np.asarray(norms, np.float32)
        scale = (
            norms.mean() / norms
        )  # every layer at the layers' mean norm: the input keeps a raw layer's scale
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

    @property
    def n_layers(self) -> int:
        return int(self.logits.shape[0])

    def forward(self, stack: torch.Tensor) -> torch.Tensor:
        """``(layers, …, dim) -> (…, dim)``: layer-first, so the mix is one matrix-vector product."""
        with torch.autocast(device_type=stack.device.type, enabled=False):  # float32 under bf16 autocast
            weights = torch.softmax(self.logits, dim=0) * self.scale
            mixed = weights @ stack.reshape(stack.shape[0], -1)
            return self.gamma * mixed.reshape(stack.shape[1:])

    @torch.no_grad()
    def weights(self) -> list[float]:
        """The learned softmax weights, layer 0 (input embeddings) first: what the run logs."""
        return [float(w) for w in torch.softmax(self.logits, dim=0)]
