"""Contextuality measures against values computed by hand (plain loops, numpy SVD) on a tiny encoder."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from advisor.contextuality import (
    TABLE_COLUMNS,
    explained_by_first_pc,
    mean_pairwise_cosine,
    measure_contextuality,
)
from advisor.data import Corpus
from advisor.embeddings import make_embedding
from advisor.features import TokenFeatures

SENTENCES = [
    "the bank of the river".split(),
    "the bank said no".split(),
    "john went to the bank".split(),
    "mary saw the river".split(),
    "the film was good".split(),
    "the bank and the river".split(),
    "a bank".split(),
]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def tiny_stack(tiny_bert_dir, tmp_path_factory):
    corpus = Corpus(task="ner", tokens=SENTENCES, labels=[["O"] * len(s) for s in SENTENCES])
    emb = make_embedding("contextual", model=tiny_bert_dir, cache_dir=tmp_path_factory.mktemp("cache"))
    return emb.featurize_layers(corpus)


def test_pairwise_cosine_and_first_pc_match_brute_force():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(6, 5))
    pairs = [_cos(rows[i], rows[j]) for i, j in itertools.permutations(range(6), 2)]
    assert mean_pairwise_cosine(rows) == pytest.approx(np.mean(pairs))
    sigma = np.linalg.svd(rows, compute_uv=False)
    assert explained_by_first_pc(rows) == pytest.approx(sigma[0] ** 2 / (sigma**2).sum())
    same = np.tile(rows[:1], (4, 1))
    assert mean_pairwise_cosine(same) == pytest.approx(1.0) and explained_by_first_pc(same) == pytest.approx(
        1.0
    )


def test_tiny_encoder_table_equals_hand_computed_values(tiny_stack):
    result = measure_contextuality(tiny_stack, SENTENCES, min_count=5, n_baseline=10_000)
    table = result.table
    assert list(table.columns) == list(TABLE_COLUMNS) and list(table["layer"]) == [0, 1, 2]
    # "the" (8x) and "bank" (5x) occur at least 5 times; every sentence has >= 2 words.
    assert result.n_words == 2 and result.n_occurrences == 13 and result.n_sentences == len(SENTENCES)
    vectors = np.asarray(tiny_stack.vectors, np.float32).astype(np.float64)
    flat = [w for s in SENTENCES for w in s]
    for layer in range(3):
        column = vectors[:, layer]
        anisotropy = np.mean(
            [_cos(column[i], column[j]) for i, j in itertools.permutations(range(len(flat)), 2)]
        )
        self_sims, mevs = [], []
        for word in ("bank", "the"):
            occ = column[[i for i, w in enumerate(flat) if w == word]]
            self_sims.append(
                np.mean([_cos(occ[i], occ[j]) for i, j in itertools.permutations(range(len(occ)), 2)])
            )
            sigma = np.linalg.svd(occ, compute_uv=False)
            mevs.append(sigma[0] ** 2 / (sigma**2).sum())
        intra = []
        for i in range(len(SENTENCES)):
            rows = column[tiny_stack.offsets[i] : tiny_stack.offsets[i + 1]]
            intra.append(np.mean([_cos(r, rows.mean(0)) for r in rows]))
        row = table.iloc[layer]
        assert row.anisotropy == pytest.approx(anisotropy, abs=1e-6)
        assert row.self_similarity == pytest.approx(np.mean(self_sims), abs=1e-6)
        assert row.self_similarity_adjusted == pytest.approx(np.mean(self_sims) - anisotropy, abs=1e-6)
        assert row.intra_similarity == pytest.approx(np.mean(intra), abs=1e-6)
        assert row.intra_similarity_adjusted == pytest.approx(np.mean(intra) - anisotropy, abs=1e-6)
        assert row.mev == pytest.approx(np.mean(mevs), abs=1e-6)
        assert row.mev_adjusted == pytest.approx(row.mev - row.mev_baseline)
        assert row.static_share == pytest.approx(np.mean(np.asarray(mevs) > 0.5))
        assert 0 < row.mev_baseline <= 1


def test_static_vectors_are_fully_explained_and_baseline_matters():
    """A static embedding: self-similarity 1 and MEV 1 for every word; the adjusted values remove anisotropy."""
    rng = np.random.default_rng(1)
    table = {w: rng.normal(size=4) + 3.0 for w in "abcde"}  # all vectors share a large common direction
    tokens = [list(rng.choice(list("abcde"), size=6)) for _ in range(40)]
    stack = TokenFeatures.from_list([np.stack([table[w] for w in s]).astype(np.float32) for s in tokens])
    row = measure_contextuality(stack, tokens).table.iloc[0]
    assert row.self_similarity == pytest.approx(1.0, abs=1e-3) and row.mev == pytest.approx(1.0, abs=1e-3)
    assert row.static_share == 1.0
    assert row.anisotropy > 0.8  # anisotropic: random pairs are similar too
    assert row.self_similarity_adjusted == pytest.approx(1.0 - row.anisotropy, abs=1e-3)
