"""Word-level feature matrices: what every embedding family hands the trainers (``advisor.features`` re-exports them).

All embeddings (random, static, contextual) hand the trainers the same thing: one row per word,
all sentences concatenated, with ``offsets`` marking where each sentence starts. The matrix may be
a read-only ``np.memmap`` in float16 (the contextual feature cache) or an in-memory float32 array;
trainers gather rows per batch, so nothing forces the whole matrix into RAM.

A contextual encoder read as a learned mix of its layers hands over a *stack*: ``vectors`` is then
``(n_words, n_layers, dim)`` and the downstream model reduces it to ``dim`` with a scalar mix
(``trainers._mix``). Random and static features stay 2-D, so the model after the mix is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RowView", "TokenFeatures", "offsets_from_lengths"]


def offsets_from_lengths(lengths: Sequence[int] | np.ndarray) -> np.ndarray:
    """Start offsets of items of the given lengths, with the total appended (``len(lengths) + 1`` values)."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


class RowView:
    """Rows ``base[row_of[i]]`` of a shared array, gathered when indexed: ``base[row_of]`` without the copy.

    A cell trains on a subset of the train split, and a random embedding's words are rows of its
    table; copying those rows (a full-size layer stack of the CoNLL-size proxy is ~1.5 GB of
    float16, its 800-d random features ~0.9 GB) cost every cell seconds and its own memory, while
    the batches gather their rows anyway. Indexing gives exactly the rows a copy would hold.
    """

    def __init__(self, base: np.ndarray, row_of: np.ndarray):
        self.base = base
        self.row_of = row_of
        self.shape = (len(row_of), *base.shape[1:])
        self.ndim = base.ndim
        self.dtype = base.dtype

    def __len__(self) -> int:
        return len(self.row_of)

    def __getitem__(self, index: np.ndarray) -> np.ndarray:
        return self.base[self.row_of[index]]


@dataclass(frozen=True)
class TokenFeatures:
    """``vectors[offsets[i]:offsets[i+1]]`` are the word vectors of item ``i``."""

    vectors: np.ndarray
    offsets: np.ndarray

    def __post_init__(self) -> None:
        if self.offsets.ndim != 1 or self.offsets[0] != 0 or self.offsets[-1] != len(self.vectors):
            raise ValueError("offsets must start at 0 and end at len(vectors)")
        if self.vectors.ndim not in (2, 3):
            raise ValueError("vectors must be (words, dim) or (words, layers, dim)")

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def dim(self) -> int:
        """Width of one word vector (of one layer, for a layer stack)."""
        return int(self.vectors.shape[-1])

    @property
    def n_layers(self) -> int:
        """Layers per word: 1 for plain features, the stack height for a contextual layer stack."""
        return int(self.vectors.shape[1]) if self.vectors.ndim == 3 else 1

    def layer(self, index: int) -> TokenFeatures:
        """One layer of a stack as 2-D features: a strided view, so a memmap stays on disk."""
        if self.vectors.ndim != 3:
            raise ValueError("layer() needs a layer stack")
        return TokenFeatures(vectors=self.vectors[:, index, :], offsets=self.offsets)

    def item(self, i: int) -> np.ndarray:
        return self.vectors[self.offsets[i] : self.offsets[i + 1]]

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def subset(self, indices: Sequence[int] | np.ndarray) -> TokenFeatures:
        """Features of the chosen items, copied into memory as float32-compatible rows."""
        idx = np.asarray(indices, dtype=np.int64)
        offsets = offsets_from_lengths(self.lengths()[idx])
        rows = (
            np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in idx])
            if len(idx)
            else np.zeros(0, dtype=np.int64)
        )
        return TokenFeatures(vectors=np.asarray(self.vectors[rows]), offsets=offsets)

    @classmethod
    def from_list(cls, arrays: Sequence[np.ndarray], dim: int | None = None) -> TokenFeatures:
        offsets = offsets_from_lengths([len(a) for a in arrays])
        if arrays:
            vectors = np.concatenate(arrays, axis=0)
        else:
            vectors = np.zeros((0, dim or 0), dtype=np.float32)
        return cls(vectors=vectors, offsets=offsets)
