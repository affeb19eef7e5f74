"""A byte-level BPE encoder (RoBERTa family), built locally: pre-split words need a prefix space."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.embeddings import make_embedding


@pytest.fixture(scope="module")
def tiny_roberta_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import json

    import torch
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    path = tmp_path_factory.mktemp("tiny_roberta")
    # Byte-level alphabet plus a few merged words: no BPE training needed, still RoBERTa's scheme.
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", *sorted(ByteLevel.alphabet())]
    merges = ["Ġ t", "h e", "Ġt he", "c i", "t y", "Ġ ci", "Ġci ty"]
    pieces += [a + b for a, b in (m.split() for m in merges)]
    (path / "vocab.json").write_text(json.dumps({p: i for i, p in enumerate(pieces)}), encoding="utf-8")
    (path / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    tokenizer = RobertaTokenizer(vocab=str(path / "vocab.json"), merges=str(path / "merges.txt"))
    tokenizer.model_max_length = 32
    tokenizer.save_pretrained(path)
    config = RobertaConfig(
        vocab_size=len(pieces),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=34,  # RoBERTa positions start after the padding index
        pad_token_id=1,
    )
    torch.manual_seed(0)
    RobertaModel(config).save_pretrained(path)
    return path


def test_words_start_with_a_space_piece_and_long_sentences_window(tiny_roberta_dir, tmp_path):
    emb = make_embedding("contextual", model=tiny_roberta_dir, cache_dir=tmp_path)
    assert emb.tokenizer.add_prefix_space is True
    assert emb.max_length == 32
    pieces = emb.tokenizer.convert_ids_to_tokens(
        emb.tokenizer([["the", "city"]], is_split_into_words=True, add_special_tokens=False)["input_ids"][0]
    )
    assert pieces == ["Ġthe", "Ġcity"]  # word starts, as in running text
    words = ("the city of paris was good " * 12).split()
    feats = emb.featurize(Corpus(task="ner", tokens=[words], labels=[["O"] * len(words)]))
    assert len(feats.vectors) == len(words) and feats.dim == 16
    assert np.isfinite(feats.vectors).all()
