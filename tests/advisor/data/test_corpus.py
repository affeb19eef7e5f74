from __future__ import annotations

import pytest

from advisor._error_codes import E533, E534, E810, E811
from advisor.data import Corpus
from advisor.data._corpus import check_predictions
from advisor.errors import InputError

NER = Corpus(
    task="ner",
    tokens=[["John", "left"], ["Paris"]],
    labels=[["B-PER", "O"], ["B-LOC"]],
    source="test.conll",
    line_numbers=[1, 4],
)


def test_predictions_that_fit_pass() -> None:
    check_predictions([["O", "O"], ["O"]], NER, ("static", 2, 0), E533, E534)


@pytest.mark.parametrize(("wrong_count", "wrong_tags"), [(E533, E534), (E810, E811)])
def test_a_missing_item_and_a_short_sentence_name_the_callers_code_and_line(wrong_count, wrong_tags) -> None:
    with pytest.raises(InputError) as missing:
        check_predictions([["O", "O"]], NER, ("static", 2, 0), wrong_count, wrong_tags)
    assert missing.value.code == wrong_count.code and "have 1 items, the evaluation split has 2" in str(
        missing.value
    )
    with pytest.raises(InputError) as short:
        check_predictions([["O", "O"], []], NER, ("static", 2, 0), wrong_count, wrong_tags)
    assert short.value.code == wrong_tags.code and short.value.line == 4 and short.value.file == "test.conll"
    assert "sentence 1 has 0 tags for 1 tokens" in str(short.value)


def test_classification_predictions_are_only_counted() -> None:
    texts = Corpus(task="classify", tokens=[["a"], ["b"]], labels=["x", "y"])
    check_predictions(["x", "x"], texts, ("static", 2, 0), E533, E534)
    with pytest.raises(InputError):
        check_predictions(["x"], texts, ("static", 2, 0), E533, E534)


def test_a_task_the_data_does_not_have_names_the_callers_code() -> None:
    from advisor._error_codes import E536, E813
    from advisor.data._corpus import check_task
    from advisor.errors import ConfigError

    check_task("ner", NER, NER, E536)
    for mismatch in (E536, E813):
        with pytest.raises(ConfigError) as error:
            check_task("classify", NER, NER, mismatch)
        assert error.value.code == mismatch.code
        assert "task 'classify' does not match the data ('ner' / 'ner')" in str(error.value)
