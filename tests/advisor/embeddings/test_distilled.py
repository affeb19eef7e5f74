from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import DistilledEmbedding, make_embedding
from advisor.embeddings._distilled import principal_vectors, sif_weights, top_singular_vector
from advisor.errors import ConfigError

TRAIN = [
    ["John", "visited", "Paris", "yesterday"],
    ["the", "bank", "of", "the", "river", "."],
    ["Mary", "likes", "the", "film", "."],
    ["the", "city", "of", "London", "."],
    ["they", "visited", "the", "bank", "."],
    ["zqx", "saw", "the", "game"],  # "zqx": once, and split into letter pieces
]


def _corpus(sentences: list[list[str]]) -> Corpus:
    return Corpus(task="ner", tokens=sentences, labels=[["O"] * len(s) for s in sentences])


@pytest.fixture
def make(tiny_bert_dir, tmp_path):
    def build(**options) -> DistilledEmbedding:
        options.setdefault("cache_dir", tmp_path / "cache")
        return make_embedding("distilled", model=tiny_bert_dir, **options)

    return build


def test_second_fit_runs_no_forward_pass(make) -> None:
    first = make()
    first.fit(_corpus(TRAIN))
    assert first.encoder.forward_calls > 0 and not first.fallback_cache_hit
    again = make()
    again.fit(_corpus(TRAIN))
    assert again.encoder.forward_calls == 0
    assert again.fallback_cache_hit and again.last_cache_hit
    assert again.encoder._model is None  # the encoder's weights were never even loaded
    a, b = first.featurize(_corpus(TRAIN)), again.featurize(_corpus(TRAIN))
    np.testing.assert_array_equal(a.vectors, b.vectors)


def test_reads_the_contextual_cache_without_a_corpus_pass(make, tiny_bert_dir, tmp_path) -> None:
    contextual = make_embedding(
        "contextual", model=tiny_bert_dir, cache_dir=tmp_path / "cache", pooling="mean"
    )
    contextual.featurize_layers(_corpus(TRAIN))
    distilled = make()
    distilled.fit(_corpus(TRAIN))
    assert distilled.last_cache_hit  # the occurrence vectors came from contextual's all-layer entry
    assert distilled.encoder.forward_calls == 1  # only the tokenizer vocabulary (one batch of 161 pieces)


def test_frequent_words_get_their_principal_component_and_rare_ones_model2vec(make, tiny_bert_dir) -> None:
    emb = make(min_count=3, layer=1)
    emb.fit(_corpus(TRAIN))
    assert set(emb.index) == {"the", "."}  # seen >= 3 times
    feats = emb.featurize(_corpus([["the", "zqx", "unseenword"]]))
    fallback = emb.fallback.encode(["zqx", "unseenword"])
    np.testing.assert_allclose(feats.vectors[1:], fallback, atol=1e-6)
    # "the": the PC of its occurrences at layer 1, read straight from transformers, then the table's transform
    from transformers import AutoModel, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(tiny_bert_dir), AutoModel.from_pretrained(tiny_bert_dir).eval()
    rows = []
    for sent in TRAIN:
        enc = tok([sent], is_split_into_words=True, return_tensors="pt")
        with torch.inference_mode():
            states = model(**enc, output_hidden_states=True).hidden_states[1][0].numpy()
        rows += [states[i] for i, w in enumerate(enc.word_ids(0)) if w is not None and sent[w] == "the"]
    _, pcs = principal_vectors(["the"] * len(rows), np.stack(rows), 1, 1000)
    weight = emb.fallback.sif[emb.fallback.piece_ids(["the"])[0]].mean()
    expected = emb.fallback.project(pcs, np.array([weight]))[0]
    np.testing.assert_allclose(feats.vectors[0], expected, atol=2e-2 * np.abs(expected).max())


def test_fallback_is_a_model2vec_static_model_of_each_piece_alone(make, tiny_bert_dir) -> None:
    from model2vec import StaticModel
    from transformers import AutoModel, AutoTokenizer

    emb = make(layer=2)
    emb.fit(_corpus(TRAIN))
    directory = emb.fallback_dir()
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    assert config["model_type"] == "model2vec" and config["advisor_layer"] == 2
    static = StaticModel.from_pretrained(directory, force_download=False)
    np.testing.assert_allclose(static.encode(["bank"]), emb.fallback.encode(["bank"]), atol=1e-6)
    tok, model = AutoTokenizer.from_pretrained(tiny_bert_dir), AutoModel.from_pretrained(tiny_bert_dir).eval()
    piece = tok.convert_tokens_to_ids("bank")
    with torch.inference_mode():
        state = model(torch.tensor([[tok.cls_token_id, piece, tok.sep_token_id]]), output_hidden_states=True)
    raw = state.hidden_states[2][0, 1].numpy()
    expected = emb.fallback.project(raw[None], emb.fallback.sif[[piece]])[0]
    np.testing.assert_allclose(static.embedding[piece], expected, atol=2e-3 + 1e-2 * np.abs(expected).max())


def test_principal_vectors_recover_a_planted_direction_aligned_to_the_mean() -> None:
    rng = np.random.default_rng(0)
    direction = rng.normal(size=16)
    direction /= np.linalg.norm(direction)
    scale = rng.uniform(1.0, 2.0, size=40)
    occurrences = -scale[:, None] * direction + 0.01 * rng.normal(
        size=(40, 16)
    )  # mean points along -direction
    words = ["w"] * 40 + ["rare"] * 2
    vectors = np.vstack([occurrences, rng.normal(size=(2, 16))])
    kept, pcs = principal_vectors(words, vectors, min_count=5, max_occurrences=1000)
    assert kept == ["w"]
    np.testing.assert_allclose(pcs[0] / np.linalg.norm(pcs[0]), -direction, atol=1e-2)
    assert np.linalg.norm(pcs[0]) == pytest.approx(scale.mean(), rel=1e-2)
    _, sampled = principal_vectors(words, vectors, min_count=5, max_occurrences=7)
    np.testing.assert_allclose(sampled[0] / np.linalg.norm(sampled[0]), -direction, atol=2e-2)


@pytest.mark.parametrize("n_rows", [3, 40])  # fewer and more occurrences than dimensions
def test_top_singular_vector_matches_a_full_svd(n_rows: int) -> None:
    block = np.random.default_rng(n_rows).normal(size=(n_rows, 16)) + 2.0
    expected = np.linalg.svd(block, full_matrices=False)[2][0]
    got = top_singular_vector(block)
    np.testing.assert_allclose(got * np.sign(got @ expected), expected, atol=1e-8)


def test_sif_weights_shrink_frequent_ranks_as_model2vec() -> None:
    weights = sif_weights(1000, 1e-4)
    assert np.all(np.diff(weights) > 0) and 0 < weights[0] < weights[-1] < 1


def test_pca_dims_reduce_the_width(make) -> None:
    emb = make(pca_dims=8)
    emb.fit(_corpus(TRAIN))
    assert emb.dim == 8 and emb.featurize(_corpus(TRAIN)).vectors.shape == (29, 8)
    assert emb.storage_bytes == (len(emb.index) + emb.fallback.model.embedding.shape[0]) * 8 * 2


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"layer": "mix"}, "E231"),
        ({"layer": "mean-last-2"}, "E231"),
        ({"layer": 5}, "E231"),
        ({"min_count": 0}, "E241"),
        ({"pca_dims": 999}, "E242"),
        ({"sif_coefficient": 1.5}, "E242"),
    ],
)
def test_bad_options_are_config_errors(make, options, code) -> None:
    with pytest.raises(ConfigError) as error:
        make(**options)
    assert error.value.code == code


def test_featurize_before_fit_is_an_error(make) -> None:
    with pytest.raises(RuntimeError, match="fit the distilled embedding"):
        make().featurize(_corpus(TRAIN))
