"""Judging a run: score gaps, data efficiency, learning-curve extrapolation, costs and the verdict.

Everything takes an :class:`advisor.analysis.Analysis` and returns dataclasses; ``recommend`` is the
one decision function shared by the CLI, the report and the app. It returns codes and numbers
(``Recommendation.rule``, ``reason_notes``, ``caveat_notes``); ``render`` is the one renderer that
words them (``Recommendation.headline`` / ``reasons`` / ``caveats`` ask it too).
"""

from __future__ import annotations

from advisor.numbers import not_a_plain_number, readable_number
from advisor.stats import ItemScores, Resampler, holm, item_scores
from advisor.verdict._codes import VERDICTS, Note
from advisor.verdict._cost import COST_COLUMNS, MIN_MEASURABLE_MB, CostComparison, compare_costs
from advisor.verdict._efficiency import DataEfficiency, data_efficiency, matching_size
from advisor.verdict._fit import (
    CURVE_MODELS,
    CandidateFit,
    CurveModel,
    Extrapolation,
    LearningCurveFit,
    extrapolate,
    fit_curve_points,
    fit_learning_curve,
)
from advisor.verdict._gaps import PAIRS, ScoreGap, curve_summary, score_gap, score_gaps
from advisor.verdict._method import method_notes
from advisor.verdict._recommend import enough_rule, recommend
from advisor.verdict._recommendation import Recommendation
from advisor.verdict._sequential import EarlyVerdict, early_verdict, sequential_method
from advisor.verdict._settled import curves_to_finish, seeds_to_finish
from advisor.verdict._slices import SliceFinding, slice_findings
from advisor.verdict._synthetic import (
    DEFAULT_COSTS,
    DEFAULT_CURVES,
    VERDICT_CURVES,
    analysis_from_item_scores,
    analysis_from_scores,
    make_synthetic_analysis,
)
from advisor.verdict._thresholds import Thresholds, check_decision_inputs, run_thresholds
from advisor.verdict._wording import Wording, render

__all__ = [
    "COST_COLUMNS",
    "CURVE_MODELS",
    "DEFAULT_COSTS",
    "DEFAULT_CURVES",
    "MIN_MEASURABLE_MB",
    "PAIRS",
    "VERDICTS",
    "VERDICT_CURVES",
    "CandidateFit",
    "CostComparison",
    "CurveModel",
    "DataEfficiency",
    "EarlyVerdict",
    "Extrapolation",
    "ItemScores",
    "LearningCurveFit",
    "Note",
    "Recommendation",
    "Resampler",
    "ScoreGap",
    "SliceFinding",
    "Thresholds",
    "Wording",
    "analysis_from_item_scores",
    "analysis_from_scores",
    "check_decision_inputs",
    "compare_costs",
    "curve_summary",
    "curves_to_finish",
    "data_efficiency",
    "early_verdict",
    "enough_rule",
    "extrapolate",
    "fit_curve_points",
    "fit_learning_curve",
    "holm",
    "item_scores",
    "make_synthetic_analysis",
    "matching_size",
    "method_notes",
    "not_a_plain_number",
    "readable_number",
    "recommend",
    "render",
    "run_thresholds",
    "score_gap",
    "score_gaps",
    "seeds_to_finish",
    "sequential_method",
    "slice_findings",
]
