"""Frozen Hugging Face encoders as word-level features (BERT-class; default the packaged all-MiniLM-L6-v2).

How a word gets one vector: the sentence's words are tokenized as pre-split words, the encoder runs
frozen (eval mode, ``torch.inference_mode``), and each word's sub-word pieces are pooled with
``word_ids()`` ("first" piece, or "mean" of its pieces) from every hidden layer (0 = the embedding
layer). The cache keeps that whole layer stack once per (corpus, model, pooling, window), as int8
codes with a float16 scale per word and layer (:mod:`._quantized`: half of float16), and the
``layer`` option only decides how it is read: "mix" hands the stack to the downstream model, which
learns an ELMo-style scalar mix of the layers; "last" or an index is a view of one layer;
"mean-last-K" a view that averages K layers of the rows a batch gathers. Switching ``layer``
therefore never runs the encoder again, and no other entry is stored. Storing all layers costs
little: the forward pass computes them anyway.

Long sentences are never truncated: pieces are cut into windows of the model's length with an
overlap, each piece takes its vector from the window where it sits farthest from an edge, and
every word still gets exactly one row. Windows are batched sorted by length (little padding) and
written straight into the feature cache, so a second featurize of the same corpus runs no
forward pass at all and does not even load the model.

A sentence pair (``--task pair``) is read jointly by default: both texts in one encoder input with
the tokenizer's own pair template, so each word's vector sees the other text; ``pair_encoding=
"separate"`` encodes each text alone. The choice is part of the cache key and of :meth:`describe`;
pairs too long for one input are encoded apart and counted (``pair_overflow``), never truncated.

Memory stays flat whatever the corpus size: sentences are encoded in chunks whose bookkeeping is
freed before the next chunk is built, the only per-sentence state kept for the whole corpus is a
few numpy integers (offsets, sentence hashes), and the cache pages already written are dropped
from the process as they are written.

This module is the family and its cache; loading the model is :mod:`._encoder`, windows, batches
and pooling :mod:`._encoding`, the ``layer`` option :mod:`._layer_choice`.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from advisor._error_codes import E232, E233, E255
from advisor.data import Corpus
from advisor.embeddings._base import Embedding, ParamValue, as_flag, default_cache_dir
from advisor.embeddings._cache import FeatureCache, tokens_hash
from advisor.embeddings._encoder import EncoderLoading, default_encoder, model_fingerprint, resolve_device
from advisor.embeddings._encoding import PAIR_ENCODINGS, WindowEncoding
from advisor.embeddings._layer_choice import parse_layer
from advisor.embeddings._quantized import QuantizedStack
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.registry import embeddings

__all__ = [
    "DTYPES",
    "PAIR_ENCODINGS",
    "POOLINGS",
    "ContextualEmbedding",
    "check_pair_encoding",
    "default_encoder",
    "model_fingerprint",
]

POOLINGS: tuple[str, ...] = ("first", "mean")
#: Compute precision of the encoder. float32 is exact; bfloat16 is ~1.4x faster on CPUs with native
#: bf16 (AVX512-BF16/AMX) at ~1-2 % relative change of the vectors; float16 is for GPUs.
DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")


def check_pair_encoding(pair_encoding: str, task: str) -> None:
    """The ``--pair-encoding`` setting: a known choice, set away from its default only for a pair task
    (elsewhere it would change nothing, and whoever set it would believe it did)."""
    if pair_encoding not in PAIR_ENCODINGS:
        raise E232(kind="--pair-encoding", name=pair_encoding, choices=", ".join(PAIR_ENCODINGS))
    if task != "pair" and pair_encoding != PAIR_ENCODINGS[0]:
        raise E255(value=pair_encoding, task=task)


@embeddings.register("contextual", family="contextual")
class ContextualEmbedding(EncoderLoading, WindowEncoding, Embedding):
    """Word vectors from a frozen encoder; all layers cached on disk per (corpus, model, pooling, window)."""

    name = "contextual"
    family = "contextual"

    def __init__(
        self,
        *,
        model: str | Path | None = None,
        revision: str | None = None,
        layer: str | int = "mix",
        pooling: str = "mean",
        batch_size: int = 64,
        device: str = "auto",
        cache_dir: str | Path | None = None,
        use_cache: bool = True,
        max_length: int | None = None,
        window_overlap: int | None = None,
        dtype: str = "float32",
        pair_encoding: str | None = None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise E232(kind="pooling", name=pooling, choices=", ".join(POOLINGS))
        if pair_encoding is not None and pair_encoding not in PAIR_ENCODINGS:
            raise E232(kind="pair encoding", name=pair_encoding, choices=", ".join(PAIR_ENCODINGS))
        # None: not a pair run (describe() names it once a pair corpus is featurized); pairs read jointly
        self._pair_encoding_given = pair_encoding is not None
        self.pair_encoding = pair_encoding or PAIR_ENCODINGS[0]
        self._pairs_seen = False
        self.pair_overflow = 0  # pairs encoded apart for being too long, over every featurized corpus
        self.last_pair_overflow = 0
        if dtype not in DTYPES:
            raise E232(kind="dtype", name=dtype, choices=", ".join(DTYPES))
        self.dtype = dtype
        if int(batch_size) < 1:
            raise E233(batch_size=batch_size)
        self.model_ref = str(model) if model is not None else default_encoder()
        self.is_local = Path(self.model_ref).expanduser().is_dir()
        if self.is_local:
            self.model_ref = str(Path(self.model_ref).expanduser().resolve())
        self.revision = revision
        self.pooling = pooling
        self.batch_size = int(batch_size)
        self.device = resolve_device(device)
        self.cache = FeatureCache(cache_dir if cache_dir is not None else default_cache_dir())
        self.use_cache = as_flag("use_cache", use_cache)
        self.config = self._load_config()
        self.layer = parse_layer(layer, int(self.config.num_hidden_layers))
        self._max_length_option = None if max_length is None else int(max_length)
        self._overlap_option = None if window_overlap is None else int(window_overlap)
        self._tokenizer: Any = None
        self._model: Any = None
        self.forward_calls = 0
        _ = self.window_overlap  # loads the tokenizer and checks max_length/window_overlap now, not mid-run
        self.on_progress: Callable[[int, int], None] | None = None

    def cache_key(self, corpus: Corpus) -> str:
        """Key of the all-layer entry: the layer choice is not part of it, every choice reads it. A pair
        corpus adds where each item splits and how pairs are encoded (joint and separate never share)."""
        pairs: dict[str, str] = {}
        if corpus.is_pair:
            split = json.dumps([int(k) for k in corpus.pair_split]).encode()
            pairs = {
                "pair_split": hashlib.sha256(split).hexdigest()[:20],
                "pair_encoding": self.pair_encoding,
            }
        return self.cache.key(
            **pairs,
            tokens=tokens_hash(corpus.tokens),
            model=self.model_id,
            layers="all",
            pooling=self.pooling,
            max_length=self.max_length,
            window_overlap=self.window_overlap,
            dtype=self.dtype,
        )

    # -- featurize ---------------------------------------------------------------------------

    def featurize(self, corpus: Corpus) -> TokenFeatures:
        """Features as the ``layer`` option reads them: the layer stack ("mix") or one 2-D matrix."""
        start = time.perf_counter()
        if not self.use_cache:
            features = self._encode_in_memory(corpus, self.layer.indices(self.n_layers))
            if not self.layer.mix:
                features = TokenFeatures(
                    features.vectors.mean(axis=1, dtype=np.float32).astype(np.float16), features.offsets
                )
            self.last_cache_hit = False
            self.last_encode_seconds = time.perf_counter() - start
        else:
            stack = self.featurize_layers(corpus)
            features = self.read_choice(stack)
        self.last_featurize_seconds = time.perf_counter() - start
        return features

    def featurize_layers(self, corpus: Corpus) -> TokenFeatures:
        """Every hidden layer of every word, ``(words, n_layers + 1, dim)``: from the cache if present."""
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        if not self.use_cache:
            return self._encode_in_memory(corpus, list(range(self.n_layers + 1)))
        key = self.cache_key(corpus)
        cached = self.cache.load(key)
        if (
            cached is not None
            and cached.n_layers == self.n_layers + 1
            and np.array_equal(cached.offsets, offsets)
        ):
            self.last_cache_hit = True
            meta = self.cache.meta(key)
            self.last_encode_seconds = float(meta.get("seconds", math.nan))
            self._count_pairs(corpus, int(meta.get("pair_overflow", 0)))
            return cached
        self.last_cache_hit = False
        start = time.perf_counter()
        meta = {"model": self.model_ref, **self._cache_meta(), "layers": "all"}
        if corpus.is_pair:
            meta["pair_encoding"] = self.pair_encoding
        with self.cache.writer(key, offsets, self.dim, meta, n_layers=self.n_layers + 1) as writer:
            self._encode_into(corpus, offsets, writer.vectors, list(range(self.n_layers + 1)))
            writer.meta["seconds"] = self.last_encode_seconds = time.perf_counter() - start
            writer.meta["pair_overflow"] = self.last_pair_overflow
            self._count_pairs(corpus, self.last_pair_overflow)
            return writer.commit()

    def _count_pairs(self, corpus: Corpus, overflow: int) -> None:
        """Pairs encoded apart for being too long for one joint input: this corpus's, and all so far."""
        self.last_pair_overflow = overflow
        self.pair_overflow += overflow
        self._pairs_seen = self._pairs_seen or corpus.is_pair

    def read_choice(self, stack: TokenFeatures) -> TokenFeatures:
        """The ``layer`` option applied to the cached stack: the stack, or a lazy view of one layer or
        of the mean of several, dequantized per gather (nothing else is stored, nothing read twice)."""
        if self.layer.mix:
            return stack
        if not isinstance(stack.vectors, QuantizedStack):  # the cache always stores stacks quantized
            raise TypeError(f"expected a cached layer stack, got {type(stack.vectors).__name__}")
        indices = self.layer.indices(self.n_layers)
        view = stack.vectors.layer_mean(indices[0], indices[-1] + 1)
        return TokenFeatures(vectors=view, offsets=stack.offsets)  # type: ignore[arg-type]

    def _cache_meta(self) -> dict[str, ParamValue]:
        """What an entry's meta.json records: the settings, minus the layer choice (entries serve every choice)."""
        skip = ("layer", "pair_overflow")
        return {k: v for k, v in self.describe().items() if k not in skip and "coverage" not in k}

    def _encode_in_memory(self, corpus: Corpus, indices: list[int]) -> TokenFeatures:
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        vectors = np.zeros((int(offsets[-1]), len(indices), self.dim), dtype=np.float16)
        self._encode_into(corpus, offsets, vectors, indices)
        self._count_pairs(corpus, self.last_pair_overflow)
        return TokenFeatures(vectors=vectors, offsets=offsets)

    def describe(self) -> dict[str, ParamValue]:
        return {
            "family": self.family,
            "model": self.model_ref,
            "revision": self.revision or "",
            "model_id": self.model_id,
            "dim": self.dim,
            "n_layers": int(self.config.num_hidden_layers),
            "layer": self.layer.text,
            "layers_cached": "all",
            "sentence_embedding": self.is_sentence_embedding_model,
            "pooling": self.pooling,
            "max_length": self.max_length,
            "window_overlap": self.window_overlap,
            "dtype": self.dtype,
            "batch_size": self.batch_size,
            "device": str(self.device),
            **self._pair_params(),
        }

    def _pair_params(self) -> dict[str, ParamValue]:
        """How pairs are encoded, named once the run is a pair run (the option given, or a pair corpus seen)."""
        if not (self._pair_encoding_given or self._pairs_seen):
            return {}
        return {"pair_encoding": self.pair_encoding, "pair_overflow": self.pair_overflow}
