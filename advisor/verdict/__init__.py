"""Judging a run: score gaps, data efficiency, learning-curve extrapolation, costs and the verdict.

Everything takes an :class:`advisor.analysis.Analysis` and returns dataclasses; ``recommend`` is the
one decision function shared by the CLI, the report and the app.
"""

from __future__ import annotations

from advisor.stats import ItemScores, Resampler, holm, item_scores
from advisor.verdict._cost import COST_COLUMNS, CostComparison, compare_costs
from advisor.verdict._efficiency import (
    PAIRS,
    DataEfficiency,
    ScoreGap,
    curve_summary,
    data_efficiency,
    matching_size,
    score_gap,
    score_gaps,
)
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
from advisor.verdict._method import method_notes
from advisor.verdict._recommend import (
    VERDICTS,
    Recommendation,
    SliceFinding,
    Thresholds,
    recommend,
    slice_findings,
)
from advisor.verdict._synthetic import (
    DEFAULT_COSTS,
    DEFAULT_CURVES,
    VERDICT_CURVES,
    analysis_from_item_scores,
    analysis_from_scores,
    make_synthetic_analysis,
)

__all__ = [
    "COST_COLUMNS",
    "CURVE_MODELS",
    "DEFAULT_COSTS",
    "DEFAULT_CURVES",
    "PAIRS",
    "VERDICTS",
    "VERDICT_CURVES",
    "CandidateFit",
    "CostComparison",
    "CurveModel",
    "DataEfficiency",
    "Extrapolation",
    "ItemScores",
    "LearningCurveFit",
    "Recommendation",
    "Resampler",
    "ScoreGap",
    "SliceFinding",
    "Thresholds",
    "analysis_from_item_scores",
    "analysis_from_scores",
    "compare_costs",
    "curve_summary",
    "data_efficiency",
    "extrapolate",
    "fit_curve_points",
    "fit_learning_curve",
    "holm",
    "item_scores",
    "make_synthetic_analysis",
    "matching_size",
    "method_notes",
    "recommend",
    "score_gap",
    "score_gaps",
    "slice_findings",
]
