"""The record layer: every save and load of a run's results in MLflow, and nothing that computes them.

Rooms: the store (:mod:`._store`: the one URI rule, a client, the experiment), the layout
(:mod:`._layout`: every tag, run kind and artifact name), the writer (:mod:`._writer`:
:class:`AnalysisTracker`), the reader (:mod:`._reader`: :func:`load_analysis`, the one place that
reads older layouts), who owns a RUNNING analysis (:mod:`._lifecycle`, :mod:`._locks`), what the
MLflow UI shows (:mod:`._views`), and one module per kind of result the domain computes: cells
(:mod:`._cells`), per-item scores (:mod:`._item_scores`), serving costs (:mod:`._serving`), the
encoder-layer results (:mod:`._layers`), the gain model (:mod:`._gain`), the report
(:mod:`._report`). Tables travel as MLflow JSON tables (:mod:`._tables`, one reader). Importing
this package changes nothing: MLflow's environment defaults and logger levels are set by the first
:func:`client_for`.

Layout (what the CLI, the report and the app read back):

- parent run, tags ``advisor.kind=analysis``, ``advisor.key`` (hash of data + settings: resume key),
  ``advisor.task``, ``advisor.dataset``; params: task, dataset name/hash, grid, models; artifacts:
  ``analysis/`` (cells, curves, items, gaps tables), figures, ``report/``. ``analysis/cells.json``
  holds one row per finished cell (the cell metrics), rewritten after every cell: reading an
  analysis is one download, not a metric history per child and metric.
- the parent's headline metrics, logged with the report (:mod:`._headline`): ``full_score.<family>``,
  the main gap ``gap_pts.<a>_vs_<b>`` with ``gap_pts_lo.`` / ``gap_pts_hi.`` (points), contextual's
  ``latency_ratio.`` / ``batch_ratio.`` against the same family.
- child run per (embedding, seed), tags ``advisor.kind=curve``, ``advisor.embedding``, ``advisor.seed``;
  params: family, seed, ``max_size``, ``dim``, the family's options and its training settings (``lr``…);
  every metric of a cell is logged with ``step = training-set size`` (MLflow draws the learning curve),
  the primary metric under its own name *and* as ``score``; per-item predictions as an MLflow table
  ``predictions/size_<n>.json``. A cell counts as finished once its ``score`` at that step exists:
  metrics are logged last, so a cell interrupted earlier is simply recomputed.

Runs always end FINISHED, FAILED or KILLED (``AnalysisTracker.close``), never RUNNING. A parent records
its owner process and a heartbeat; one whose owner died (``kill -9``) is ended KILLED by the next
``advisor run`` or ``advisor report`` (:func:`close_stale_runs`).
"""

from __future__ import annotations

from advisor.tracking._cells import CELL_METRICS
from advisor.tracking._gain import GAIN_ARTIFACTS, load_gain_model, log_gain_model
from advisor.tracking._headline import child_params, headline_metrics
from advisor.tracking._item_scores import load_item_scores, log_item_scores
from advisor.tracking._layers import (
    find_layer_sweeps,
    has_contextuality,
    load_layer_sweep,
    log_contextuality,
    log_contextuality_run,
    log_layer_sweep,
    log_mix_weights,
    mix_weights_table,
)
from advisor.tracking._layout import (
    ANALYSIS_COMPLETE,
    ANALYSIS_KIND,
    ANALYSIS_STATE_TAG,
    BUDGET_STOP_TAG,
    BUDGET_TAG,
    CELLS_TABLE,
    CHILD_KIND,
    CONTEXTUALITY_KIND,
    CONTEXTUALITY_TABLE,
    CURVES_FIGURE,
    CURVES_TABLE,
    DECISION_TAG,
    EARLY_STOP_TAG,
    EARLY_VERDICT_TAG,
    EMBEDDING_TAG,
    GAIN_SKIPPED_TAG,
    GAPS_FIGURE,
    GAPS_TABLE,
    ITEM_SCORES_ARTIFACT,
    ITEMS_TABLE,
    KIND_TAG,
    LAYERS_KIND,
    LAYERS_MIX_TABLE,
    LAYERS_TABLE,
    LR_TAG,
    MIX_WEIGHTS_TABLE,
    PARENT_TAG,
    PROJECTION_TAG,
    READER_WARNINGS_TABLE,
    READER_WARNINGS_TAG,
    SEED_TAG,
    SERVING_ARTIFACT,
    TASK_TAG,
    TEST_TOKENS_TABLE,
    TRIALS_TABLE,
    TRIALS_TAG,
    UNTIL_TAG,
    VERDICT_ARTIFACT,
    VERDICT_TAG,
    child_runs_filter,
    known_rates,
    known_widths,
    predictions_artifact,
)
from advisor.tracking._lifecycle import (
    HEARTBEAT_TAG,
    OWNER_TAGS,
    Heartbeat,
    Owner,
    close_stale_runs,
    is_stale,
    stale_reason,
)
from advisor.tracking._locks import store_lock
from advisor.tracking._reader import (
    RunFacts,
    assemble_analysis,
    find_analyses,
    find_runs,
    load_analysis,
    resolve_analysis_run,
    written_analysis,
)
from advisor.tracking._report import log_report
from advisor.tracking._serving import load_serving, log_serving
from advisor.tracking._store import (
    DEFAULT_EXPERIMENT,
    DEFAULT_TRACKING_URI,
    TRACKING_SCHEMES,
    child_runs,
    client_for,
    require_store,
    resolve_tracking_uri,
    store_uri,
)
from advisor.tracking._tables import as_logged, as_written, log_table, read_json_table, write_json_table
from advisor.tracking._views import (
    DESCRIPTION_TAG,
    EXPERIMENT_KIND,
    EXPERIMENT_KIND_TAG,
    MLFLOW_UI_URL,
    WORKFLOW_QUERY,
    browse_hint,
    dataset_frame,
    experiment_url,
    log_dataset_inputs,
    log_test_tokens,
    mlflow_ui_command,
    run_url,
    server_url,
    set_description,
    tag_experiment_kind,
    test_set,
)
from advisor.tracking._writer import AnalysisTracker, environment_info

__all__ = [
    "ANALYSIS_COMPLETE",
    "ANALYSIS_KIND",
    "ANALYSIS_STATE_TAG",
    "BUDGET_STOP_TAG",
    "BUDGET_TAG",
    "CELLS_TABLE",
    "CELL_METRICS",
    "CHILD_KIND",
    "CONTEXTUALITY_KIND",
    "CONTEXTUALITY_TABLE",
    "CURVES_FIGURE",
    "CURVES_TABLE",
    "DECISION_TAG",
    "DEFAULT_EXPERIMENT",
    "DEFAULT_TRACKING_URI",
    "DESCRIPTION_TAG",
    "EARLY_STOP_TAG",
    "EARLY_VERDICT_TAG",
    "EMBEDDING_TAG",
    "EXPERIMENT_KIND",
    "EXPERIMENT_KIND_TAG",
    "GAIN_ARTIFACTS",
    "GAIN_SKIPPED_TAG",
    "GAPS_FIGURE",
    "GAPS_TABLE",
    "HEARTBEAT_TAG",
    "ITEMS_TABLE",
    "ITEM_SCORES_ARTIFACT",
    "KIND_TAG",
    "LAYERS_KIND",
    "LAYERS_MIX_TABLE",
    "LAYERS_TABLE",
    "LR_TAG",
    "MIX_WEIGHTS_TABLE",
    "MLFLOW_UI_URL",
    "OWNER_TAGS",
    "PARENT_TAG",
    "PROJECTION_TAG",
    "READER_WARNINGS_TABLE",
    "READER_WARNINGS_TAG",
    "SEED_TAG",
    "SERVING_ARTIFACT",
    "TASK_TAG",
    "TEST_TOKENS_TABLE",
    "TRACKING_SCHEMES",
    "TRIALS_TABLE",
    "TRIALS_TAG",
    "UNTIL_TAG",
    "VERDICT_ARTIFACT",
    "VERDICT_TAG",
    "WORKFLOW_QUERY",
    "AnalysisTracker",
    "Heartbeat",
    "Owner",
    "RunFacts",
    "as_logged",
    "as_written",
    "assemble_analysis",
    "browse_hint",
    "child_params",
    "child_runs",
    "child_runs_filter",
    "client_for",
    "close_stale_runs",
    "dataset_frame",
    "environment_info",
    "experiment_url",
    "find_analyses",
    "find_layer_sweeps",
    "find_runs",
    "has_contextuality",
    "headline_metrics",
    "is_stale",
    "known_rates",
    "known_widths",
    "load_analysis",
    "load_gain_model",
    "load_item_scores",
    "load_layer_sweep",
    "load_serving",
    "log_contextuality",
    "log_contextuality_run",
    "log_dataset_inputs",
    "log_gain_model",
    "log_item_scores",
    "log_layer_sweep",
    "log_mix_weights",
    "log_report",
    "log_serving",
    "log_table",
    "log_test_tokens",
    "mix_weights_table",
    "mlflow_ui_command",
    "predictions_artifact",
    "read_json_table",
    "require_store",
    "resolve_analysis_run",
    "resolve_tracking_uri",
    "run_url",
    "server_url",
    "set_description",
    "stale_reason",
    "store_lock",
    "store_uri",
    "tag_experiment_kind",
    "test_set",
    "write_json_table",
    "written_analysis",
]
