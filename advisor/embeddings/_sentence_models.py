"""Whether an encoder is a sentence-embedding model: a property of the encoder, so it lives with the families.

Why it matters: a sentence-transformers model is contrastively tuned and mean-pooled, so its word
vectors are a weak reading of what a masked-LM encoder can do; the contextual family records the
flag in its ``describe()`` and the verdict's caveat (:mod:`advisor.contextuality`) reads it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["is_sentence_embedding_model"]

# Files that sentence-transformers writes next to the encoder, and hub name patterns of such models.
_ST_FILES = ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json")
_ST_NAMES = (
    "sentence-transformers/",
    "all-minilm",
    "all-mpnet",
    "paraphrase-",
    "multi-qa-",
    "msmarco-",
    "gtr-t5",
    "simcse",
)


def is_sentence_embedding_model(model: str) -> bool:
    """True for a sentence-transformers model (local directory with its files, or a known hub name)."""
    path = Path(model).expanduser()
    if _is_dir(path):
        return any((path / name).is_file() for name in _ST_FILES)
    lowered = model.lower()
    return any(pattern in lowered for pattern in _ST_NAMES)


def _is_dir(path: Path) -> bool:
    """``Path.is_dir`` that answers False for a name the OS cannot even look up (e.g. > 255 bytes)."""
    try:
        return path.is_dir()
    except OSError:
        return False
