"""The contract every embedding family fulfils, and the factory that builds one by name.

Why one small base class: the grid, the trainers and the cost report must treat random, static
and contextual embeddings identically (fit on the training split, featurize any split, report
size and timings), so that the only thing that differs between cells of a comparison is the
embedding itself.
"""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from advisor._error_codes import E212, E216
from advisor.cache import cache_dir
from advisor.data import Corpus
from advisor.features import TokenFeatures
from advisor.registry import embeddings
from advisor.vocabulary import PAPER_FAMILIES, ordered

__all__ = [
    "EMBEDDING_NAMES",
    "Embedding",
    "as_flag",
    "default_cache_dir",
    "embedding_choices",
    "make_embedding",
]

#: The paper's three families, cheapest first (see :mod:`advisor.vocabulary`).
EMBEDDING_NAMES: tuple[str, ...] = PAPER_FAMILIES

ParamValue = str | int | float


def embedding_choices() -> list[str]:
    """Registered embeddings, cheapest first: what the CLI and the app offer.

    Here, not in :mod:`advisor.vocabulary`: importing this package is what registers them.
    """
    return ordered(embeddings.names())


def default_cache_dir() -> Path:
    """The feature cache under the cache root (:mod:`advisor.cache`): features outlive a run, so not a temp dir."""
    return cache_dir("features")


class Embedding(ABC):
    """A frozen word-level embedding: ``fit`` on training data, then ``featurize`` any corpus."""

    name: ClassVar[str]
    family: ClassVar[str]

    def __init__(self) -> None:
        self.last_featurize_seconds: float = 0.0
        self.last_cache_hit: bool = False
        # Seconds the last featurize cost from raw text, also on a cache hit (recorded when the entry
        # was computed): the costs a verdict states must not change with cache state. NaN: not tracked.
        self.last_encode_seconds: float = math.nan

    @property
    @abstractmethod
    def dim(self) -> int:
        """Width of one word vector."""

    @property
    @abstractmethod
    def storage_bytes(self) -> int:
        """Bytes of the embedding table or model weights: the storage side of the cost."""

    def fit(self, train: Corpus) -> None:  # noqa: B027 - a no-op is the right default for frozen models
        """Learn whatever depends on the training split (only the random vocabulary does)."""

    @abstractmethod
    def featurize(self, corpus: Corpus) -> TokenFeatures:
        """One vector per word of ``corpus.tokens``, items concatenated in order."""

    @abstractmethod
    def describe(self) -> dict[str, ParamValue]:
        """Flat parameters for MLflow (no nesting, no None)."""

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.describe().items() if k != "family")
        return f"{type(self).__name__}({params})"


@dataclass
class Coverage:
    """How many tokens and distinct words of the featurized corpora a vocabulary knew."""

    tokens_seen: int = 0
    tokens_found: int = 0
    _types_seen: set[str] | None = None
    _types_found: set[str] | None = None

    def update(self, words: Iterable[str], found: Iterable[bool]) -> None:
        if self._types_seen is None:
            self._types_seen, self._types_found = set(), set()
        assert self._types_found is not None
        for word, hit in zip(words, found, strict=True):
            self.tokens_seen += 1
            self._types_seen.add(word)
            if hit:
                self.tokens_found += 1
                self._types_found.add(word)

    def as_params(self) -> dict[str, ParamValue]:
        types_seen = len(self._types_seen or ())
        types_found = len(self._types_found or ())
        return {
            "coverage_tokens": self.tokens_found / self.tokens_seen if self.tokens_seen else 0.0,
            "coverage_types": types_found / types_seen if types_seen else 0.0,
            "coverage_n_tokens": self.tokens_seen,
        }


def as_flag(name: str, value: object) -> bool:
    """A boolean option that may arrive as text from the CLI or a config file ("false" must mean False)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise E212(name=name, value=value)


def _option_names(cls: type) -> list[str]:
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]


def make_embedding(name: str, **options: Any) -> Embedding:
    """Build the embedding registered as ``name``; unknown options raise :class:`ConfigError`."""
    cls = embeddings.get(name)
    allowed = _option_names(cls)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise E216(name=name, options=", ".join(unknown), allowed=", ".join(allowed))
    return cls(**options)
