"""On-disk cache of contextual word features: memmaps per (corpus, model, settings), read per batch.

Why: a forward pass over a corpus costs minutes on CPU while the grid trains dozens of small
models on the same features, and a second ``advisor run`` on the same data should cost nothing.

An entry is a directory ``<root>/<key>/`` holding ``offsets.npy``, ``meta.json`` and the vectors:
a layer stack ``(words, layers, dim)`` as ``codes.npy`` (int8) and ``scales.npy`` (float16, one per
word and layer; :mod:`._quantized`, half the bytes of float16 and read back as float32 per gather),
or plain ``(words, dim)`` rows as ``vectors.npy`` (float16). It is written inside a temporary
directory and renamed into place only when complete, so an interrupted run leaves no entry rather
than a corrupt one. Vectors are written batch by batch into the memmaps, so a CoNLL-size corpus at
768-d never sits in RAM, and the pages already written are dropped from the process
(:func:`release_pages`) as it goes, so its resident memory does not grow with the corpus either.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from advisor.embeddings._quantized import QuantizedStack
from advisor.features import TokenFeatures

__all__ = ["CACHE_FORMAT", "FeatureCache", "FeatureWriter", "release_pages", "tokens_hash"]

#: Bump when the layout or the meaning of cached vectors changes: old entries are then ignored
#: (their keys differ). 3: layer stacks stored as int8 codes + float16 scales, no derived entries.
CACHE_FORMAT = 3
_STALE_TMP_SECONDS = 24 * 3600


def release_pages(array: np.ndarray | QuantizedStack) -> None:
    """Drop a memory-mapped array's pages from this process's resident set (a no-op for other arrays).

    Why: pages written through a shared file mapping stay mapped, so resident memory would grow
    with the cache file (GBs for a large corpus at 768-d x 13 layers) although the data is already
    in the kernel's page cache, which writes it back and evicts it as needed. ``MADV_DONTNEED`` on a
    shared file mapping unmaps them without losing anything: a later access reads the file again.
    """
    if isinstance(array, QuantizedStack):
        release_pages(array.codes)
        release_pages(array.scales)
        return
    handle = getattr(array, "_mmap", None)
    if isinstance(handle, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        handle.madvise(mmap.MADV_DONTNEED)


def tokens_hash(tokens: list[list[str]]) -> str:
    """Hash of the words only: labels do not change features, so relabelled data reuses the cache."""
    digest = hashlib.sha256()
    for sent in tokens:
        digest.update(json.dumps(sent, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()[:20]


class FeatureCache:
    """A directory of feature entries addressed by a key built from everything that changes the vectors."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser()

    @staticmethod
    def key(**parts: Any) -> str:
        blob = json.dumps({"format": CACHE_FORMAT, **parts}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    def path(self, key: str) -> Path:
        return self.root / key

    def load(self, key: str) -> TokenFeatures | None:
        """The cached features on read-only memmaps (a stack: :class:`QuantizedStack`), or None if absent or unreadable."""
        entry = self.path(key)
        try:
            meta = json.loads((entry / "meta.json").read_text(encoding="utf-8"))
            vectors = _open_vectors(entry, meta)
            offsets = np.load(entry / "offsets.npy")
            shape = (
                (meta["n_rows"], meta["n_layers"], meta["dim"])
                if meta.get("n_layers")
                else (meta["n_rows"], meta["dim"])
            )
            if vectors.shape != shape or len(offsets) != meta["n_items"] + 1:
                raise ValueError("shape does not match meta.json")
            return TokenFeatures(vectors=vectors, offsets=offsets)  # type: ignore[arg-type]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            warnings.warn(f"ignoring unreadable feature cache entry {entry}: {exc}", stacklevel=2)
            return None

    def meta(self, key: str) -> dict[str, Any]:
        return json.loads((self.path(key) / "meta.json").read_text(encoding="utf-8"))

    def writer(
        self, key: str, offsets: np.ndarray, dim: int, meta: dict[str, Any], n_layers: int | None = None
    ) -> FeatureWriter:
        """A writer for ``(words, dim)`` float16 vectors, or a quantized ``(words, n_layers, dim)`` stack when ``n_layers`` is set."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._remove_stale_tmp()
        return FeatureWriter(self.path(key), offsets, dim, meta, n_layers)

    def _remove_stale_tmp(self) -> None:
        """Temporary directories of runs killed long ago; recent ones may belong to a live run."""
        now = time.time()
        for tmp in self.root.glob(".tmp-*"):
            try:
                if now - tmp.stat().st_mtime > _STALE_TMP_SECONDS:
                    shutil.rmtree(tmp, ignore_errors=True)
            except OSError:
                pass


def _open_vectors(entry: Path, meta: dict[str, Any]) -> np.ndarray | QuantizedStack:
    """An entry's vectors on read-only memmaps, stored as its ``meta.json`` says."""
    if meta.get("dtype") == "int8":
        codes = np.load(entry / "codes.npy", mmap_mode="r")
        return QuantizedStack(codes, np.load(entry / "scales.npy", mmap_mode="r"))
    return np.load(entry / "vectors.npy", mmap_mode="r")


def _create_vectors(tmp: Path, n_rows: int, dim: int, n_layers: int | None) -> np.ndarray | QuantizedStack:
    """Writable memmaps for an entry: float16 rows, or a stack's int8 codes and float16 scales."""
    if not n_layers:
        return np.lib.format.open_memmap(
            tmp / "vectors.npy", mode="w+", dtype=np.float16, shape=(n_rows, dim)
        )
    codes = np.lib.format.open_memmap(
        tmp / "codes.npy", mode="w+", dtype=np.int8, shape=(n_rows, n_layers, dim)
    )
    scales = np.lib.format.open_memmap(
        tmp / "scales.npy", mode="w+", dtype=np.float16, shape=(n_rows, n_layers)
    )
    return QuantizedStack(codes, scales)


class FeatureWriter:
    """Fill ``vectors`` (float rows; a stack quantizes them as they are assigned) then ``commit()``;
    leaving the ``with`` block without commit discards it."""

    def __init__(
        self, entry: Path, offsets: np.ndarray, dim: int, meta: dict[str, Any], n_layers: int | None = None
    ) -> None:
        self.entry = entry
        self.tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{entry.name}-", dir=entry.parent))
        self.offsets = np.asarray(offsets, dtype=np.int64)
        n_rows = int(self.offsets[-1])
        self.vectors = _create_vectors(self.tmp, n_rows, dim, n_layers)
        self.meta = {
            **meta,
            "n_rows": n_rows,
            "n_items": len(self.offsets) - 1,
            "dim": dim,
            "n_layers": int(n_layers or 0),
            "dtype": "int8" if n_layers else "float16",
        }
        self.committed = False

    def __enter__(self) -> FeatureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.committed:
            self.discard()

    def commit(self) -> TokenFeatures:
        """Flush, write offsets and meta, rename into place; returns the entry opened read-only."""
        stored = self.vectors
        for array in (stored.codes, stored.scales) if isinstance(stored, QuantizedStack) else (stored,):
            array.flush()  # type: ignore[union-attr]
        del stored
        del self.vectors
        np.save(self.tmp / "offsets.npy", self.offsets)
        self.meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        (self.tmp / "meta.json").write_text(json.dumps(self.meta, indent=1, default=str), encoding="utf-8")
        try:
            os.rename(self.tmp, self.entry)
        except OSError:  # a concurrent run committed the same key first: keep theirs
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.committed = True
        meta = json.loads((self.entry / "meta.json").read_text(encoding="utf-8"))
        vectors = _open_vectors(self.entry, meta)
        return TokenFeatures(vectors=vectors, offsets=np.load(self.entry / "offsets.npy"))  # type: ignore[arg-type]

    def discard(self) -> None:
        if hasattr(self, "vectors"):
            del self.vectors
        shutil.rmtree(self.tmp, ignore_errors=True)
