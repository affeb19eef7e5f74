from __future__ import annotations

import pytest

from advisor.embeddings import EMBEDDING_NAMES, Embedding, make_embedding
from advisor.errors import ConfigError
from advisor.registry import embeddings


def test_every_family_is_registered_with_its_family():
    assert set(EMBEDDING_NAMES) <= set(embeddings.names())
    for name in EMBEDDING_NAMES:
        assert embeddings.meta(name)["family"] == name
        assert issubclass(embeddings.get(name), Embedding)


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
