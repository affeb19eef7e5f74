"""The run layout's names are fixed: existing stores are read by them."""

from __future__ import annotations

from advisor.tracking import (
    CHILD_KIND,
    KIND_TAG,
    LR_TAG,
    child_runs_filter,
    known_rates,
    predictions_artifact,
)


def test_child_runs_filter_names_the_parent_and_the_cell_kind():
    text = child_runs_filter("abc")
    assert "'abc'" in text and "advisor.kind` = 'curve'" in text
    assert (KIND_TAG, CHILD_KIND) == ("advisor.kind", "curve")


def test_predictions_and_learning_rates_keep_their_names():
    assert predictions_artifact(120) == "predictions/size_0000120.json"
    assert known_rates({f"{LR_TAG}static": "0.01", "advisor.task": "ner"}) == {"static": 0.01}
