"""Static word vectors distilled from the contextual encoder in use: as cheap to serve as GloVe.

Two recipes, one space:

- **In-corpus words** (Ethayarajh 2019, *How Contextual are Contextualized Word Representations?*):
  a training word seen at least ``min_count`` times gets the first principal component of its
  occurrence vectors at one layer (uncentred, as the MEV of :mod:`advisor.contextuality`), its sign
  aligned to the word's mean vector and its length the mean's projection on it. The occurrence
  vectors are read from the all-layer feature cache that the contextual family fills anyway, so
  this costs no forward pass when ``contextual`` ran in the same analysis.
- **Everything else** (rare and unseen words) falls back to a model2vec vector: every tokenizer
  vocabulary entry passes through the encoder once (``prefix + piece + suffix``), the vectors are
  PCA-rotated and re-weighted by Zipf/SIF (model2vec's ``compute_weights``: weight
  ``a / (a + p(rank))`` with ranks taken from the token ids), and a word's vector is the mean of its
  pieces' vectors. The table is saved in model2vec's format and served by its ``StaticModel``.

Why we compute the model2vec vectors ourselves instead of calling ``model2vec.distill``: its
``distill`` extra pins ``transformers < 5.4`` (and pulls skeletoken), while this project runs
transformers 5.x beyond that; only the base package (``StaticModel``, no transformers pin) is a
dependency. Two deliberate differences from model2vec's defaults, so that both recipes live in one
space: the fallback reads the same layer as the principal components (model2vec reads the last)
and takes the piece's own position (model2vec mean-pools with [CLS]/[SEP]); the PC vectors then go
through the same centring, rotation and (piece-averaged) SIF weight. ``pca_dims="auto"`` keeps
the full width (model2vec's "auto": rotate, do not reduce), so nothing is lost against the encoder.

Why layer 1 by default: Ethayarajh found static vectors from lower layers best (the first layer
of BERT, ELMo and GPT-2 beat GloVe and FastText on most word benchmarks), because upper layers are
more context-specific and a single vector explains less of their variance. The packaged MiniLM is a
sentence-embedding model whose last layer is tuned for pooled sentences, which argues the same way.

The fallback table is distilled once per (encoder weights, layer, PCA, SIF, dtype) and cached on
disk under the cache root (``model2vec-<key>/``); a second fit does no forward pass at all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from advisor._error_codes import E231, E241, E242, E243
from advisor.data import Corpus
from advisor.embeddings._base import Coverage, Embedding, ParamValue
from advisor.embeddings._contextual import ContextualEmbedding
from advisor.embeddings._layer_choice import parse_layer
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.registry import embeddings

__all__ = ["DEFAULT_DISTILL_LAYER", "DistilledEmbedding", "Model2VecTable", "distil_model2vec"]

#: Layer the vectors are distilled from (0 = the input embeddings); see the module docstring.
DEFAULT_DISTILL_LAYER = 1
_FORMAT = 1
_VOCAB_BATCH = 512  # vocabulary entries per forward pass: 3-piece inputs, so batches can be large
_TRANSFORM = "advisor_transform.npz"  # PCA mean and components, SIF weights: maps PC vectors alike


class Model2VecTable:
    """A model2vec ``StaticModel`` plus the transform that maps encoder vectors into its space."""

    def __init__(self, directory: Path) -> None:
        from model2vec import StaticModel

        self.directory = directory
        self.model = StaticModel.from_pretrained(directory, normalize=False, force_download=False)
        with np.load(directory / _TRANSFORM) as data:
            self.mean = data["mean"]
            self.components = data["components"]
            self.sif = data["sif"]

    @property
    def dim(self) -> int:
        return int(self.model.dim)

    @property
    def nbytes(self) -> int:
        return int(np.asarray(self.model.embedding).nbytes)

    def piece_ids(self, words: list[str]) -> list[list[int]]:
        """Piece ids of each word as the static model tokenizes it (unknown pieces dropped)."""
        return self.model.tokenize(words)

    def encode(self, words: list[str]) -> np.ndarray:
        """Mean of each word's pieces' vectors (zeros for a word without known pieces), float32."""
        if not words:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self.model.encode(words, use_multiprocessing=False, max_length=None, normalize=False)
        return np.asarray(out, dtype=np.float32).reshape(len(words), self.dim)

    def project(self, vectors: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Encoder-space vectors into the table's space: centre, rotate, SIF-weight."""
        return ((vectors - self.mean) @ self.components.T) * weights[:, None]


def _pca(vectors: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and the top ``dims`` principal axes, each signed so its largest score is positive (as model2vec)."""
    mean = vectors.mean(axis=0)
    centred = vectors - mean
    _, eigvecs = np.linalg.eigh(centred.T @ centred / max(len(vectors) - 1, 1))
    components = eigvecs[:, ::-1][:, :dims].T.copy()
    scores = centred @ components.T
    peak = np.argmax(np.abs(scores), axis=0)
    signs = np.sign(scores[peak, np.arange(scores.shape[1])])
    signs[signs == 0] = 1.0
    return mean, components * signs[:, None]


def sif_weights(n: int, coefficient: float) -> np.ndarray:
    """model2vec's Zipf/SIF weights: rank r (token id order) has p ∝ 1/(r+2), weight a / (a + p)."""
    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    return coefficient / (coefficient + proba)


def _vocabulary_states(encoder: ContextualEmbedding, layer: int) -> np.ndarray:
    """Each vocabulary entry alone through the encoder: its own position's state at ``layer``."""
    import torch

    vocab = encoder.tokenizer.backend_tokenizer.get_vocab(with_added_tokens=True)
    n = max(vocab.values()) + 1  # ids, not entries: a vocabulary with a repeated piece has holes
    limit = int(getattr(encoder.config, "vocab_size", n) or n)
    if n > limit:
        raise E243(model=encoder.model_ref, top=n - 1, limit=limit)
    prefix, suffix = encoder._specials
    width = len(prefix) + 1 + len(suffix)
    out = np.zeros((n, encoder.dim), dtype=np.float32)
    model = encoder.model
    with torch.inference_mode():
        for start in range(0, n, _VOCAB_BATCH):
            ids = np.arange(start, min(start + _VOCAB_BATCH, n), dtype=np.int64)
            batch = np.empty((len(ids), width), dtype=np.int64)
            batch[:, : len(prefix)] = prefix
            batch[:, len(prefix)] = ids
            batch[:, len(prefix) + 1 :] = suffix
            mask = torch.ones(batch.shape, dtype=torch.int64)
            hidden = encoder._hidden(model, torch.from_numpy(batch), mask, [layer])[0]
            out[start : start + len(ids)] = hidden[:, len(prefix)].float().cpu().numpy()
    return np.nan_to_num(out)


def distil_model2vec(
    encoder: ContextualEmbedding, layer: int, pca_dims: int, sif_coefficient: float, directory: Path
) -> Model2VecTable:
    """Distil the fallback table (see the module docstring) and save it in model2vec's format."""
    from model2vec import StaticModel

    states = _vocabulary_states(encoder, layer)
    mean, components = _pca(states, pca_dims)
    weights = sif_weights(len(states), sif_coefficient)
    vectors = ((states - mean) @ components.T) * weights[:, None]
    config = {
        "model_type": "model2vec",
        "architectures": ["StaticModel"],
        "tokenizer_name": encoder.model_ref,
        "apply_pca": pca_dims,
        "sif_coefficient": sif_coefficient,
        "hidden_dim": int(vectors.shape[1]),
        "seq_length": 1000000,
        "normalize": False,
        "pooling": "token",
        "advisor_layer": layer,
        "advisor_model_id": encoder.model_id,
    }
    n_entries = len(encoder.tokenizer.backend_tokenizer.get_vocab(with_added_tokens=True))
    static = StaticModel(
        vectors=vectors.astype(np.float16),
        # rows are indexed by token id; an identity mapping covers ids no entry names (repeated pieces)
        token_mapping=None if n_entries == len(vectors) else np.arange(len(vectors)),
        tokenizer=encoder.tokenizer.backend_tokenizer,
        config=config,
        normalize=False,
        base_model_name=Path(encoder.model_ref).name,
    )
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{directory.name}-", dir=directory.parent))
    try:
        static.save_pretrained(tmp)
        np.savez(tmp / _TRANSFORM, mean=mean, components=components, sif=weights)
        try:
            os.rename(tmp, directory)
        except OSError:  # a concurrent run saved the same table first: keep theirs
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Model2VecTable(directory)


def principal_vectors(
    words: list[str], vectors: np.ndarray, min_count: int, max_occurrences: int
) -> tuple[list[str], np.ndarray]:
    """Words seen ``min_count``+ times and their sign-aligned first principal component, scaled.

    ``vectors`` holds one row per entry of ``words`` (occurrences in corpus order). The component
    is the top right-singular vector of the uncentred occurrence matrix, oriented so its dot product
    with the mean is positive and scaled to that dot product (the mean's length along it). A word
    with more than ``max_occurrences`` occurrences uses an evenly spaced sample of them.
    """
    codes, inverse, counts = np.unique(
        np.asarray(words, dtype=object), return_inverse=True, return_counts=True
    )
    order = np.argsort(inverse, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    kept = np.flatnonzero(counts >= min_count)
    out = np.zeros((len(kept), vectors.shape[1]), dtype=np.float32)
    with threadpool_limits(1):  # thousands of tiny products: BLAS threads only add overhead
        _fill_principal(out, kept, order, starts, vectors, max_occurrences)
    return [str(codes[c]) for c in kept], out


def _fill_principal(
    out: np.ndarray,
    kept: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    vectors: np.ndarray,
    max_occurrences: int,
) -> None:
    """Row ``i`` of ``out``: the scaled, mean-aligned component of word ``kept[i]``'s occurrences."""
    for row, code in enumerate(kept):
        rows = order[starts[code] : starts[code + 1]]
        if len(rows) > max_occurrences:
            rows = rows[np.linspace(0, len(rows) - 1, max_occurrences).astype(np.int64)]
        block = np.asarray(vectors[np.sort(rows)], dtype=np.float64)
        first = top_singular_vector(block)
        along = float(block.mean(axis=0) @ first)
        out[row] = first * along  # the sign flips with ``along``: always aligned to the mean


def top_singular_vector(block: np.ndarray) -> np.ndarray:
    """First right-singular vector of ``block`` (rows = occurrences), from the smaller Gram matrix.

    Why not ``np.linalg.svd``: a full SVD per word cost 0.2 s on average on WNUT-17 (1,381 words,
    290 s, most of it multi-threaded BLAS overhead on tiny matrices); one small symmetric
    eigendecomposition gives the same vector (up to sign) in well under a millisecond for most words.
    """
    if len(block) <= block.shape[1]:
        _, vecs = np.linalg.eigh(block @ block.T)
        first = block.T @ vecs[:, -1]
    else:
        _, vecs = np.linalg.eigh(block.T @ block)
        first = vecs[:, -1]
    norm = float(np.linalg.norm(first))
    return first / norm if norm > 0 else first


@embeddings.register("distilled", family="distilled")
class DistilledEmbedding(Embedding):
    """Per-word principal components of the encoder's cached occurrences, model2vec for the rest."""

    name = "distilled"
    family = "distilled"

    def __init__(
        self,
        *,
        model: str | Path | None = None,
        revision: str | None = None,
        layer: str | int = DEFAULT_DISTILL_LAYER,
        pooling: str = "mean",
        min_count: int = 5,
        max_occurrences: int = 1000,
        pca_dims: str | int = "auto",
        sif_coefficient: float = 1e-4,
        batch_size: int = 64,
        device: str = "auto",
        cache_dir: str | Path | None = None,
        dtype: str = "float32",
        pair_encoding: str | None = None,
    ) -> None:
        super().__init__()
        self.encoder = ContextualEmbedding(  # a pair task reads its pairs as contextual does: its cache
            model=model,
            revision=revision,
            layer="mix",
            pooling=pooling,
            batch_size=batch_size,
            device=device,
            cache_dir=cache_dir,
            dtype=dtype,
            pair_encoding=pair_encoding,
        )
        self.layer = parse_distill_layer(layer, self.encoder.n_layers)
        self.min_count = _positive_int(min_count, "min_count")
        self.max_occurrences = _positive_int(max_occurrences, "max_occurrences")
        self.pca_dims = self._parse_pca_dims(pca_dims)
        if not 0 < float(sif_coefficient) < 1:
            raise E242(name="sif_coefficient", requirement=f"lie in (0, 1), got {sif_coefficient}")
        self.sif_coefficient = float(sif_coefficient)
        self.coverage = Coverage()
        self.fallback: Model2VecTable | None = None
        self.index: dict[str, int] = {}
        self.vectors: np.ndarray | None = None
        self.fallback_cache_hit = False

    def _parse_pca_dims(self, value: str | int) -> int:
        if str(value).strip().lower() == "auto":
            return self.encoder.dim
        try:
            dims = int(value)
        except (TypeError, ValueError):
            dims = 0
        if not 1 <= dims <= self.encoder.dim:
            raise E242(
                name="pca_dims",
                requirement=f"be 'auto' or an integer from 1 to {self.encoder.dim}, got {value!r}",
            )
        return dims

    @property
    def dim(self) -> int:
        return self.pca_dims

    @property
    def storage_bytes(self) -> int:
        """What a server ships: the in-corpus table and the model2vec table, both float16."""
        table = 0 if self.vectors is None else int(self.vectors.nbytes)
        return table + (self.fallback.nbytes if self.fallback is not None else 0)

    def fallback_dir(self) -> Path:
        key = self.encoder.cache.key(
            kind="model2vec",
            format=_FORMAT,
            model=self.encoder.model_id,
            layer=self.layer,
            pca_dims=self.pca_dims,
            sif=self.sif_coefficient,
            dtype=self.encoder.dtype,
        )
        return self.encoder.cache.root / f"model2vec-{key}"

    def load_fallback(self) -> Model2VecTable:
        """The model2vec table from disk, distilled (one forward pass per vocabulary batch) if absent."""
        if self.fallback is None:
            directory = self.fallback_dir()
            self.fallback_cache_hit = (directory / _TRANSFORM).is_file()
            if self.fallback_cache_hit:
                self.fallback = Model2VecTable(directory)
            else:
                self.fallback = distil_model2vec(
                    self.encoder, self.layer, self.pca_dims, self.sif_coefficient, directory
                )
        return self.fallback

    def fit(self, train: Corpus) -> None:
        """Principal components of the training words at ``layer``, from the all-layer feature cache."""
        fallback = self.load_fallback()
        stack = self.encoder.featurize_layers(train)
        self.last_cache_hit = self.encoder.last_cache_hit
        words = [tok for sent in train.tokens for tok in sent]
        kept, vectors = principal_vectors(
            words, stack.layer(self.layer).vectors, self.min_count, self.max_occurrences
        )
        weights = np.array([_mean_weight(fallback.sif, ids) for ids in fallback.piece_ids(kept)])
        projected = fallback.project(vectors, weights) if kept else np.zeros((0, self.dim))
        self.index = {word: row for row, word in enumerate(kept)}
        self.vectors = projected.astype(np.float16)

    def featurize(self, corpus: Corpus) -> TokenFeatures:
        """A table lookup per word; rare and unseen words through the model2vec table (no encoder)."""
        if self.vectors is None or self.fallback is None:
            raise RuntimeError("fit the distilled embedding on the training split before featurizing")
        start = time.perf_counter()
        words = [tok for sent in corpus.tokens for tok in sent]
        rows = np.fromiter((self.index.get(w, -1) for w in words), dtype=np.int64, count=len(words))
        found = rows >= 0
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        out[found] = self.vectors[rows[found]]
        missing = list(dict.fromkeys(w for w, hit in zip(words, found, strict=True) if not hit))
        if missing:
            encoded = self.fallback.encode(missing)
            slot = {w: i for i, w in enumerate(missing)}
            picks = np.fromiter((slot[w] for w in np.asarray(words, dtype=object)[~found]), dtype=np.int64)
            out[~found] = encoded[picks]
        self.coverage.update(words, found.tolist())
        self.last_featurize_seconds = time.perf_counter() - start
        return TokenFeatures(vectors=out, offsets=offsets_from_lengths([len(s) for s in corpus.tokens]))

    def describe(self) -> dict[str, ParamValue]:
        encoder = self.encoder
        return {
            "family": self.family,
            "model": encoder.model_ref,
            "revision": encoder.revision or "",
            "model_id": encoder.model_id,
            "layer": self.layer,
            "n_layers": encoder.n_layers,
            "pooling": encoder.pooling,
            "dim": self.dim,
            "min_count": self.min_count,
            "max_occurrences": self.max_occurrences,
            "pca_dims": self.pca_dims,
            "sif_coefficient": self.sif_coefficient,
            "recipe": "first PC of occurrences (Ethayarajh 2019), model2vec fallback",
            "fallback": str(self.fallback_dir()),
            "vocab_size": len(self.index),
            "sentence_embedding": encoder.is_sentence_embedding_model,
            **self.coverage.as_params(),
        }


def _mean_weight(sif: np.ndarray, ids: list[int]) -> float:
    """A word's SIF weight: the mean of its pieces' (1 for a word with no known piece)."""
    return float(sif[ids].mean()) if ids else 1.0


def _positive_int(value: Any, name: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or isinstance(value, bool):
        raise E241(name=name, value=value)
    return number


def parse_distill_layer(layer: str | int, n_layers: int) -> int:
    """One hidden-state index (0 = input embeddings, ``n_layers`` = last); "mix" and "mean-last-K" are rejected."""
    choice = parse_layer(layer, n_layers)
    if choice.index is None:
        raise E231(
            what="distill layer",
            layer=layer,
            problem="not a single layer",
            allowed=f'an integer from 0 to {n_layers} (0 = input embeddings) or "last"; default {DEFAULT_DISTILL_LAYER}',
        )
    return choice.index % (n_layers + 1)
