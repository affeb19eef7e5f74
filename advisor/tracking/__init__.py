"""MLflow bookkeeping: one parent run per analysis, one child run per (embedding, seed).

Three rooms: the store (:mod:`._store`: which URI, a client, the experiment), the writer
(:mod:`._writer`: :class:`AnalysisTracker`) and the reader (:mod:`._reader`: :func:`load_analysis`);
tables travel as MLflow JSON tables (:mod:`._tables`, one reader). Importing this package changes
nothing: MLflow's environment defaults and logger levels are set by the first :func:`client_for`.

Layout (what the CLI, the report and the app read back):

- parent run, tags ``advisor.kind=analysis``, ``advisor.key`` (hash of data + settings: resume key),
  ``advisor.task``, ``advisor.dataset``; params: task, dataset name/hash, grid, models; artifacts:
  ``analysis/`` (cells, curves, items, gaps tables), figures, ``report/``. ``analysis/cells.json``
  holds one row per finished cell (the cell metrics), rewritten after every cell: reading an
  analysis is one download, not a metric history per child and metric.
- child run per (embedding, seed), tags ``advisor.kind=curve``, ``advisor.embedding``, ``advisor.seed``;
  every metric of a cell is logged with ``step = training-set size`` (MLflow draws the learning curve),
  the primary metric under its own name *and* as ``score``; per-item predictions as an MLflow table
  ``predictions/size_<n>.json``. A cell counts as finished once its ``score`` at that step exists:
  metrics are logged last, so a cell interrupted earlier is simply recomputed.

Runs always end FINISHED, FAILED or KILLED (``AnalysisTracker.close``), never RUNNING. A parent records
its owner process and a heartbeat; one whose owner died (``kill -9``) is ended KILLED by the next
``advisor run`` or ``advisor report`` (:mod:`advisor.lifecycle`, ``close_stale_runs``).
"""

from __future__ import annotations

from advisor.lifecycle import close_stale_runs, is_stale
from advisor.tracking._cells import CELL_METRICS, CELLS_TABLE
from advisor.tracking._item_scores import ITEM_SCORES_ARTIFACT, load_item_scores, log_item_scores
from advisor.tracking._reader import (
    RunFacts,
    assemble_analysis,
    find_analyses,
    load_analysis,
    resolve_analysis_run,
    written_analysis,
)
from advisor.tracking._store import (
    DEFAULT_EXPERIMENT,
    DEFAULT_TRACKING_URI,
    child_runs,
    client_for,
    resolve_tracking_uri,
)
from advisor.tracking._tables import as_logged, as_written, read_json_table, write_json_table
from advisor.tracking._tags import LR_TAG, known_rates
from advisor.tracking._writer import AnalysisTracker, environment_info

_read_json_table = read_json_table  # the name older callers and tests import

__all__ = [
    "CELLS_TABLE",
    "CELL_METRICS",
    "DEFAULT_EXPERIMENT",
    "DEFAULT_TRACKING_URI",
    "ITEM_SCORES_ARTIFACT",
    "LR_TAG",
    "AnalysisTracker",
    "RunFacts",
    "as_logged",
    "as_written",
    "assemble_analysis",
    "child_runs",
    "client_for",
    "close_stale_runs",
    "environment_info",
    "find_analyses",
    "is_stale",
    "known_rates",
    "load_analysis",
    "load_item_scores",
    "log_item_scores",
    "read_json_table",
    "resolve_analysis_run",
    "resolve_tracking_uri",
    "write_json_table",
    "written_analysis",
]
