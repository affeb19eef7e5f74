"""The fine-tuning headroom's cost multiple: priced from raw text, so it never changes with cache state."""

from __future__ import annotations

import math

import pytest

from advisor.verdict._headroom import fine_tuning_headroom
from advisor.verdict._synthetic import DEFAULT_COSTS, analysis_from_scores

SCORES = {
    "static": {100: [0.60, 0.62, 0.61]},
    "contextual": {100: [0.70, 0.71, 0.72]},
    "finetuned": {100: [0.75, 0.76, 0.74]},
}
FINETUNED_COSTS = {**DEFAULT_COSTS["contextual"], "train_seconds": 300.0}


def _headroom(contextual_encode: float | None):
    analysis = analysis_from_scores(SCORES, costs={"finetuned": FINETUNED_COSTS})
    facts = analysis.embeddings
    facts.loc[facts["embedding"] == "contextual", "featurize_seconds"] = 1.0  # this run: a warm cache
    if contextual_encode is not None:
        facts["encode_seconds"] = math.nan
        facts.loc[facts["embedding"] == "contextual", "encode_seconds"] = contextual_encode
    return fine_tuning_headroom(analysis)


def test_the_frozen_cost_is_the_recorded_raw_text_pass_not_this_runs_featurize_time() -> None:
    headroom = _headroom(contextual_encode=54.0)
    assert headroom is not None
    assert headroom.train_ratio == pytest.approx(300.0 / (6.0 + 54.0))
    assert headroom.contextual_encode_seconds == 54.0


def test_runs_without_the_recorded_pass_fall_back_to_their_featurize_seconds() -> None:
    headroom = _headroom(contextual_encode=None)
    assert headroom is not None and headroom.train_ratio == pytest.approx(300.0 / (6.0 + 1.0))
