"""Fixed random circulant embeddings, the cheapest baseline of Arora et al. (ACL 2020).

The table is built from ``d x d`` circulant blocks: block ``b`` is ``C_b[i, j] = g_b[(i - j) mod d]``
for one Gaussian vector ``g_b``, with its columns multiplied by random signs ``s_b[j]``. All rows
of a block share the norm ``|g_b|``; one global factor then sets the mean row norm to
``target_norm`` (by default the mean norm of the static vectors it is compared with), so the
downstream model sees inputs of the same scale whichever embedding it gets. Never trained.

Seed: ``advisor run`` draws one table per training seed, from the cell seed itself (``seed`` =
the cell's seed), so the spread over seeds includes the draw of the random table, the variance the
random baseline is meant to carry; the same seed always gives the same table.

Vocabulary: the exact strings of the training words (case kept, like the tokens the contextual
encoder reads; pass ``lowercase=True`` to fold case), sorted so rows do not depend on corpus order,
plus one unknown-word vector at row 0 for every word not seen in training.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from advisor._error_codes import E211
from advisor.data import Corpus
from advisor.embeddings._base import Coverage, Embedding, ParamValue, as_flag
from advisor.embeddings._static import load_vectors
from advisor.errors import ConfigError
from advisor.features import RowView, TokenFeatures, offsets_from_lengths
from advisor.registry import embeddings

__all__ = ["UNKNOWN_ROW", "RandomEmbedding", "circulant_table"]

#: Row of the shared unknown-word vector.
UNKNOWN_ROW = 0


def circulant_table(
    n_rows: int, dim: int, seed: int, target_norm: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(matrix, generators, signs)``: ``matrix[b*dim + i, j] == generators[b, (i - j) % dim] * signs[b, j]``.

    ``generators`` already include the global rescaling, so the identity holds exactly. Each block
    draws its own generator and signs from one seeded stream, so the first blocks are the same
    whatever the vocabulary size.
    """
    if n_rows < 1 or dim < 1:
        raise ConfigError(f"random embedding needs dim >= 1 and a vocabulary, got dim={dim}, rows={n_rows}")
    n_blocks = math.ceil(n_rows / dim)
    rng = np.random.default_rng(seed)
    generators = np.empty((n_blocks, dim), dtype=np.float64)
    signs = np.empty((n_blocks, dim), dtype=np.float64)
    for b in range(n_blocks):
        generators[b] = rng.standard_normal(dim)
        signs[b] = rng.choice((-1.0, 1.0), size=dim)
    # Rows of the (possibly truncated) last block count once each in the mean norm.
    rows_per_block = np.full(n_blocks, dim)
    rows_per_block[-1] = n_rows - dim * (n_blocks - 1)
    mean_norm = float((np.linalg.norm(generators, axis=1) * rows_per_block).sum() / n_rows)
    generators *= target_norm / mean_norm
    shift = (np.arange(dim)[:, None] - np.arange(dim)[None, :]) % dim
    matrix = np.empty((n_rows, dim), dtype=np.float32)
    for b in range(n_blocks):
        top = b * dim
        take = rows_per_block[b]
        matrix[top : top + take] = (generators[b][shift[:take]] * signs[b][None, :]).astype(np.float32)
    return matrix, generators.astype(np.float32), signs.astype(np.int8)


@embeddings.register("random", family="random")
class RandomEmbedding(Embedding):
    """One fixed random circulant vector per training word, one shared unknown vector."""

    name = "random"
    family = "random"

    def __init__(
        self,
        *,
        dim: int = 800,
        seed: int = 0,
        target_norm: float | None = None,
        static_path: str | Path | None = None,
        lowercase: bool = False,
        cache_dir: str | Path | None = None,
    ) -> None:
        super().__init__()
        if int(dim) < 1:
            raise E211(option="random embedding dim", requirement=f"be >= 1, got {dim}")
        if target_norm is not None and not float(target_norm) > 0:
            raise E211(option="target_norm", requirement=f"be > 0, got {target_norm}")
        self._dim = int(dim)
        self.seed = int(seed)
        self._target_norm = None if target_norm is None else float(target_norm)
        self.static_path = static_path
        self.lowercase = as_flag("lowercase", lowercase)
        self.cache_dir = cache_dir
        self.coverage = Coverage()
        self.vocabulary: dict[str, int] = {}
        self.matrix: np.ndarray | None = None
        self.generators: np.ndarray | None = None
        self.signs: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def target_norm(self) -> float:
        """The requested mean row norm; defaults to that of the static vectors in use (loaded lazily)."""
        if self._target_norm is None:
            self._target_norm = load_vectors(self.static_path, self.cache_dir).mean_norm
        return self._target_norm

    @property
    def storage_bytes(self) -> int:
        return 0 if self.matrix is None else int(self.matrix.nbytes)

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def fit(self, train: Corpus) -> None:
        words = sorted({self._key(tok) for sent in train.tokens for tok in sent})
        self.vocabulary = {word: row for row, word in enumerate(words, start=UNKNOWN_ROW + 1)}
        self.matrix, self.generators, self.signs = circulant_table(
            len(words) + 1, self._dim, self.seed, self.target_norm
        )

    def _rows(self, words: list[str]) -> np.ndarray:
        if self.matrix is None:
            raise RuntimeError("fit the random embedding on the training split before featurizing")
        keys = (self.vocabulary.get(self._key(w), UNKNOWN_ROW) for w in words)
        return np.fromiter(keys, dtype=np.int64, count=len(words))

    def featurize(self, corpus: Corpus) -> TokenFeatures:
        start = time.perf_counter()
        words = [tok for sent in corpus.tokens for tok in sent]
        rows = self._rows(words)
        self.coverage.update(words, (rows != UNKNOWN_ROW).tolist())
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        vectors = self.matrix[rows] if len(rows) else np.zeros((0, self._dim), dtype=np.float32)
        self.last_cache_hit = False
        self.last_featurize_seconds = time.perf_counter() - start
        return TokenFeatures(vectors=vectors, offsets=offsets)

    def table_view(self, corpus: Corpus) -> TokenFeatures:
        """The rows :meth:`featurize` returns, as a view over the table (no copy, coverage untouched).

        What a training cell reads: its batches gather the rows anyway, and the copy of a
        CoNLL-size train split at 800 dimensions is ~0.9 GB per cell.
        """
        rows = self._rows([tok for sent in corpus.tokens for tok in sent])
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        return TokenFeatures(vectors=RowView(self.matrix, rows), offsets=offsets)  # type: ignore[arg-type]

    def describe(self) -> dict[str, ParamValue]:
        return {
            "family": self.family,
            "dim": self._dim,
            "seed": self.seed,
            "target_norm": self.target_norm,
            "lowercase": int(self.lowercase),
            "vocab_size": len(self.vocabulary),
            "construction": "circulant blocks, random column signs",
            **self.coverage.as_params(),
        }
