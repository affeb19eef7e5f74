from __future__ import annotations

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.embeddings import UNKNOWN_ROW, RandomEmbedding, circulant_table, make_embedding


def _corpus(sentences: list[list[str]]) -> Corpus:
    return Corpus(task="ner", tokens=sentences, labels=[["O"] * len(s) for s in sentences])


@pytest.fixture
def train() -> Corpus:
    return _corpus([["John", "visited", "Paris"], ["the", "bank", "of", "the", "river"], ["john", "."]])


def test_circulant_blocks_signs_and_norm():
    dim, n_rows = 16, 40  # three blocks, the last one truncated to 8 rows
    matrix, generators, signs = circulant_table(n_rows, dim, seed=3, target_norm=2.5)
    assert matrix.shape == (n_rows, dim) and matrix.dtype == np.float32
    assert generators.shape == (3, dim) and set(np.unique(signs)) == {-1, 1}
    for row in range(n_rows):
        b, i = divmod(row, dim)
        expected = generators[b, (i - np.arange(dim)) % dim] * signs[b]
        np.testing.assert_allclose(matrix[row], expected, rtol=1e-6)
    # Undoing the signs leaves a circulant block: each row is the previous one shifted right by one.
    block = matrix[:dim] * signs[0]
    np.testing.assert_allclose(block[1:], np.roll(block[:-1], 1, axis=1), rtol=1e-6)
    norms = np.linalg.norm(matrix, axis=1)
    assert norms.mean() == pytest.approx(2.5, rel=1e-5)
    for b in range(3):  # every row of a block has the norm of its generator
        np.testing.assert_allclose(norms[b * dim : (b + 1) * dim], np.linalg.norm(generators[b]), rtol=1e-5)
    assert not np.allclose(norms[0], norms[dim])  # blocks differ


def test_seed_determinism_and_difference(train):
    a = make_embedding("random", dim=32, seed=1, target_norm=1.0)
    b = make_embedding("random", dim=32, seed=1, target_norm=1.0)
    c = make_embedding("random", dim=32, seed=2, target_norm=1.0)
    for emb in (a, b, c):
        emb.fit(train)
    np.testing.assert_array_equal(a.featurize(train).vectors, b.featurize(train).vectors)
    assert not np.allclose(a.featurize(train).vectors, c.featurize(train).vectors)


def test_vocabulary_is_exact_training_words_plus_unknown(train):
    emb = make_embedding("random", dim=8, seed=0, target_norm=1.0)
    emb.fit(train)
    assert set(emb.vocabulary) == {"John", "john", "visited", "Paris", "the", "bank", "of", "river", "."}
    assert UNKNOWN_ROW not in emb.vocabulary.values()
    test = _corpus([["John", "swam", "JOHN"], []])
    feats = emb.featurize(test)
    assert feats.vectors.shape == (3, 8) and len(feats) == 2 and feats.lengths().tolist() == [3, 0]
    np.testing.assert_array_equal(feats.vectors[0], emb.matrix[emb.vocabulary["John"]])
    np.testing.assert_array_equal(feats.vectors[1], emb.matrix[UNKNOWN_ROW])
    np.testing.assert_array_equal(feats.vectors[2], emb.matrix[UNKNOWN_ROW])
    assert emb.describe()["coverage_tokens"] == pytest.approx(1 / 3)
    assert emb.storage_bytes == emb.matrix.nbytes == (9 + 1) * 8 * 4


def test_lowercase_folds_case(train):
    emb = make_embedding("random", dim=8, target_norm=1.0, lowercase=True)
    emb.fit(train)
    feats = emb.featurize(_corpus([["JOHN", "john"]]))
    np.testing.assert_array_equal(feats.vectors[0], feats.vectors[1])
    assert not np.array_equal(feats.vectors[0], emb.matrix[UNKNOWN_ROW])


def test_default_target_norm_matches_static_vectors(train, tiny_vectors_file, tmp_path):
    static = make_embedding("static", path=tiny_vectors_file, cache_dir=tmp_path)
    emb = make_embedding("random", dim=8, static_path=tiny_vectors_file, cache_dir=tmp_path)
    emb.fit(train)
    assert emb.target_norm == pytest.approx(static.mean_norm)
    assert np.linalg.norm(emb.matrix, axis=1).mean() == pytest.approx(static.mean_norm, rel=1e-5)


def test_featurize_before_fit_is_an_error(train):
    with pytest.raises(RuntimeError, match="fit"):
        RandomEmbedding(dim=4, target_norm=1.0).featurize(train)


def test_table_view_gathers_the_rows_featurize_copies(train):
    emb = make_embedding("random", dim=8, seed=0, target_norm=1.0)
    emb.fit(train)
    other = _corpus([["John", "saw", "the", "river"], [], ["Paris"]])  # an unseen word, an empty item
    copied, viewed = emb.featurize(other), emb.table_view(other)
    np.testing.assert_array_equal(viewed.offsets, copied.offsets)
    assert viewed.vectors.shape == copied.vectors.shape and viewed.dim == copied.dim
    rows = np.array([[0, 1, 2], [3, 4, 0]])  # a padded batch's gather, as the trainers do it
    np.testing.assert_array_equal(viewed.vectors[rows], copied.vectors[rows])
    assert viewed.vectors.base is emb.matrix  # a view over the table, no copy
    with pytest.raises(RuntimeError, match="fit"):
        RandomEmbedding(dim=4, target_norm=1.0).table_view(train)
