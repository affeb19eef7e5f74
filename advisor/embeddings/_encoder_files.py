"""An encoder's depth from its configuration alone, and whether its folder can be loaded at all.

Why apart from :mod:`advisor.embeddings._encoder`: validation asks this before any run exists and
before any weights are loaded. A local folder's ``config.json`` is loaded by transformers itself
(``AutoConfig``, offline), as the run will load it, and the folder must hold weights and tokenizer
files: a JSON list, an unknown ``model_type`` or a folder without weights used to pass validation and
fail the run after it was created.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from advisor._error_codes import E230, E230_CONFIG, E230_MISSING, E234_CONFIG

__all__ = ["encoder_depth"]

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


def _looks_like_path(ref: str) -> bool:
    return ref.startswith(("/", ".", "~")) or os.sep in ref.strip("/").replace("/", "", 1) or "\\" in ref


def encoder_depth(model: str) -> int:
    """``num_hidden_layers`` of the encoder ``model`` (a folder or a hub id), from its configuration alone."""
    folder = Path(model).expanduser()
    if _is_dir(folder):
        if not (folder / "config.json").is_file():
            raise E230(
                model=model,
                problem="the directory has no config.json",
                hint="pass a Hugging Face model directory saved with save_pretrained, or a hub id",
            )
        layers = _local_layers(folder, model)
        for what, names in _MODEL_FILES.items():
            if not any((folder / name).is_file() for name in names):
                raise E230_MISSING(model=model, missing=f"{what} ({' or '.join(names[:3])})")
        return layers
    if _looks_like_path(model) or not _HUB_ID.match(model):
        raise E230(
            model=model,
            problem="no such model directory",
            hint="pass an existing local model directory or a hub id such as bert-base-cased",
        )
    return _hub_layers(model)


#: What a local encoder folder needs besides config.json: weights and a tokenizer transformers loads.
_MODEL_FILES: dict[str, tuple[str, ...]] = {
    "weights": (
        "model.safetensors",
        "pytorch_model.bin",
        "model.safetensors.index.json",
        "pytorch_model.bin.index.json",
    ),
    "tokenizer files": (
        "tokenizer.json",
        "vocab.txt",
        "vocab.json",
        "spiece.model",
        "sentencepiece.bpe.model",
        "tokenizer.model",
    ),
}


def _local_layers(folder: Path, model: str) -> int:
    """The folder's config loaded as the run loads it (transformers, offline); any failure is E230."""
    from transformers import AutoConfig

    try:
        raw = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise E230_CONFIG(model=model, reason=f"it holds a JSON {type(raw).__name__}, not an object")
        config = AutoConfig.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
    except (OSError, ValueError, TypeError, AttributeError, KeyError) as error:
        reason = str(error).split(". ")[0].strip().rstrip(".") or type(error).__name__
        raise E230_CONFIG(model=model, reason=reason) from None
    return _layers_from_config(config.to_dict(), model)


def _layers_from_config(config: dict[str, Any], model: str) -> int:
    for source in (config, config.get("text_config") or {}, config.get("encoder") or {}):
        value = source.get("num_hidden_layers", source.get("n_layers", source.get("num_layers")))
        if isinstance(value, int) and value > 0:
            return value
    raise E234_CONFIG(model=model)


def _hub_layers(model: str) -> int:
    """The config of a hub model: from the local cache, or fetched (config only) when online."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model, trust_remote_code=False)
    except (OSError, ValueError) as error:
        raise E230(
            model=model,
            problem=f"cannot load its configuration ({type(error).__name__}): it is not a local directory, "
            "not in the Hugging Face cache, or the hub cannot be reached",
            hint="pass a local model directory, run once with internet access, or omit --contextual for the "
            "packaged all-MiniLM-L6-v2",
        ) from None
    return _layers_from_config(config.to_dict(), model)


def _is_dir(path: Path) -> bool:
    """``Path.is_dir`` that answers False for a name the OS cannot even look up (e.g. > 255 bytes)."""
    try:
        return path.is_dir()
    except OSError:
        return False
