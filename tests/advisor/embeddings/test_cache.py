from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from advisor.embeddings import FeatureCache, default_cache_dir, tokens_hash


def test_roundtrip_is_float16_memmap(tmp_path):
    cache = FeatureCache(tmp_path)
    offsets = np.array([0, 2, 2, 5])
    rng = np.random.default_rng(0)
    data = rng.normal(size=(5, 4)).astype(np.float32)
    key = cache.key(tokens="abc", model="m")
    assert cache.load(key) is None
    with cache.writer(key, offsets, 4, {"model": "m"}) as writer:
        writer.vectors[[4, 0, 2]] = data[[4, 0, 2]]  # rows may arrive in any order
        writer.vectors[[1, 3]] = data[[1, 3]]
        written = writer.commit()
    loaded = cache.load(key)
    assert loaded is not None and isinstance(loaded.vectors, np.memmap) and loaded.vectors.dtype == np.float16
    np.testing.assert_allclose(loaded.vectors, data, atol=1e-2)
    np.testing.assert_array_equal(loaded.offsets, offsets)
    np.testing.assert_array_equal(written.vectors, loaded.vectors)
    meta = cache.meta(key)
    assert meta["n_rows"] == 5 and meta["n_items"] == 3 and meta["dim"] == 4 and meta["model"] == "m"
    assert [p.name for p in tmp_path.iterdir()] == [key]


def test_exception_discards_the_temporary_entry(tmp_path):
    cache = FeatureCache(tmp_path)
    with pytest.raises(RuntimeError), cache.writer("k", np.array([0, 3]), 2, {}) as writer:
        writer.vectors[0] = 1.0
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == [] and cache.load("k") is None


def test_corrupt_entry_is_a_miss_with_a_warning(tmp_path):
    cache = FeatureCache(tmp_path)
    with cache.writer("k", np.array([0, 3]), 2, {}) as writer:
        writer.commit()
    (tmp_path / "k" / "vectors.npy").write_bytes(b"garbage")
    with pytest.warns(UserWarning, match="unreadable"):
        assert cache.load("k") is None


def test_key_depends_on_every_part():
    base = FeatureCache.key(tokens="t", model="m", layer="last")
    assert base == FeatureCache.key(layer="last", model="m", tokens="t")
    assert base != FeatureCache.key(tokens="t", model="m", layer="0")
    assert base != FeatureCache.key(tokens="t", model="m2", layer="last")


def test_tokens_hash_sees_word_boundaries():
    assert tokens_hash([["a", "b"]]) != tokens_hash([["ab"]])
    assert tokens_hash([["a"], ["b"]]) != tokens_hash([["a", "b"]])
    assert tokens_hash([["a", "b"]]) == tokens_hash([["a", "b"]])


def test_default_dir_follows_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path
    monkeypatch.delenv("ADVISOR_CACHE_DIR")
    assert default_cache_dir().parts[-3:] == (".cache", "advisor", "features")


def _rss_file_mb() -> float:
    for line in open("/proc/self/status", encoding="ascii"):
        if line.startswith("RssFile:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssFile in /proc/self/status")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_released_pages_leave_the_process_and_the_data_stays(tmp_path):
    from advisor.embeddings._cache import release_pages

    cache = FeatureCache(tmp_path)
    rows, dim = 40_000, 512  # 39 MB of float16
    data = np.arange(rows * dim, dtype=np.float32).reshape(rows, dim) % 251
    with cache.writer("k", np.array([0, rows]), dim, {}) as writer:
        writer.vectors[:] = data
        before = _rss_file_mb()
        release_pages(writer.vectors)
        after = _rss_file_mb()
        features = writer.commit()
    assert before - after > 30, (before, after)  # the written pages no longer count as this process's
    np.testing.assert_array_equal(np.asarray(features.vectors, np.float32), data)
    release_pages(np.zeros(3))  # a plain array: nothing to release, no error


def test_a_layer_stack_is_stored_as_int8_codes_and_read_back_per_gather(tmp_path):
    from advisor.embeddings import QuantizedStack
    from tests.helpers import assert_within_int8_step

    cache = FeatureCache(tmp_path)
    offsets = np.array([0, 3, 3, 50])
    data = np.random.default_rng(1).normal(size=(50, 5, 64)).astype(np.float32)
    data *= np.array([0.1, 1, 2, 4, 30], dtype=np.float32)[:, None]  # layers of different magnitudes
    with cache.writer("k", offsets, 64, {"model": "m"}, n_layers=5) as writer:
        writer.vectors[[49, 0]] = data[[49, 0]]
        writer.vectors[1:49] = data[1:49]
        writer.commit()
    entry = tmp_path / "k"
    assert sorted(p.name for p in entry.iterdir()) == ["codes.npy", "meta.json", "offsets.npy", "scales.npy"]
    stored = (entry / "codes.npy").stat().st_size + (entry / "scales.npy").stat().st_size
    assert stored < 0.55 * data.size * 2  # float16 would take data.size * 2 bytes; 384-d: 50.3 %
    loaded = cache.load("k")
    assert loaded is not None and isinstance(loaded.vectors, QuantizedStack)
    assert isinstance(loaded.vectors.codes, np.memmap) and loaded.vectors.codes.dtype == np.int8
    assert loaded.vectors.shape == (50, 5, 64) and loaded.n_layers == 5 and loaded.dim == 64
    assert cache.meta("k")["dtype"] == "int8"
    assert_within_int8_step(loaded.vectors, data)
    rows = np.array([[4, 2], [49, 0]])
    np.testing.assert_array_equal(loaded.vectors[rows], np.asarray(loaded.vectors)[rows])


def test_entries_of_the_float16_format_are_ignored(tiny_bert_dir, tmp_path, monkeypatch):
    """An entry written by format 2 (a float16 stack) sits under another key: it is never read."""
    from advisor.data import Corpus
    from advisor.embeddings import _cache, make_embedding

    corpus = Corpus(task="ner", tokens=[["the", "bank"], ["a"]], labels=[["O", "O"], ["O"]])
    emb = make_embedding("contextual", model=tiny_bert_dir, cache_dir=tmp_path, layer="mix")
    monkeypatch.setattr(_cache, "CACHE_FORMAT", 2)
    old_key = emb.cache_key(corpus)
    monkeypatch.undo()
    assert _cache.CACHE_FORMAT > 2 and emb.cache_key(corpus) != old_key
    old = tmp_path / old_key
    old.mkdir()
    np.save(old / "vectors.npy", np.full((3, 3, 32), 7, dtype=np.float16))  # the old layout, wrong values
    np.save(old / "offsets.npy", np.array([0, 2, 3]))
    meta = {"n_rows": 3, "n_items": 2, "dim": 32, "n_layers": 3, "dtype": "float16"}
    (old / "meta.json").write_text(json.dumps(meta))
    feats = emb.featurize(corpus)
    assert not emb.last_cache_hit and emb.forward_calls > 0
    assert np.abs(np.asarray(feats.vectors)).max() < 7 and (tmp_path / emb.cache_key(corpus)).is_dir()
