"""Compute helpers of the Streamlit app (``streamlit_app.py``): uploads, the run subprocess, MLflow
polling and view models. Pure Python, no Streamlit calls, so every piece is unit-tested on its own.
"""

from __future__ import annotations

from advisor.app._job import (
    SESSION_TAG,
    RunJob,
    display_command,
    job_for,
    parse_list,
    run_command,
    session_memory,
    start_run,
    tail,
)
from advisor.app._preview import DatasetPreview, preview_dataset, preview_frame, summary_rows
from advisor.app._progress import RunProgress, find_session_run, live_progress, read_progress
from advisor.app._uploads import (
    DATA_SUFFIXES,
    DEFAULT_MAX_UPLOAD_MB,
    DEMO_DIR,
    DemoDataset,
    StoredUpload,
    demo_datasets,
    detect_task,
    max_upload_mb,
    sanitize_filename,
    store_upload,
    upload_root,
)
from advisor.app._views import (
    compare_url,
    cost_table,
    filter_items,
    history_frame,
    item_metric_columns,
    item_outcomes,
    load_predictions,
    load_test_tokens,
    mlflow_ui_command,
    slice_table,
    verdict_text,
)

__all__ = [
    "DATA_SUFFIXES",
    "DEFAULT_MAX_UPLOAD_MB",
    "DEMO_DIR",
    "SESSION_TAG",
    "DatasetPreview",
    "DemoDataset",
    "RunJob",
    "RunProgress",
    "StoredUpload",
    "compare_url",
    "cost_table",
    "demo_datasets",
    "detect_task",
    "display_command",
    "filter_items",
    "find_session_run",
    "history_frame",
    "item_metric_columns",
    "item_outcomes",
    "job_for",
    "live_progress",
    "load_predictions",
    "load_test_tokens",
    "max_upload_mb",
    "mlflow_ui_command",
    "parse_list",
    "preview_dataset",
    "preview_frame",
    "read_progress",
    "run_command",
    "sanitize_filename",
    "session_memory",
    "slice_table",
    "start_run",
    "store_upload",
    "summary_rows",
    "tail",
    "upload_root",
    "verdict_text",
]
