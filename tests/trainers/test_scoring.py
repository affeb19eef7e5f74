"""The headline metric comes from the caller's task spec; without one, the task's default."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import FAST, planted_classify
from trainers import (
    TaskScoring,
    TrainConfig,
    classification_scores,
    default_primary,
    fit_and_evaluate,
    ner_scores,
)
from trainers._errors import ConfigError

GOLD_TAGS = [["B-PER", "I-PER", "O"], ["O", "B-LOC"]]
PRED_TAGS = [["B-PER", "O", "O"], ["O", "B-LOC"]]


def test_the_default_headline_is_entity_f1_for_ner_and_accuracy_otherwise() -> None:
    assert default_primary("ner") == "f1"
    assert default_primary("classify") == "accuracy"


def test_a_pair_task_is_scored_like_a_text() -> None:
    assert default_primary("pair") == "accuracy"
    gold, pred = ["same", "different", "same"], ["same", "same", "same"]
    assert TaskScoring("pair", "accuracy").scores(gold, pred) == classification_scores(gold, pred)
    assert (
        TaskScoring("pair", "macro_f1").dev_scorer(gold)(pred)
        == classification_scores(gold, pred)["macro_f1"]
    )
    with pytest.raises(ConfigError, match="for task 'pair'"):
        TaskScoring("pair", "f1")


def test_a_headline_the_task_does_not_score_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="primary_metric"):
        TaskScoring("ner", "accuracy")


def test_the_dev_scorer_reads_the_headline_of_the_full_scores() -> None:
    assert TaskScoring("ner", "f1").dev_scorer(GOLD_TAGS)(PRED_TAGS) == ner_scores(GOLD_TAGS, PRED_TAGS)["f1"]
    recall = TaskScoring("ner", "recall").dev_scorer(GOLD_TAGS)(PRED_TAGS)
    assert recall == ner_scores(GOLD_TAGS, PRED_TAGS)["recall"]
    gold, pred = ["a", "b", "b"], ["a", "a", "b"]
    macro = TaskScoring("classify", "macro_f1").dev_scorer(gold)(pred)
    assert macro == classification_scores(gold, pred)["macro_f1"]


def test_an_empty_evaluation_set_scores_zero_on_the_headline() -> None:
    assert TaskScoring("classify", "macro_f1").scores([], []) == {"macro_f1": 0.0}


def test_fit_and_evaluate_reports_the_callers_headline_and_keeps_the_default() -> None:
    (tf, tc), (df, dc), (ef, ec) = planted_classify(120, 0), planted_classify(40, 1), planted_classify(40, 2)
    config = TrainConfig(**FAST)
    default = fit_and_evaluate(tf, tc, df, dc, ef, ec, config)
    explicit = fit_and_evaluate(tf, tc, df, dc, ef, ec, config, scoring=TaskScoring("classify", "accuracy"))
    assert default.primary_metric == explicit.primary_metric == "accuracy"
    assert default.score == explicit.score and np.array_equal(default.predictions, explicit.predictions)
    macro = fit_and_evaluate(tf, tc, df, dc, ef, ec, config, scoring=TaskScoring("classify", "macro_f1"))
    assert macro.primary_metric == "macro_f1" and macro.score == macro.scores["macro_f1"]
    with pytest.raises(ConfigError, match="match the corpora's task"):
        fit_and_evaluate(tf, tc, df, dc, ef, ec, config, scoring=TaskScoring("ner", "f1"))
