from __future__ import annotations

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import ContextualEmbedding, QuantizedStack, make_embedding
from advisor.errors import ConfigError
from tests.helpers import assert_within_int8_step

ATOL = 2e-2  # the cache stores int8 codes: within half a step of max|x| / 127 (tiny BERT: |x| < 4)


def _corpus(sentences: list[list[str]]) -> Corpus:
    return Corpus(task="ner", tokens=sentences, labels=[["O"] * len(s) for s in sentences])


SENTENCES = [
    ["John", "visited", "Paris", "yesterday"],  # "yesterday" splits into letter pieces
    [],
    ["the", "bank", "of", "the", "river", "."],
    ["Mary", "likes", "zqx", "", "\u200b", "film"],  # an empty and a zero-width word: no pieces
    ["a"],
]


@pytest.fixture(scope="module")
def plain_bert(tiny_bert_dir):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_bert_dir), AutoModel.from_pretrained(tiny_bert_dir).eval()


def _reference(plain_bert, words: list[str], pooling: str, layer) -> np.ndarray:
    """Straight transformers: one sentence, no batching, no windows, pooled by word_ids()."""
    tok, model = plain_bert
    enc = tok([words], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        out = model(**enc, output_hidden_states=True)
    states = (
        out.hidden_states[layer] if isinstance(layer, int) else torch.stack(out.hidden_states[-2:]).mean(0)
    )
    states = states[0].numpy()
    word_ids = enc.word_ids(0)
    rows = []
    for w in range(len(words)):
        pos = [i for i, x in enumerate(word_ids) if x == w]
        rows.append(states[pos[0]] if pooling == "first" else states[pos].mean(0))
    return np.stack(rows)


@pytest.fixture
def make(tiny_bert_dir, tmp_path):
    def build(**options) -> ContextualEmbedding:
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("layer", "last")  # 2-D features; the layer stack has its own tests
        return make_embedding("contextual", model=tiny_bert_dir, **options)

    return build


def test_one_row_per_word_read_from_int8_codes(make):
    emb = make()
    feats = emb.featurize(_corpus(SENTENCES))
    assert emb.dim == 32 and feats.dim == 32
    assert isinstance(feats.vectors, QuantizedStack) and feats.vectors.codes.dtype == np.int8
    assert feats.vectors.dtype == np.float32 and feats.vectors.shape == (17, 32)
    assert feats.lengths().tolist() == [len(s) for s in SENTENCES]
    assert np.isfinite(feats.vectors).all()
    assert (np.abs(np.asarray(feats.vectors, dtype=np.float32)).sum(axis=1) > 0).all()  # every row written


@pytest.mark.parametrize("pooling", ["first", "mean"])
@pytest.mark.parametrize("layer,index", [("last", -1), (0, 0), ("1", 1), ("mean-last-2", "mean2")])
def test_pooling_and_layer_match_plain_transformers(make, plain_bert, pooling, layer, index):
    emb = make(pooling=pooling, layer=layer, batch_size=2)
    feats = emb.featurize(_corpus(SENTENCES))
    for i in (0, 2):
        expected = _reference(plain_bert, SENTENCES[i], pooling, index)
        np.testing.assert_allclose(np.asarray(feats.item(i), dtype=np.float32), expected, atol=ATOL)


def test_first_and_mean_differ_only_for_split_words(make):
    first = make(pooling="first").featurize(_corpus([SENTENCES[0]])).vectors
    mean = make(pooling="mean").featurize(_corpus([SENTENCES[0]])).vectors
    np.testing.assert_array_equal(first[:3], mean[:3])  # one-piece words
    assert not np.allclose(first[3], mean[3], atol=ATOL)  # "yesterday" has several pieces


def test_batching_and_sorting_restore_order(make):
    corpus = _corpus(SENTENCES)
    together = make(batch_size=2, use_cache=False).featurize(corpus)
    alone = make(use_cache=False)
    for i, sentence in enumerate(SENTENCES):
        np.testing.assert_allclose(
            np.asarray(together.item(i), np.float32),
            np.asarray(alone.featurize(_corpus([sentence])).vectors, np.float32),
            atol=ATOL,
        )


def test_long_sentence_uses_overlapping_windows(make):
    words = [f"{w}" for w in ("the city of paris was good " * 30).split()][:150]  # one piece each
    emb = make()
    assert emb.max_length == 64 and emb.window_overlap == 31  # 62 word pieces + [CLS] + [SEP]
    feats = emb.featurize(_corpus([words]))
    assert len(feats.vectors) == 150 and emb.forward_calls == 1  # 4 windows in one batch
    rows = np.asarray(feats.vectors, np.float32)
    # Window 0 is words[0:62]; it owns the pieces up to 62 - 16 = 46.
    head = np.asarray(make().featurize(_corpus([words[:62]])).vectors, np.float32)
    np.testing.assert_allclose(rows[:46], head[:46], atol=ATOL)
    assert not np.allclose(rows[46:62], head[46:62], atol=ATOL)  # taken from the next window instead
    # The last window starts at 93 and owns from 93 + 15 = 108 to the end.
    tail = np.asarray(make().featurize(_corpus([words[93:]])).vectors, np.float32)
    np.testing.assert_allclose(rows[108:], tail[15:], atol=ATOL)


def test_words_split_across_windows_are_pooled_whole(make, plain_bert):
    words = ["yesterday", "the", "xylophone", "of", "paris", "quickly"] * 4  # many multi-piece words
    windowed = make(max_length=8, window_overlap=3, pooling="mean").featurize(_corpus([words]))
    assert len(windowed.vectors) == len(words)
    assert np.isfinite(windowed.vectors).all()
    assert (np.abs(np.asarray(windowed.vectors, np.float32)).sum(axis=1) > 0).all()
    # With a window wide enough for everything the windowed code path is the plain one.
    wide = make(max_length=64, pooling="mean").featurize(_corpus([words[:6]]))
    np.testing.assert_allclose(
        np.asarray(wide.vectors, np.float32), _reference(plain_bert, words[:6], "mean", -1), atol=ATOL
    )


def test_repeated_sentences_are_encoded_once(make):
    sentences = [["the", "bank"], ["a", "film"], ["the", "bank"], ["the", "bank"]]
    emb = make(batch_size=1, use_cache=False)
    feats = emb.featurize(_corpus(sentences))
    assert emb.forward_calls == 2
    np.testing.assert_array_equal(feats.item(2), feats.item(0))
    np.testing.assert_array_equal(feats.item(3), feats.item(0))
    assert not np.array_equal(feats.item(1), feats.item(0))


def test_bfloat16_is_close_to_float32_and_cached_apart(make):
    corpus = _corpus(SENTENCES)
    exact = make()
    fast = make(dtype="bfloat16")
    assert fast.describe()["dtype"] == "bfloat16" and fast.cache_key(corpus) != exact.cache_key(corpus)
    a = np.asarray(exact.featurize(corpus).vectors, np.float32)
    b = np.asarray(fast.featurize(corpus).vectors, np.float32)
    relative = np.linalg.norm(a - b, axis=1) / np.linalg.norm(a, axis=1)
    assert 0 < relative.mean() < 0.05


def test_second_featurize_is_a_cache_hit_without_model(make, monkeypatch):
    corpus = _corpus(SENTENCES)
    first = make()
    computed = first.featurize(corpus)
    assert not first.last_cache_hit and first.forward_calls > 0

    import transformers

    def no_model(*args, **kwargs):
        raise AssertionError("the model must not be loaded on a cache hit")

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", no_model)
    again = make()
    cached = again.featurize(corpus)
    assert again.last_cache_hit and again.forward_calls == 0 and again._model is None
    assert isinstance(cached.vectors.codes, np.memmap) and isinstance(cached.vectors.scales, np.memmap)
    np.testing.assert_array_equal(cached.vectors, computed.vectors)
    np.testing.assert_array_equal(cached.offsets, computed.offsets)
    # Same words with other labels share the entry; other settings do not.
    relabelled = Corpus(task="ner", tokens=corpus.tokens, labels=[["B-X"] * len(s) for s in corpus.tokens])
    assert again.cache_key(relabelled) == again.cache_key(corpus)
    assert make(pooling="first").cache_key(corpus) != again.cache_key(corpus)
    assert make(layer=1).cache_key(corpus) == again.cache_key(corpus)  # every layer choice reads one entry
    assert make(window_overlap=10).cache_key(corpus) != again.cache_key(corpus)


def test_interrupted_featurize_leaves_no_cache_entry(make, tmp_path, monkeypatch):
    corpus = _corpus(SENTENCES)
    emb = make(batch_size=1)

    def explode(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ContextualEmbedding, "_scatter", staticmethod(explode))
    with pytest.raises(KeyboardInterrupt):
        emb.featurize(corpus)
    assert list((tmp_path / "cache").iterdir()) == []  # neither an entry nor a temporary directory
    monkeypatch.undo()
    again = make()
    again.featurize(corpus)
    assert not again.last_cache_hit and again.forward_calls > 0


def test_describe_is_flat_and_complete(make, tiny_bert_dir):
    emb = make(layer="mean-last-2", pooling="first")
    params = emb.describe()
    assert all(isinstance(v, str | int | float) for v in params.values())
    assert params["family"] == "contextual" and params["model"] == str(tiny_bert_dir.resolve())
    assert params["layer"] == "mean-last-2" and params["pooling"] == "first" and params["dim"] == 32
    assert str(params["model_id"]).startswith("local:")
    weights = sum(p.stat().st_size for p in tiny_bert_dir.glob("*.safetensors"))
    assert emb.storage_bytes == weights > 0


@pytest.mark.parametrize(
    "options,match",
    [
        ({"pooling": "max"}, "pooling"),
        ({"layer": 3}, "out of range"),
        ({"layer": "mean-last-9"}, "out of range"),
        ({"layer": "top"}, "unknown layer"),
        ({"device": "gpu7"}, "device"),
        ({"batch_size": 0}, "batch_size"),
        ({"dtype": "int8"}, "dtype"),
        ({"window_overlap": 62}, "window_overlap"),
    ],
)
def test_bad_options_are_config_errors(make, options, match):
    with pytest.raises(ConfigError, match=match):
        make(**options)


def test_hub_name_offline_is_a_config_error_with_hint(tmp_path):
    with pytest.raises(ConfigError) as info:
        make_embedding("contextual", model="no-such-org/no-such-model-xyz", cache_dir=tmp_path)
    assert "no-such-org/no-such-model-xyz" in str(info.value) and "hint" in str(info.value)


def test_repeats_are_found_through_hashes_and_a_collision_is_encoded_apart(monkeypatch):
    from advisor.embeddings import _encoding

    sentences = [["a"], ["b"], ["a"], [], ["c", "d"], ["b"], []]
    unique, copies = _encoding._distinct_sentences(sentences)
    assert unique.tolist() == [0, 1, 3, 4] and sorted(copies) == [(2, 0), (5, 1), (6, 3)]
    monkeypatch.setattr(_encoding, "hash", lambda _: 7, raising=False)  # every sentence collides
    unique, copies = _encoding._distinct_sentences(sentences)
    assert copies == [(2, 0)]  # only a true repeat of the first sentence is copied
    assert unique.tolist() == [0, 1, 3, 4, 5, 6]  # the others are encoded, never given another's rows


def test_chunks_and_page_releases_give_the_rows_of_one_pass(make, monkeypatch, tmp_path):
    """Small chunks (chunk-local pending counts), repeats across chunks, and the cache's written
    pages released after every batch: the same rows as one in-memory pass."""
    from advisor.embeddings import _encoding

    sentences = [*SENTENCES, SENTENCES[0], ["x"] * 700, SENTENCES[2]]  # a repeat, a multi-window sentence
    whole = np.asarray(make(use_cache=False).featurize(_corpus(sentences)).vectors, np.float32)
    released: list[int] = []
    real_release = _encoding.release_pages
    monkeypatch.setattr(_encoding, "_ENCODE_CHUNK", 2)
    monkeypatch.setattr(_encoding, "_RELEASE_BYTES", 1)
    monkeypatch.setattr(_encoding, "release_pages", lambda a: (released.append(1), real_release(a)))
    chunked = make(cache_dir=tmp_path / "chunked", batch_size=2).featurize(_corpus(sentences))
    assert_within_int8_step(chunked.vectors, whole)
    assert len(released) > 4  # after batches, after each chunk's writes, and at the end


def test_written_pages_are_released_by_bytes_across_chunks(make, monkeypatch, tmp_path):
    """One-sentence chunks of 2 words, a budget of 3 rows: releases come from the running total."""
    from advisor.embeddings import _encoding

    sentences = [["the", "bank"], ["a", "film"], ["the", "river"], ["he", "went"], ["she", "saw"], ["a", "b"]]
    emb = make(cache_dir=tmp_path / "c", layer="mix")
    row_bytes = (emb.n_layers + 1) * (emb.dim + 2)  # int8 codes and a float16 scale per layer
    released: list[int] = []
    monkeypatch.setattr(_encoding, "_ENCODE_CHUNK", 1)
    monkeypatch.setattr(_encoding, "_RELEASE_BYTES", 3 * row_bytes)
    monkeypatch.setattr(_encoding, "release_pages", lambda a: released.append(len(a)))
    emb.featurize(_corpus(sentences))
    assert len(released) == 3 + 1  # at 4 rows written (the budget passed), three times; then at the end


def test_a_cache_hit_reports_what_the_raw_text_pass_cost(make):
    """Costs must not change with cache state: a hit reports the seconds recorded when computed."""
    corpus = _corpus(SENTENCES)
    first = make()
    first.featurize(corpus)
    assert not first.last_cache_hit and first.last_encode_seconds > 0
    again = make()
    again.featurize(corpus)
    assert again.last_cache_hit
    assert again.last_encode_seconds == pytest.approx(first.last_encode_seconds, rel=1e-9)
    assert again.last_featurize_seconds < again.last_encode_seconds + 1.0  # the hit itself is cheap
