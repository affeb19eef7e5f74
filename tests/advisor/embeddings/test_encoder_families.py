"""Six encoder families of the literature, built tiny and offline, through the contextual featurizer.

BERT and DistilBERT (WordPiece), RoBERTa and GPT-2 (byte-level BPE; GPT-2 is causal and has no pad
token), ALBERT and XLNet (sentencepiece-style Unigram; XLNet puts its special tokens last and pads
on the left). Each must give exactly one vector per word, pooled from that word's pieces as
``word_ids()`` says, the same whether a sentence is encoded alone or padded in a batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import make_embedding
from tests.helpers import TINY_WORDS, assert_within_int8_step, build_tiny_bert

LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
#: "cityscape" and "wonderful" are not in any tiny vocabulary: they split into several pieces.
SENTENCE = ["the", "cityscape", "of", "paris", "was", "wonderful"]
LONGER = ["john", "visited", "the", "bank", "of", "the", "river", "in", "london", "with", "mary", "."]
ATOL = 2e-3  # in memory (use_cache=False) features are float16 (about 3 significant digits)


def _unigram_vocab(specials: list[str]) -> list[tuple[str, float]]:
    """A sentencepiece-style Unigram vocabulary: whole tiny words, then letters to spell the rest."""
    pieces = [(s, 0.0) for s in specials]
    pieces += [("▁" + w, -2.0) for w in sorted(set(TINY_WORDS))] + [("▁", -3.0)]
    return pieces + [(c, -5.0) for c in LETTERS] + [("▁" + c, -5.5) for c in LETTERS]


def _byte_level_files(path: Path, specials: list[str]) -> tuple[Path, Path, int]:
    """Byte-level BPE files (RoBERTa / GPT-2 scheme): the byte alphabet plus a few merged words."""
    from tokenizers.pre_tokenizers import ByteLevel

    merges = ["Ġ t", "h e", "Ġt he", "c i", "t y", "Ġ ci", "Ġci ty", "Ġ o", "Ġo f"]
    pieces = [*specials, *sorted(ByteLevel.alphabet())]
    pieces += [a + b for a, b in (m.split() for m in merges)]
    vocab, merges_file = path / "vocab.json", path / "merges.txt"
    vocab.write_text(json.dumps({p: i for i, p in enumerate(pieces)}), encoding="utf-8")
    merges_file.write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    return vocab, merges_file, len(pieces)


def _save(path: Path, tokenizer, model_cls, config) -> Path:
    tokenizer.model_max_length = 64
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    model_cls(config).save_pretrained(path)
    return path


def _roberta(path: Path) -> Path:
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    vocab, merges, n = _byte_level_files(path, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    config = RobertaConfig(
        vocab_size=n,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=66,
        pad_token_id=1,
    )
    return _save(path, RobertaTokenizer(vocab=str(vocab), merges=str(merges)), RobertaModel, config)


def _gpt2(path: Path) -> Path:
    from transformers import GPT2Config, GPT2Model, GPT2Tokenizer

    vocab, merges, n = _byte_level_files(path, ["<|endoftext|>"])
    config = GPT2Config(vocab_size=n, n_embd=32, n_layer=2, n_head=2, n_positions=64)
    tokenizer = GPT2Tokenizer(vocab=str(vocab), merges=str(merges))
    assert tokenizer.pad_token is None  # as released: GPT-2 has no pad token
    return _save(path, tokenizer, GPT2Model, config)


def _albert(path: Path) -> Path:
    from transformers import AlbertConfig, AlbertModel, AlbertTokenizer

    vocab = _unigram_vocab(["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"])
    config = AlbertConfig(
        vocab_size=len(vocab),
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    return _save(path, AlbertTokenizer(vocab=vocab), AlbertModel, config)


def _xlnet(path: Path) -> Path:
    from transformers import XLNetConfig, XLNetModel, XLNetTokenizer

    vocab = _unigram_vocab(["<unk>", "<s>", "</s>", "<cls>", "<sep>", "<pad>", "<mask>"])
    config = XLNetConfig(vocab_size=len(vocab), d_model=32, n_layer=2, n_head=2, d_inner=64, pad_token_id=5)
    return _save(path, XLNetTokenizer(vocab=vocab), XLNetModel, config)


def _distilbert(path: Path) -> Path:
    from transformers import DistilBertConfig, DistilBertModel, DistilBertTokenizer

    bert = build_tiny_bert(path / "_bert")  # reuse its WordPiece vocabulary
    pieces = (bert / "vocab.txt").read_text(encoding="utf-8").split()
    tokenizer = DistilBertTokenizer(vocab={p: i for i, p in enumerate(pieces)}, do_lower_case=True)
    config = DistilBertConfig(
        vocab_size=tokenizer.vocab_size,
        dim=32,
        n_layers=2,
        n_heads=2,
        hidden_dim=64,
        max_position_embeddings=64,
    )
    return _save(path, tokenizer, DistilBertModel, config)


BUILDERS: dict[str, Callable[[Path], Path]] = {
    "bert": build_tiny_bert,
    "roberta": _roberta,
    "gpt2": _gpt2,
    "albert": _albert,
    "xlnet": _xlnet,
    "distilbert": _distilbert,
}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def encoder(request, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    name = request.param
    return name, BUILDERS[name](tmp_path_factory.mktemp(f"tiny_{name}"))


def _corpus(*sentences: list[str]) -> Corpus:
    return Corpus(task="ner", tokens=list(sentences), labels=[["O"] * len(s) for s in sentences])


def _reference(directory: Path, words: list[str]) -> np.ndarray:
    """Straight transformers, one sentence, no padding: every layer, mean of each word's pieces."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory, add_prefix_space=True)
    model = AutoModel.from_pretrained(directory).eval()
    enc = tokenizer([words], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        states = model(
            input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], output_hidden_states=True
        ).hidden_states
    stack = torch.stack(states, dim=2)[0].numpy()  # (pieces, layers, dim)
    word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(0)])
    return np.stack([stack[word_ids == w].mean(axis=0) for w in range(len(words))])


def test_the_sentence_has_sub_word_splits(encoder):
    name, directory = encoder
    emb = make_embedding("contextual", model=directory, use_cache=False)
    pieces = emb.tokenizer([SENTENCE], is_split_into_words=True, add_special_tokens=False).word_ids(0)
    counts = np.bincount(np.asarray(pieces), minlength=len(SENTENCE))
    assert counts.min() >= 1 and counts.max() > 1, f"{name}: the test sentence must split some word"


@pytest.mark.parametrize("layer", ["last", "mix"])
def test_one_vector_per_word_pooled_as_word_ids_say(encoder, layer, tmp_path):
    name, directory = encoder
    emb = make_embedding("contextual", model=directory, layer=layer, pooling="mean", cache_dir=tmp_path)
    feats = emb.featurize(_corpus(SENTENCE))
    expected = _reference(directory, SENTENCE)  # (words, layers, dim)
    assert feats.vectors.shape[0] == len(SENTENCE), name
    got = np.asarray(feats.vectors, dtype=np.float32)
    # The cache stores int8 codes: each (word, layer) vector within half a step of its max|x| / 127.
    assert_within_int8_step(got, expected if layer == "mix" else expected[:, -1])


def test_padding_in_a_batch_changes_no_vector(encoder):
    """Sentences of different lengths share a padded batch: each gets the vectors it gets alone."""
    name, directory = encoder
    emb = make_embedding("contextual", model=directory, layer="mix", use_cache=False)
    short = ["the", "film"]
    batched = np.asarray(emb.featurize(_corpus(SENTENCE, short, LONGER)).vectors, dtype=np.float32)
    start = 0
    for words in (SENTENCE, short, LONGER):
        alone = np.asarray(emb.featurize(_corpus(words)).vectors, dtype=np.float32)
        got = batched[start : start + len(words)]
        np.testing.assert_allclose(got, alone, atol=ATOL, rtol=ATOL, err_msg=f"{name}: {words}")
        start += len(words)


def test_gpt2_sees_left_context_only(encoder):
    """Causal: a word's vector depends on the words before it, never on those after it."""
    name, directory = encoder
    emb = make_embedding("contextual", model=directory, layer="last", use_cache=False)
    a = np.asarray(emb.featurize(_corpus(["the", "bank", "of", "the", "river"])).vectors, dtype=np.float32)
    b = np.asarray(emb.featurize(_corpus(["the", "bank", "of", "a", "film"])).vectors, dtype=np.float32)
    if name == "gpt2":
        np.testing.assert_allclose(a[:3], b[:3], atol=1e-3)
    else:
        assert not np.allclose(a[:3], b[:3], atol=1e-3), f"{name} is bidirectional"
    assert not np.allclose(a[3:], b[3:], atol=1e-3)
