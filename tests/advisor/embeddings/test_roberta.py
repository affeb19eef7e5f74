"""A byte-level BPE encoder (RoBERTa family), built locally: pre-split words need a prefix space."""

from __future__ import annotations

import numpy as np

from advisor.data import Corpus
from advisor.embeddings import make_embedding


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
