"""The MLflow store: which URI (the one rule), a client of it, the experiment, and the child-run query.

Nothing happens at import: MLflow's environment defaults and logger levels are set by the first
:func:`client_for` of a process (:func:`quiet_mlflow`), which every reader and writer goes through.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from advisor._error_codes import E220, E225
from advisor.settings import DEFAULT_EXPERIMENT
from advisor.tracking._layout import child_runs_filter
from advisor.tracking._locks import store_lock

__all__ = [
    "DEFAULT_EXPERIMENT",
    "DEFAULT_TRACKING_URI",
    "TRACKING_SCHEMES",
    "child_runs",
    "client_for",
    "experiment_id",
    "quiet_mlflow",
    "require_store",
    "resolve_tracking_uri",
    "run_artifacts",
    "store_uri",
]

DEFAULT_TRACKING_URI = "sqlite:///mlruns/mlflow.db"
#: The URI schemes a tracking store may have (``advisor.validate`` checks ``--tracking-uri`` against them).
TRACKING_SCHEMES = (
    "sqlite",
    "http",
    "https",
    "postgresql",
    "mysql",
    "mssql",
    "databricks",
    "databricks-uc",
    "uc",
)


def quiet_mlflow() -> None:
    """Synchronous logging, no artifact progress bars, no "creating tables" notes (idempotent)."""
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars in our terminal output
    logging.getLogger("mlflow.store.db.utils").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)


def store_uri(uri: str | None = None) -> str:
    """``--tracking-uri``, else ``MLFLOW_TRACKING_URI``, else the local sqlite store under ./mlruns;
    a path that is no URI is an error. Creates nothing (read-only use)."""
    chosen = uri or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    if "://" not in chosen:
        raise E220(uri=chosen)
    return chosen


def resolve_tracking_uri(uri: str | None = None) -> str:
    """:func:`store_uri`, with the folder of a local sqlite store created (a writer's use)."""
    chosen = store_uri(uri)
    if chosen.startswith("sqlite:///"):
        Path(chosen.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    return chosen


def require_store(tracking_uri: str | None) -> str:
    """The store a read-only command reads; a local sqlite store that does not exist is an error, not created."""
    chosen = store_uri(tracking_uri)
    if chosen.startswith("sqlite:///"):
        path = Path(chosen.removeprefix("sqlite:///"))
        if not path.is_file():
            raise E225(path=path.resolve())
    return chosen


def _artifact_root(uri: str) -> str | None:
    """Artifacts beside a local sqlite database (mlruns/artifacts); servers choose their own."""
    if uri.startswith("sqlite:///"):
        return (Path(uri.removeprefix("sqlite:///")).parent / "artifacts").resolve().as_uri()
    return None


_READY: set[str] = set()


def client_for(uri: str | None = None) -> Any:
    """A client of the store. Its first use in a process holds a file lock: two processes opening a new
    sqlite database at once would otherwise race through MLflow's schema migrations."""
    from mlflow import MlflowClient

    quiet_mlflow()
    resolved = resolve_tracking_uri(uri)
    if resolved in _READY:
        return MlflowClient(tracking_uri=resolved)
    with store_lock(resolved, "store-setup"):
        client = MlflowClient(tracking_uri=resolved)
    _READY.add(resolved)
    return client


def experiment_id(client: Any, name: str, uri: str, create: bool = True) -> str | None:
    """The id of experiment ``name`` (restored if deleted, created beside the store if missing)."""
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        if experiment.lifecycle_stage == "deleted":
            client.restore_experiment(experiment.experiment_id)
        return experiment.experiment_id
    if not create:
        return None
    root = _artifact_root(uri)
    location = f"{root}/{name}" if root else None
    from mlflow.exceptions import MlflowException

    try:
        return client.create_experiment(name, artifact_location=location)
    except MlflowException:  # another process created it a moment ago
        experiment = client.get_experiment_by_name(name)
        if experiment is None:
            raise
        return experiment.experiment_id


def child_runs(client: Any, experiment_id: str, parent_id: str) -> list[Any]:
    """The child runs of an analysis (one per embedding and seed)."""
    return client.search_runs([experiment_id], filter_string=child_runs_filter(parent_id), max_results=5000)


class _LocalRunArtifacts:
    """Read-only, client-shaped access to one run's local artifacts through one repository.

    ``MlflowClient`` resolves the run in the database again on every list and download (three
    queries each); a reader of a finished run needs its artifact location once.
    """

    def __init__(self, artifact_uri: str) -> None:
        from mlflow.store.artifact.artifact_repository_registry import get_artifact_repository

        self._repo = get_artifact_repository(artifact_uri)

    def list_artifacts(self, run_id: str, path: str | None = None) -> list[Any]:
        return self._repo.list_artifacts(path)

    def download_artifacts(self, run_id: str, path: str, dst_path: str | None = None) -> str:
        return self._repo.download_artifacts(path, dst_path)


def run_artifacts(client: Any, run: Any) -> Any:
    """What lists and downloads ``run``'s artifacts: its local folder directly, else the client
    (a tracking server's proxied artifacts are resolved against that server by the client)."""
    if str(run.info.artifact_uri).startswith("file:"):
        return _LocalRunArtifacts(run.info.artifact_uri)
    return client
