from __future__ import annotations

import pytest

from advisor.embeddings import EMBEDDING_NAMES, Embedding, embedding_choices, make_embedding
from advisor.errors import ConfigError
from advisor.registry import embeddings
from advisor.vocabulary import PAPER_FAMILIES, ordered


def test_every_family_is_registered_with_its_family():
    assert set(EMBEDDING_NAMES) <= set(embeddings.names())
    for name in EMBEDDING_NAMES:
        assert embeddings.meta(name)["family"] == name
        assert issubclass(embeddings.get(name), Embedding)


def test_every_registered_embedding_is_a_choice_and_the_paper_families_are_registered():
    assert set(PAPER_FAMILIES) <= set(embedding_choices())
    assert embedding_choices() == ordered(embeddings.names())


def test_unknown_option_names_the_allowed_ones():
    with pytest.raises(ConfigError) as info:
        make_embedding("random", dimension=10)
    text = str(info.value)
    assert "dimension" in text
    assert "dim" in text and "seed" in text and "target_norm" in text


def test_unknown_name_lists_choices():
    with pytest.raises(ConfigError) as info:
        make_embedding("elmo")
    assert "contextual" in str(info.value)


def test_flags_given_as_text_mean_what_they_say():
    assert make_embedding("random", lowercase="false", target_norm=1.0).lowercase is False
    assert make_embedding("random", lowercase="yes", target_norm=1.0).lowercase is True
    with pytest.raises(ConfigError, match="lowercase"):
        make_embedding("random", lowercase="maybe")
