"""Sentence pairs through the encoder (issue 32): both texts in one input with the encoder's own pair
template (joint, the default) or each text alone (separate); every word of each text keeps one row."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import ContextualEmbedding, make_embedding
from advisor.errors import ConfigError

A = ["the", "bank", "of", "the", "river"]
B = ["john", "visited", "paris", "yesterday"]  # "yesterday": letter pieces
C = ["mary", "likes", "the", "film", "."]
ATOL = 2e-2  # features are float16 (in memory) or int8 codes (the cache): tiny BERT's |x| < 4


def _pairs(*items: tuple[list[str], list[str]]) -> Corpus:
    return Corpus(
        task="pair",
        tokens=[a + b for a, b in items],
        labels=["x"] * len(items),
        pair_split=[len(a) for a, _ in items],
    )


def _rows(features, i: int) -> np.ndarray:
    start, end = features.offsets[i], features.offsets[i + 1]
    return np.asarray(features.vectors[start:end], dtype=np.float32)


@pytest.fixture
def make(tiny_bert_dir, tmp_path):
    def build(model=tiny_bert_dir, **options) -> ContextualEmbedding:
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("layer", "last")
        options.setdefault("use_cache", False)
        return make_embedding("contextual", model=model, **options)

    return build


def _reference(model_dir, a: list[str], b: list[str], pooling: str, segments: bool = True) -> np.ndarray:
    """Straight transformers: the tokenizer's pair template, last layer, pooled per word of a then b."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir, add_prefix_space=True)
    model = AutoModel.from_pretrained(model_dir).eval()
    enc = tok(a, b, is_split_into_words=True, return_tensors="pt")
    inputs = {k: v for k, v in enc.items() if segments or k != "token_type_ids"}
    with torch.inference_mode():
        states = model(**inputs).last_hidden_state[0].numpy()
    rows = []
    for side, words in enumerate((a, b)):
        for w in range(len(words)):
            pos = [
                i
                for i, (x, s) in enumerate(zip(enc.word_ids(0), enc.sequence_ids(0), strict=True))
                if x == w and s == side
            ]
            rows.append(states[pos[0]] if pooling == "first" else states[pos].mean(0))
    return np.stack(rows)


@pytest.mark.parametrize("pooling", ["first", "mean"])
def test_joint_reads_the_pair_template_with_segment_ids_one_row_per_word(make, tiny_bert_dir, pooling):
    emb = make(pooling=pooling)
    feats = emb.featurize(_pairs((A, B), (C, A)))
    assert feats.offsets.tolist() == [0, len(A + B), len(A + B + C + A)]
    np.testing.assert_allclose(_rows(feats, 0), _reference(tiny_bert_dir, A, B, pooling), atol=ATOL)
    np.testing.assert_allclose(_rows(feats, 1), _reference(tiny_bert_dir, C, A, pooling), atol=ATOL)
    # the segment ids reached the model: without them the second text's words read otherwise
    unsegmented = _reference(tiny_bert_dir, A, B, pooling, segments=False)
    assert np.abs(_rows(feats, 0)[len(A) :] - unsegmented[len(A) :]).max() > 0.3
    assert emb.describe()["pair_encoding"] == "joint" and emb.describe()["pair_overflow"] == 0


def test_the_second_text_changes_the_first_texts_vectors_only_when_joint(make, tiny_bert_dir):
    corpus = _pairs((A, B), (A, C))
    joint = make().featurize(corpus)
    assert np.abs(_rows(joint, 0)[: len(A)] - _rows(joint, 1)[: len(A)]).max() > 2e-3
    separate = make(pair_encoding="separate").featurize(corpus)
    np.testing.assert_array_equal(_rows(separate, 0)[: len(A)], _rows(separate, 1)[: len(A)])
    alone = make().featurize(Corpus(task="ner", tokens=[A, B], labels=[["O"] * len(A), ["O"] * len(B)]))
    np.testing.assert_array_equal(_rows(separate, 0), np.asarray(alone.vectors, dtype=np.float32))


def test_roberta_pairs_use_its_own_template_without_segment_ids(make, tiny_roberta_dir):
    a, b = ["the", "city"], ["the", "city", "of", "the", "city"]
    emb = make(model=tiny_roberta_dir, pooling="mean")
    feats = emb.featurize(_pairs((a, b)))
    assert len(feats.vectors) == len(a + b)
    np.testing.assert_allclose(_rows(feats, 0), _reference(tiny_roberta_dir, a, b, "mean"), atol=ATOL)
    enc = emb.tokenizer(a, b, is_split_into_words=True)
    pieces = emb.tokenizer.convert_ids_to_tokens(enc["input_ids"])
    assert pieces[:3] == ["<s>", "Ġthe", "Ġcity"] and pieces[3:5] == ["</s>", "</s>"] and pieces[-1] == "</s>"
    assert "token_type_ids" not in enc  # RoBERTa has one segment: none are passed


def test_a_pair_too_long_for_one_input_is_encoded_apart_and_counted(make):
    long_a, long_b = ["the", "city"] * 20, ["a", "bank"] * 60  # 40 + 120 pieces: b alone needs windows
    corpus = _pairs((long_a, long_b), (A, B))
    emb = make()
    feats = emb.featurize(corpus)
    assert feats.offsets.tolist() == [0, 160, 160 + len(A + B)]
    assert emb.last_pair_overflow == 1 and emb.describe()["pair_overflow"] == 1
    apart = make(pair_encoding="separate").featurize(corpus)
    np.testing.assert_allclose(_rows(feats, 0), _rows(apart, 0), atol=ATOL)  # never truncated
    assert np.abs(_rows(feats, 1) - _rows(apart, 1)).max() > 2e-3  # the short pair stays joint


def test_joint_and_separate_never_share_a_cache_entry(make, tmp_path):
    corpus = _pairs((A, B), (A, C))
    joint = make(use_cache=True, cache_dir=tmp_path / "c")
    separate = make(use_cache=True, cache_dir=tmp_path / "c", pair_encoding="separate")
    moved = _pairs((A[:2], A[2:] + B), (A, C))  # the same words, split elsewhere
    as_one = Corpus(task="classify", tokens=list(corpus.tokens), labels=["x", "x"])
    keys = {
        joint.cache_key(corpus),
        separate.cache_key(corpus),
        joint.cache_key(moved),
        joint.cache_key(as_one),
    }
    assert len(keys) == 4
    first = joint.featurize(corpus)
    other = separate.featurize(corpus)
    assert not joint.last_cache_hit and not separate.last_cache_hit
    assert np.abs(_rows(first, 0)[: len(A)] - _rows(other, 0)[: len(A)]).max() > 2e-3
    again = make(use_cache=True, cache_dir=tmp_path / "c", pair_encoding="joint")
    np.testing.assert_array_equal(np.asarray(again.featurize(corpus).vectors), np.asarray(first.vectors))
    assert again.last_cache_hit and again.forward_calls == 0


def test_the_layer_stack_of_pairs_is_cached_and_read_like_sentences(make, tmp_path):
    corpus = _pairs((A, B), (C, A))
    emb = make(use_cache=True, cache_dir=tmp_path / "c", layer="mix")
    stack = emb.featurize_layers(corpus)
    assert stack.n_layers == emb.n_layers + 1 and len(stack.vectors) == len(A + B + C + A)
    last = make().featurize(corpus)  # in memory, float16, last layer
    np.testing.assert_allclose(
        np.asarray(stack.layer(emb.n_layers).vectors, np.float32),
        np.asarray(last.vectors, np.float32),
        atol=ATOL,
    )
    assert make(use_cache=True, cache_dir=tmp_path / "c", layer="last").featurize(corpus).dim == emb.dim


def test_a_repeated_pair_is_encoded_once_but_the_same_words_split_elsewhere_are_not(make, monkeypatch):
    from advisor.embeddings import _encoding

    corpus = _pairs((A, B), (A, C), (A, B), (A[:2], A[2:] + B))
    unique, copies = _encoding._distinct_sentences(corpus.tokens, corpus.pair_split)
    assert unique.tolist() == [0, 1, 3] and copies == [(2, 0)]
    emb = make()
    encoded: list[int] = []
    real = emb._encode_windows
    monkeypatch.setattr(
        emb, "_encode_windows", lambda windows, *rest: (encoded.append(len(windows)), real(windows, *rest))
    )
    feats = emb.featurize(corpus)
    assert encoded == [3]  # one joint window per distinct pair
    np.testing.assert_array_equal(_rows(feats, 2), _rows(feats, 0))
    assert np.abs(_rows(feats, 3) - _rows(feats, 0)).max() > 2e-3


def test_an_unknown_pair_encoding_is_a_config_error(make):
    with pytest.raises(ConfigError, match="pair encoding") as info:
        make(pair_encoding="jointly")
    assert info.value.code == "E232"


def test_words_without_a_piece_keep_their_row_in_a_joint_pair(make):
    a, b = ["the", "", "bank"], ["\u200b", "river"]  # an empty and a zero-width word: no pieces
    feats = make().featurize(_pairs((a, b)))
    assert len(feats.vectors) == 5 and np.isfinite(np.asarray(feats.vectors, np.float32)).all()


def test_every_word_level_family_gives_a_pair_one_row_per_word(tiny_bert_dir, tiny_vectors_file, tmp_path):
    corpus = _pairs((A, B), (C, A), (A, C))
    words = len(A + B + C + A + A + C)
    for name, options in (
        ("random", {"dim": 8}),
        ("static", {"path": tiny_vectors_file}),
        ("distilled", {"model": tiny_bert_dir, "pair_encoding": "separate", "min_count": 1}),
    ):
        emb = make_embedding(name, cache_dir=tmp_path / "cache", **options)
        emb.fit(corpus)
        feats = emb.featurize(corpus)
        assert feats.offsets.tolist() == [0, len(A + B), len(A + B + C + A), words], name
        assert len(feats.vectors) == words and np.isfinite(np.asarray(feats.vectors, np.float32)).all(), name
