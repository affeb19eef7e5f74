"""Cost table and contextual/cheap ratios."""

from __future__ import annotations

import math

import pytest

from advisor.verdict import DEFAULT_COSTS, analysis_from_scores, compare_costs, make_synthetic_analysis


def test_costs_add_featurization_to_model_latency_and_form_ratios() -> None:
    costs = compare_costs(make_synthetic_analysis(slice_effects={}))
    ctx, static = DEFAULT_COSTS["contextual"], DEFAULT_COSTS["static"]
    ctx_latency = ctx["inference_ms_per_item"] + 1000 / ctx["featurize_items_per_s"]
    static_latency = static["inference_ms_per_item"] + 1000 / static["featurize_items_per_s"]
    assert costs.value("contextual", "latency_ms_per_item") == pytest.approx(ctx_latency)
    assert costs.value("contextual", "items_per_s") == pytest.approx(1000 / ctx_latency)
    assert costs.ratio("contextual/static", "latency_ms_per_item") == pytest.approx(
        ctx_latency / static_latency
    )
    assert costs.ratio("contextual/random", "embedding_mb") == pytest.approx(
        ctx["embedding_bytes"] / DEFAULT_COSTS["random"]["embedding_bytes"]
    )
    assert costs.value("static", "train_seconds") == pytest.approx(static["train_seconds"])  # full size
    assert costs.size == 1600


def test_missing_cost_columns_give_nan_not_errors() -> None:
    analysis = analysis_from_scores({"contextual": {10: [0.5, 0.6]}, "static": {10: [0.4, 0.5]}})
    analysis.curves = analysis.curves[["embedding", "seed", "size", "score"]]
    analysis.embeddings = analysis.embeddings.iloc[0:0]
    costs = compare_costs(analysis)
    assert math.isnan(costs.value("contextual", "latency_ms_per_item"))
    assert math.isnan(costs.ratio("contextual/static", "train_seconds"))
    assert costs.to_dict()["table"]["static"]["train_seconds"] is None


def test_peak_memory_ratio_is_withheld_below_measurable_memory() -> None:
    costs = {name: dict(values) for name, values in DEFAULT_COSTS.items()}
    costs["contextual"]["peak_memory_mb"] = 0.0  # e.g. features already resident: nothing measurable added
    comparison = compare_costs(make_synthetic_analysis(slice_effects={}, costs=costs))
    assert math.isnan(comparison.ratio("contextual/static", "peak_memory_mb"))
    assert math.isnan(comparison.value("contextual", "peak_memory_mb"))  # ~0 MB is no measurement: not shown
    assert comparison.value("static", "peak_memory_mb") == DEFAULT_COSTS["static"]["peak_memory_mb"]
    normal = compare_costs(make_synthetic_analysis(slice_effects={}))
    assert normal.ratio("contextual/static", "peak_memory_mb") == pytest.approx(950.0 / 480.0)
