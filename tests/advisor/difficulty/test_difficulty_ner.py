"""NER difficulty metrics on hand-made corpora with hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor.data._corpus import Corpus
from advisor.difficulty import item_metrics
from advisor.errors import ConfigError, InputError
from advisor.registry import metrics

TRAIN = Corpus(
    "ner",
    [
        ["New", "York", "is", "big"],
        ["New", "York", "City", "rocks"],
        ["I", "love", "New", "York"],
        ["Apple", "sells", "apple", "pie"],
        ["John", "visited", "New", "York"],
    ],
    [
        ["B-loc", "I-loc", "O", "O"],
        ["B-loc", "I-loc", "I-loc", "O"],  # "New York" is only part of an entity here
        ["O", "O", "O", "O"],  # ... and outside any entity here
        ["B-org", "O", "O", "O"],
        ["B-per", "O", "B-loc", "I-loc"],
    ],
)
EVALUATION = Corpus(
    "ner",
    [["Mary", "loves", "New", "York"], ["Apple", "is", "New"], []],
    [["B-per", "O", "B-loc", "I-loc"], ["B-org", "O", "O"], []],
)


def test_entity_level_values_are_hand_computed() -> None:
    table = item_metrics(TRAIN, EVALUATION)
    assert list(table["text"]) == ["Mary", "New York", "Apple"]
    assert list(table["item"]) == [0, 0, 1]
    assert list(table["unit"]) == [0, 1, 2]
    assert list(table["gold"]) == ["per", "loc", "org"]
    assert list(table["ner_complexity"]) == [1, 2, 1]
    # "New York" in training: exact loc twice, part of "New York City" once, all-O once -> 3 labels.
    # "Mary" never occurs in training: not applicable (NaN), not "unambiguous".
    assert table["ner_ambiguity"].tolist()[1:] == [3, 1] and np.isnan(table["ner_ambiguity"][0])
    assert list(table["train_count"]) == [0, 4, 1]
    unseen = table["ner_unseen"].to_numpy()
    assert math.isinf(unseen[0]) and unseen[1] == pytest.approx(1 / 4) and unseen[2] == 1.0


def test_token_level_values_are_hand_computed() -> None:
    table = item_metrics(TRAIN, EVALUATION, level="token")
    assert list(table["text"]) == ["Mary", "loves", "New", "York", "Apple", "is", "New"]
    assert list(table["item"]) == [0, 0, 0, 0, 1, 1, 1]
    assert list(table["ner_complexity"]) == [1, 0, 2, 2, 1, 0, 0]
    # New: loc, O -> 2; York: loc, O -> 2; Apple: org -> 1 ("apple" is another token); is: O -> 1.
    assert table["ner_ambiguity"].tolist()[2:] == [2, 2, 1, 1, 2]
    assert np.isnan(table["ner_ambiguity"].to_numpy()[:2]).all()  # Mary, loves: unseen
    assert list(table["train_count"]) == [0, 0, 4, 4, 1, 1, 4]
    assert table["ner_unseen"].tolist()[2:] == [0.25, 0.25, 1.0, 1.0, 0.25]
    assert np.isinf(table["ner_unseen"].to_numpy()[:2]).all()


def test_sentence_level_takes_the_maximum_over_tokens() -> None:
    table = item_metrics(TRAIN, EVALUATION, level="sentence")
    assert list(table["ner_complexity"]) == [2, 1, 0]
    assert list(table["ner_ambiguity"]) == [2, 2, 0]
    assert (
        math.isinf(table["ner_unseen"][0]) and table["ner_unseen"][1] == 1.0 and table["ner_unseen"][2] == 0
    )
    assert list(table["n_unseen_tokens"]) == [2, 0, 0]
    assert list(table["n_tokens"]) == [4, 3, 0]


def test_metrics_are_registered_with_formula_and_meta() -> None:
    names = metrics.names(task="ner", kind="difficulty")
    assert names == ["ner_complexity", "ner_ambiguity", "ner_unseen"]
    for name in names:
        meta = metrics.meta(name)
        assert meta["higher_is_harder"] is True and meta["unit"]
        assert "=" in (metrics.get(name).__doc__ or "")


def test_bad_inputs_raise_user_errors() -> None:
    with pytest.raises(ConfigError):
        item_metrics(TRAIN, EVALUATION, level="paragraph")
    with pytest.raises(ConfigError):
        item_metrics(TRAIN, EVALUATION, names=["classify_unseen"])
    classification = Corpus("classify", [["a"]], ["x"])
    with pytest.raises(InputError):
        item_metrics(TRAIN, classification)
    with pytest.raises(InputError):
        item_metrics(Corpus("ner", [], []), EVALUATION)
