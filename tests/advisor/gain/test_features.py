"""Gain features come from training statistics alone and equal the difficulty metrics of advisor.difficulty."""

from __future__ import annotations

import json

import numpy as np
import pytest

from advisor.difficulty import item_metrics
from advisor.errors import ConfigError
from advisor.gain import NEVER_SEEN, TrainingStatistics, default_features, gain_features


def test_classify_features_equal_the_difficulty_metrics(planted_classify) -> None:
    train, evaluation, _ = planted_classify
    expected = item_metrics(train, evaluation, names=["classify_ambiguity", "classify_unseen"])
    table = gain_features(
        TrainingStatistics.from_corpus(train), evaluation.tokens, ["classify_ambiguity", "classify_unseen"]
    )
    assert len(table) == len(evaluation)
    np.testing.assert_allclose(table["classify_ambiguity"], expected["classify_ambiguity"], rtol=1e-12)
    np.testing.assert_allclose(table["classify_unseen"], expected["classify_unseen"], rtol=1e-12)
    assert (table["classify_unseen"] > 0).any() and (table["classify_unseen"] == 0).any()


def test_ner_token_features_equal_the_difficulty_metrics(planted_ner) -> None:
    train, evaluation, _ = planted_ner
    expected = item_metrics(train, evaluation, level="token", names=["ner_ambiguity", "ner_unseen"])
    table = gain_features(TrainingStatistics.from_corpus(train), evaluation.tokens)
    assert len(table) == evaluation.n_tokens
    assert list(table["text"]) == list(expected["text"])
    np.testing.assert_array_equal(table["ner_ambiguity"], expected["ner_ambiguity"])
    unseen = expected["ner_unseen"].to_numpy()
    np.testing.assert_array_equal(table["ner_unseen"], np.where(np.isinf(unseen), NEVER_SEEN, unseen))
    assert (table["ner_unseen"] == NEVER_SEEN).any()
    # Neighbour flags look at the next / previous token of the same sentence only.
    first = table[table["unit"] == 0]
    assert (first["prev_unseen"] == 0).all() and (first["is_first"] == 1).all()


def test_statistics_survive_json_and_give_identical_features(planted_classify) -> None:
    train, evaluation, _ = planted_classify
    statistics = TrainingStatistics.from_corpus(train)
    restored = TrainingStatistics.from_dict(json.loads(json.dumps(statistics.to_dict())))
    names = default_features("classify", parse=False)
    before = gain_features(statistics, evaluation.tokens, names)
    after = gain_features(restored, evaluation.tokens, names)
    np.testing.assert_array_equal(before[names].to_numpy(), after[names].to_numpy())


def test_unknown_feature_and_unreadable_statistics_are_config_errors(planted_ner) -> None:
    train, evaluation, _ = planted_ner
    statistics = TrainingStatistics.from_corpus(train)
    with pytest.raises(ConfigError, match="ner_complexity"):
        gain_features(statistics, evaluation.tokens, ["ner_complexity"])
    with pytest.raises(ConfigError, match="version"):
        TrainingStatistics.from_dict({**statistics.to_dict(), "version": 99})
