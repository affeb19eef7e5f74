"""The run as a staged pipeline: plan -> executor -> sink -> analysis stages (see ``advisor.runner``).

- :func:`plan_run`: a pure function of the settings and the data (grid, options, resume key, params, tags);
- :func:`run_cells`: the executor, yielding ``(cell, result, seconds)`` from worker processes or Ray,
  each child run's cells in grid order; :func:`then_own_trainers`: then the cells of families that
  train their own (``Family.train``: the fine-tuned reference), in this process;
- :class:`CellSink`: logs every cell through the tracker's API and keeps its predictions;
- :func:`next_extension`: the grid's left end, halved while contextual still matches a cheaper family;
- :func:`train_until_decided`: ``--until decided``, the grid round by round, stopped once the verdict is settled;
  with ``--budget`` (:func:`plan_budget`), the rounds that fit the wall-time budget;
- :data:`ANALYSIS_STAGES`: what runs after the cells (serving costs and contextuality first), each
  stage computing through the domain and recording through :mod:`advisor.tracking`;
- :func:`final_report`: the closed run's report, from the Analysis the stages assembled.
"""

from __future__ import annotations

from advisor.pipeline._budget import BudgetStop, TimeBudget, check_budget, parse_budget, plan_budget
from advisor.pipeline._estimate import RunEstimate, estimate_run, expected_duration_text, machine_throughput
from advisor.pipeline._execute import (
    CellOutcome,
    WorkerState,
    cell_config,
    ray_train_cells,
    reusing,
    run_cells,
    train_cells,
    train_one,
    worker_count,
)
from advisor.pipeline._extend import (
    Extension,
    extension_floor,
    finished_scores,
    next_extension,
    step_from_rows,
    under_trained_cells,
    with_size,
)
from advisor.pipeline._featurize import featurize_missing
from advisor.pipeline._measure import SERVING_REPEATS, measure_all_serving
from advisor.pipeline._memory import frozen_heap
from advisor.pipeline._own_trainers import then_own_trainers, trains_itself
from advisor.pipeline._plan import (
    RunPlan,
    embedding_options,
    plan_run,
    resolve_device,
    resume_key,
)
from advisor.pipeline._report import final_report
from advisor.pipeline._rounds import Stop, check_until, train_until_decided
from advisor.pipeline._sink import CellSink, cell_metrics, predictions_frame, predictions_from_frame
from advisor.pipeline._spawn import start_method
from advisor.pipeline._speed import record_encoder_speed, record_training_speed, recorded_seconds_per_step
from advisor.pipeline._stages import ANALYSIS_STAGES, Stage, StageContext, run_stages
from advisor.pipeline._tune import (
    LR_TAG,
    PROJECTION_TAG,
    TUNING_TABLE,
    LearningRates,
    choose_learning_rates,
    known_rates,
    known_settings,
    known_widths,
    timed_trials,
    trial_cells,
    tuning_size,
)

__all__ = [
    "ANALYSIS_STAGES",
    "LR_TAG",
    "PROJECTION_TAG",
    "SERVING_REPEATS",
    "TUNING_TABLE",
    "BudgetStop",
    "CellOutcome",
    "CellSink",
    "Extension",
    "LearningRates",
    "RunEstimate",
    "RunPlan",
    "Stage",
    "StageContext",
    "Stop",
    "TimeBudget",
    "WorkerState",
    "cell_config",
    "cell_metrics",
    "check_budget",
    "check_until",
    "choose_learning_rates",
    "embedding_options",
    "estimate_run",
    "expected_duration_text",
    "extension_floor",
    "featurize_missing",
    "final_report",
    "finished_scores",
    "frozen_heap",
    "known_rates",
    "known_settings",
    "known_widths",
    "machine_throughput",
    "measure_all_serving",
    "next_extension",
    "parse_budget",
    "plan_budget",
    "plan_run",
    "predictions_frame",
    "predictions_from_frame",
    "ray_train_cells",
    "record_encoder_speed",
    "record_training_speed",
    "recorded_seconds_per_step",
    "resolve_device",
    "resume_key",
    "reusing",
    "run_cells",
    "run_stages",
    "start_method",
    "step_from_rows",
    "then_own_trainers",
    "timed_trials",
    "train_cells",
    "train_one",
    "train_until_decided",
    "trains_itself",
    "trial_cells",
    "tuning_size",
    "under_trained_cells",
    "with_size",
    "worker_count",
]
