"""Analysis stages: what runs after the cells, each computing through the domain and recording
through :mod:`advisor.tracking`, in one list.

A stage is a function of the :class:`StageContext`. The first stages measure (serving cost,
contextuality: :mod:`._measure`) and log the parent's tables (difficulty, per-item scores, mix
weights); :func:`assemble` then builds the run's :class:`~advisor.analysis.Analysis` from what the
tracker wrote (no read-back of its own cells); the later stages take that Analysis (curves table and
figure, verdict, gain model). A new analysis (a layer sweep, a new cost) is one more function in
:data:`ANALYSIS_STAGES`; the runner does not change. These stages are the only code that computes
and then records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from advisor.analysis import Analysis
from advisor.costs import ServingMeasurements
from advisor.grid import CellKey
from advisor.pipeline._measure import contextuality, serving
from advisor.pipeline._plan import RunPlan
from advisor.settings import RunSettings
from advisor.stats import item_scores as count_items
from advisor.tracking import (
    CURVES_FIGURE,
    CURVES_TABLE,
    GAIN_SKIPPED_TAG,
    GAPS_FIGURE,
    GAPS_TABLE,
    ITEMS_TABLE,
    MIX_WEIGHTS_TABLE,
    VERDICT_ARTIFACT,
    VERDICT_TAG,
    as_logged,
    as_written,
    log_gain_model,
    log_item_scores,
    log_mix_weights,
    mix_weights_table,
    written_analysis,
)

__all__ = ["ANALYSIS_STAGES", "Stage", "StageContext", "run_stages"]


@dataclass
class StageContext:
    """What the stages share: the run's settings, plan and data, the tracker, every cell's predictions."""

    settings: RunSettings
    splits: Any  # advisor.data.DataSplits
    tracker: Any  # advisor.tracking.AnalysisTracker
    predictions: dict[CellKey, list[Any]]
    timings: dict[str, float]
    plan: RunPlan | None = None  # the grid, embedding options, training config and device
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # parent tables, as a reader gets them
    serving: ServingMeasurements | None = None  # the serving measurements, once measured or read
    layer_weights: dict[CellKey, list[float]] = field(default_factory=dict)  # cells of this process
    reused: list[Any] = field(default_factory=list)  # cells an earlier process finished (advisor.grid.Cell)
    item_scores: Any = None  # advisor.stats.ItemScores, once logged
    analysis: Analysis | None = None

    def log_table(self, frame: pd.DataFrame, artifact_file: str) -> None:
        """Log a parent table through the tracker and keep it as the reader would get it back."""
        self.tracker.log_table(frame, artifact_file)
        self.tables[artifact_file] = as_logged(frame)

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        from matplotlib import pyplot as plt

        self.tracker.log_figure(figure, artifact_file)
        plt.close(figure)


Stage = Callable[[StageContext], Any]


def difficulty(ctx: StageContext) -> pd.DataFrame | None:
    """Per-item difficulty metrics and the contextual-vs-static gaps on difficult vs easy slices."""
    if not ctx.settings.difficulty:
        return None
    from advisor.difficulty import gap_analysis, item_metrics, plot_gaps

    splits, t0 = ctx.splits, time.perf_counter()
    items = item_metrics(splits.train, splits.test, spacy_model=ctx.settings.spacy_model)
    # Difficulty values come from the full training set: only full-data cells match them (a smaller
    # subset saw other words), so smaller sizes get no slice rows (an interrupted run keeps them all).
    at_full = {k: v for k, v in ctx.predictions.items() if k[1] == len(splits.train)} or ctx.predictions
    gaps = gap_analysis(ctx.settings.task, splits.train, splits.test, at_full, table=items)
    ctx.log_table(items, ITEMS_TABLE)
    ctx.log_table(gaps, GAPS_TABLE)
    if len(gaps) and gaps["n_items"].gt(0).any():  # one embedding, or no splittable metric: no figure
        ctx.log_figure(plot_gaps(gaps), GAPS_FIGURE)
    largest = gaps[gaps["size"] == gaps["size"].max()] if len(gaps) else gaps
    slice_metrics = {f"gap.{r.metric}.{r.pair}.{r.slice}": r.gap for r in largest.itertuples()}
    if slice_metrics:
        ctx.tracker.log_parent_metrics(slice_metrics)
    ctx.timings["difficulty"] = time.perf_counter() - t0
    return gaps


def item_scores(ctx: StageContext) -> None:
    """Per-item counts of every cell: what the verdict's bootstrap resamples."""
    scores = count_items(ctx.settings.task, ctx.splits.test.labels, ctx.predictions)
    ctx.item_scores = log_item_scores(ctx.tracker, scores)


def mix_weights(ctx: StageContext) -> pd.DataFrame:
    """Which encoder layers the scalar mix used, per cell (nothing without a mix).

    This process's cells come from memory; only cells an earlier process finished are read back.
    """
    from advisor.contextuality import mix_weights_frame

    tracker = ctx.tracker
    frame = mix_weights_frame(ctx.layer_weights)
    earlier = {c.key for c in ctx.reused}
    if earlier:
        stored = mix_weights_table(tracker.client, tracker.parent_id, tracker.experiment_id)
        keys = zip(stored["embedding"], stored["size"], stored["seed"], strict=True)
        stored = stored[[key in earlier for key in keys]]
        frame = pd.concat([frame, stored]) if len(stored) else frame
        frame = frame.sort_values(["embedding", "size", "seed", "layer"]).reset_index(drop=True)
    frame = log_mix_weights(tracker.client, tracker.parent_id, tracker.experiment_id, frame)
    if not frame.empty:
        ctx.tables[MIX_WEIGHTS_TABLE] = as_written(frame)
    return frame


def assemble(ctx: StageContext) -> Analysis:
    """The run's Analysis from the tracker's memory and the tables logged above."""
    ctx.analysis = written_analysis(ctx.tracker, ctx.tables, ctx.item_scores, ctx.serving)
    return ctx.analysis


def curves(ctx: StageContext) -> None:
    """The learning-curves table and figure."""
    from advisor.plots import plot_learning_curves

    assert ctx.analysis is not None
    ctx.log_table(ctx.analysis.curves, CURVES_TABLE)
    ctx.log_figure(plot_learning_curves(ctx.analysis), CURVES_FIGURE)


def verdict(ctx: StageContext) -> dict[str, Any]:
    """The recommendation: a parent tag and ``analysis/verdict.json``."""
    from advisor.verdict import recommend

    assert ctx.analysis is not None
    result = recommend(ctx.analysis).to_dict()
    ctx.tracker.log_parent_tags({VERDICT_TAG: str(result.get("verdict", ""))})
    ctx.tracker.log_dict(result, VERDICT_ARTIFACT)
    return result


def gain(ctx: StageContext) -> None:
    """Where does context help? The gain model (a grid it cannot use is noted, not fatal)."""
    if not ctx.settings.difficulty:
        return
    from advisor.errors import AdvisorError
    from advisor.gain import fit_gain_model

    settings, splits, t0 = ctx.settings, ctx.splits, time.perf_counter()
    try:
        result = fit_gain_model(
            settings.task, splits.train, splits.test, ctx.predictions, spacy_model=settings.spacy_model
        )
    except AdvisorError as error:
        ctx.tracker.log_parent_tags({GAIN_SKIPPED_TAG: error.message})
        return
    log_gain_model(ctx.tracker, result)
    ctx.timings["gain_model"] = time.perf_counter() - t0


#: In order: the measurements and tables first, then the Analysis, then what judges it.
ANALYSIS_STAGES: tuple[Stage, ...] = (
    serving,
    contextuality,
    difficulty,
    item_scores,
    mix_weights,
    assemble,
    curves,
    verdict,
    gain,
)


def run_stages(ctx: StageContext, stages: tuple[Stage, ...] = ANALYSIS_STAGES) -> dict[str, Any]:
    """Run ``stages`` in order; their results by stage name."""
    import matplotlib

    matplotlib.use("Agg")
    return {stage.__name__: stage(ctx) for stage in stages}
