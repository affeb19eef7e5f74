"""A sentence-embedding model is told apart from a masked-LM encoder by its files or its hub name."""

from __future__ import annotations

import json

from advisor.embeddings import is_sentence_embedding_model


def test_sentence_transformers_files_or_name_mark_a_sentence_embedding_model(tmp_path):
    (tmp_path / "modules.json").write_text(json.dumps([]))
    assert is_sentence_embedding_model(str(tmp_path)) and is_sentence_embedding_model(
        "sentence-transformers/x"
    )
    assert not is_sentence_embedding_model("bert-base-cased")


def test_a_model_name_too_long_for_the_file_system_is_not_an_error():
    assert is_sentence_embedding_model("org/" + "x" * 300) is False
    assert is_sentence_embedding_model("sentence-transformers/" + "y" * 300) is True
