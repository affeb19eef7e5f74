"""The all-layer cache: every hidden layer stored once, every ``layer`` choice read from it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import ContextualEmbedding, QuantizedStack, make_embedding
from tests.helpers import assert_within_int8_step

ATOL = 2e-2  # the cache stores int8 codes: within half a step of max|x| / 127 (tiny BERT: |x| < 4)

SENTENCES = [
    ["John", "visited", "Paris", "yesterday"],
    [],
    ["the", "bank", "of", "the", "river", "."],
    ["a"],
]


def _corpus() -> Corpus:
    return Corpus(task="ner", tokens=SENTENCES, labels=[["O"] * len(s) for s in SENTENCES])


@pytest.fixture
def make(tiny_bert_dir, tmp_path):
    def build(**options) -> ContextualEmbedding:
        options.setdefault("cache_dir", tmp_path / "cache")
        return make_embedding("contextual", model=tiny_bert_dir, pooling="mean", **options)

    return build


def _reference_states(tiny_bert_dir, words: list[str]) -> np.ndarray:
    """(words, layers, dim) mean-pooled with plain transformers, one sentence at a time."""
    from transformers import AutoModel, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(tiny_bert_dir), AutoModel.from_pretrained(tiny_bert_dir).eval()
    enc = tok([words], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        states = torch.stack(model(**enc, output_hidden_states=True).hidden_states, dim=2)[0].numpy()
    word_ids = enc.word_ids(0)
    return np.stack(
        [states[[i for i, x in enumerate(word_ids) if x == w]].mean(0) for w in range(len(words))]
    )


def test_mix_is_the_default_and_returns_every_layer(make, tiny_bert_dir):
    emb = make()
    feats = emb.featurize(_corpus())
    assert emb.layer.text == "mix" and feats.vectors.shape == (11, 3, 32) and feats.n_layers == 3
    assert isinstance(feats.vectors, QuantizedStack) and feats.vectors.codes.dtype == np.int8
    assert feats.vectors.dtype == np.float32 and feats.dim == 32  # dequantized as it is read
    expected = _reference_states(tiny_bert_dir, SENTENCES[2])
    assert_within_int8_step(feats.item(2), expected)


def test_all_layers_are_written_once_and_every_choice_reads_them_without_the_model(
    make, tmp_path, monkeypatch
):
    corpus = _corpus()
    first = make(layer="mix")
    stack = first.featurize(corpus)
    assert first.forward_calls > 0 and not first.last_cache_hit
    entries = [p for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]
    assert len(entries) == 1
    assert json.loads((entries[0] / "meta.json").read_text())["n_layers"] == 3

    import transformers

    def no_model(*args, **kwargs):
        raise AssertionError("the model must not be loaded when the layer stack is cached")

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", no_model)
    full = np.asarray(stack.vectors, np.float32)
    for layer, expected in [
        ("last", full[:, 2]),
        (0, full[:, 0]),
        ("1", full[:, 1]),
        ("mean-last-2", full[:, 1:].mean(1)),
    ]:
        emb = make(layer=layer)
        feats = emb.featurize(corpus)
        assert emb.forward_calls == 0 and emb._model is None and emb.last_cache_hit
        assert feats.vectors.ndim == 2
        np.testing.assert_allclose(np.asarray(feats.vectors, np.float32), expected, atol=1e-3)
    again = make(layer="mix")
    np.testing.assert_array_equal(again.featurize(corpus).vectors, stack.vectors)
    assert again.forward_calls == 0
    # No choice writes an entry of its own: one layer or a mean of several is a view of the stack.
    assert len([p for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]) == 1


def test_a_mean_of_layers_is_computed_per_gather_from_the_codes(make):
    corpus = _corpus()
    stack = np.asarray(make().featurize(corpus).vectors, np.float32)
    reduced = make(layer="mean-last-2").featurize(corpus)
    assert isinstance(reduced.vectors, QuantizedStack) and isinstance(reduced.vectors.codes, np.memmap)
    assert reduced.vectors.shape == (11, 32) and reduced.dim == 32
    rows = np.array([[10, 0], [4, 4]])  # a padded batch's gather, rows in any order and repeated
    np.testing.assert_allclose(reduced.vectors[rows], stack[:, 1:].mean(1)[rows], rtol=1e-6, atol=1e-7)


def test_without_cache_the_same_values_in_memory(make):
    corpus = _corpus()
    cached = make().featurize(corpus)
    plain_stack = make(use_cache=False).featurize(corpus).vectors
    assert isinstance(plain_stack, np.ndarray) and plain_stack.dtype == np.float16  # in memory: no codes
    assert_within_int8_step(cached.vectors, plain_stack)
    full = np.asarray(plain_stack, np.float32)
    for layer, expected in [("last", full[:, 2]), ("mean-last-2", full[:, 1:].mean(1))]:
        plain = make(layer=layer, use_cache=False).featurize(corpus)
        np.testing.assert_allclose(np.asarray(plain.vectors, np.float32), expected, atol=1e-3)


def test_chunked_encoding_gives_the_same_rows_and_progress_ends_at_the_total(make, monkeypatch):
    from advisor.embeddings import _encoding

    corpus = _corpus()
    whole = np.asarray(make(use_cache=False).featurize(corpus).vectors, np.float32)
    monkeypatch.setattr(_encoding, "_ENCODE_CHUNK", 1)  # one sentence per chunk
    emb = make(use_cache=False)
    calls: list[tuple[int, int]] = []
    emb.on_progress = lambda done, total: calls.append((done, total))
    chunked = np.asarray(emb.featurize(corpus).vectors, np.float32)
    np.testing.assert_allclose(chunked, whole, atol=1e-3)
    assert calls[-1] == (4, 4) and [d for d, _ in calls] == sorted(d for d, _ in calls)
