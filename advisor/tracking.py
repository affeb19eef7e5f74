"""MLflow bookkeeping: one parent run per analysis, one child run per (embedding, seed).

Layout (what the CLI, the report and the app read back):

- parent run, tags ``advisor.kind=analysis``, ``advisor.key`` (hash of data + settings: resume key),
  ``advisor.task``, ``advisor.dataset``; params: task, dataset name/hash, grid, models; artifacts:
  ``analysis/`` (curves, items, gaps tables), figures, ``report/``.
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

import logging
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from advisor.analysis import Analysis
from advisor.errors import ConfigError
from advisor.lifecycle import Heartbeat, Owner, close_stale_runs, is_stale, store_lock
from advisor.mlflow_views import log_table

__all__ = [
    "DEFAULT_EXPERIMENT",
    "DEFAULT_TRACKING_URI",
    "AnalysisTracker",
    "client_for",
    "close_stale_runs",
    "environment_info",
    "find_analyses",
    "is_stale",
    "load_analysis",
    "resolve_analysis_run",
    "resolve_tracking_uri",
]

DEFAULT_TRACKING_URI = "sqlite:///mlruns/mlflow.db"
DEFAULT_EXPERIMENT = "advisor"
CELL_METRICS = (
    "score",
    "train_seconds",
    "inference_ms_per_item",
    "peak_memory_mb",
    "n_params",
    "epochs",
    "dev_score",
    "eval_repaired_f1",  # NER: strict F1 after repairing stray I- tags, shown beside the strict headline
)

os.environ.setdefault("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars in our terminal output
logging.getLogger("mlflow.store.db.utils").setLevel(logging.WARNING)  # "creating tables" is not news
logging.getLogger("alembic").setLevel(logging.WARNING)


def resolve_tracking_uri(uri: str | None = None) -> str:
    """``--tracking-uri``, else ``MLFLOW_TRACKING_URI``, else the local sqlite store under ./mlruns."""
    chosen = uri or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    if chosen.startswith("sqlite:///"):
        db = Path(chosen.removeprefix("sqlite:///"))
        db.parent.mkdir(parents=True, exist_ok=True)
    elif "://" not in chosen:
        raise ConfigError(
            f"tracking URI {chosen!r} is not a URI",
            hint="use sqlite:///path/to/mlflow.db or http://host:port (the file store was removed in MLflow 3)",
            code="E220",
        )
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

    resolved = resolve_tracking_uri(uri)
    if resolved in _READY:
        return MlflowClient(tracking_uri=resolved)
    with store_lock(resolved, "store-setup"):
        client = MlflowClient(tracking_uri=resolved)
    _READY.add(resolved)
    return client


def _experiment_id(client: Any, name: str, uri: str, create: bool = True) -> str | None:
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


def environment_info() -> dict[str, str]:
    """Library versions and hardware, for the report and for honest comparisons across machines."""
    import importlib.metadata as md

    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": str(os.cpu_count()),
    }
    for package in (
        "advisor",
        "torch",
        "transformers",
        "mlflow",
        "numpy",
        "pandas",
        "scikit-learn",
        "spacy",
        "lightgbm",
        "seqeval",
    ):
        try:
            info[package] = md.version(package)
        except md.PackageNotFoundError:
            continue
    try:
        import torch

        info["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
        info["torch_threads"] = str(torch.get_num_threads())
    except Exception:  # torch missing or broken CUDA: the report still renders
        info["gpu"] = "unknown"
    return info


def _flat(params: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in params.items():
        text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        out[key] = text[:6000]
    return out


@dataclass
class AnalysisTracker:
    """Opens (or re-opens, for resume) the parent and child runs and logs cells into them."""

    tracking_uri: str
    experiment: str = DEFAULT_EXPERIMENT
    client: Any = None
    experiment_id: str = ""
    parent_id: str = ""
    resumed: bool = False
    _children: dict[tuple[str, int], str] = field(default_factory=dict)
    _finished: set[tuple[str, int, int]] = field(default_factory=set)
    _heartbeat: Heartbeat | None = None

    def __post_init__(self) -> None:
        self.tracking_uri = resolve_tracking_uri(self.tracking_uri)
        self.client = client_for(self.tracking_uri)
        self.experiment_id = _experiment_id(self.client, self.experiment, self.tracking_uri) or ""
        from advisor.mlflow_views import tag_experiment_kind

        tag_experiment_kind(self.client, self.experiment_id)  # the MLflow UI opens on the runs table

    # -- opening -----------------------------------------------------------------------------------
    def open(
        self,
        key: str,
        run_name: str,
        params: dict[str, Any],
        tags: dict[str, str],
        force: bool = False,
        on_wait: Callable[[str], None] | None = None,
        poll_seconds: float = 2.0,
    ) -> str:
        """Find the parent run for ``key`` (resume) or create it; RUNNING, owned by this process.

        Analyses whose owner is gone are closed KILLED first. While a live process runs this same
        analysis, wait (``on_wait`` is told once), then resume: no cell is computed twice.
        """
        waited = False
        while True:
            with store_lock(self.tracking_uri, f"analysis-{key}"):
                busy = self._claim(key, run_name, params, tags, force)
            if busy is None:
                break
            if on_wait is not None and not waited:
                on_wait(f"{busy} is running this same analysis; this run waits and resumes when it ends")
            waited = True
            time.sleep(poll_seconds)
        self._heartbeat = Heartbeat(self.client, self.parent_id).start()
        return self.parent_id

    def _claim(
        self, key: str, run_name: str, params: dict[str, Any], tags: dict[str, str], force: bool
    ) -> str | None:
        """Resume or create the parent (under the analysis lock); the live owner if another has it."""
        from mlflow.entities import Param, RunTag

        close_stale_runs(client=self.client, experiment_ids=[self.experiment_id])
        existing = self.client.search_runs(
            [self.experiment_id],
            filter_string=f"tags.`advisor.key` = '{key}' and tags.`advisor.kind` = 'analysis'",
            order_by=["attributes.start_time DESC"],
            max_results=1,
        )
        me = Owner.current()
        if existing and not force:
            owner = Owner.from_tags(existing[0].data.tags)
            if existing[0].info.status == "RUNNING" and owner is not None and not owner.same(me):
                return owner.describe()
            self.parent_id = existing[0].info.run_id
            self.resumed = True
            self.client.update_run(self.parent_id, status="RUNNING")
            for child in self._search_children():
                emb, seed = child.data.tags["advisor.embedding"], int(child.data.tags["advisor.seed"])
                self._children[(emb, seed)] = child.info.run_id
                for metric in self.client.get_metric_history(child.info.run_id, "score"):
                    self._finished.add((emb, int(metric.step), seed))
        else:
            run = self.client.create_run(
                self.experiment_id,
                run_name=run_name,
                tags={**tags, "advisor.kind": "analysis", "advisor.key": key},
            )
            self.parent_id = run.info.run_id
        try:
            # Grid params may grow between resumed runs (more seeds or sizes): log the latest as tags.
            current = self.client.get_run(self.parent_id).data.params
            new_params = [Param(k, v) for k, v in _flat(params).items() if k not in current]
            changed = [
                RunTag(f"advisor.latest.{k}", v) for k, v in _flat(params).items() if current.get(k, v) != v
            ]
            owned = {**tags, **me.tags()}
            self.client.log_batch(
                self.parent_id, params=new_params, tags=changed + [RunTag(k, v) for k, v in owned.items()]
            )
        except BaseException:  # never leave a parent RUNNING that nobody will close
            self.client.set_terminated(self.parent_id, status="FAILED")
            raise
        return None

    def log_parent_params_once(self, params: dict[str, Any]) -> None:
        """Params are immutable in MLflow: log those the parent does not have yet."""
        from mlflow.entities import Param

        current = self.client.get_run(self.parent_id).data.params
        new = [Param(k, v) for k, v in _flat(params).items() if k not in current]
        if new:
            self.client.log_batch(self.parent_id, params=new)

    def _search_children(self) -> list[Any]:
        return self.client.search_runs(
            [self.experiment_id],
            filter_string=f"tags.`mlflow.parentRunId` = '{self.parent_id}' and tags.`advisor.kind` = 'curve'",
            max_results=5000,
        )

    def is_finished(self, embedding: str, size: int, seed: int) -> bool:
        return (embedding, size, seed) in self._finished

    def child(self, embedding: str, seed: int, params: dict[str, Any] | None = None) -> str:
        """The child run of (embedding, seed), created on first use and marked RUNNING."""
        from mlflow.entities import Param

        key = (embedding, seed)
        if key in self._children:
            run_id = self._children[key]
            self.client.update_run(run_id, status="RUNNING")
            return run_id
        run = self.client.create_run(
            self.experiment_id,
            run_name=f"{embedding}-seed{seed}",
            tags={
                "mlflow.parentRunId": self.parent_id,
                "advisor.kind": "curve",
                "advisor.embedding": embedding,
                "advisor.seed": str(seed),
            },
        )
        self._children[key] = run.info.run_id
        if params:
            self.client.log_batch(run.info.run_id, params=[Param(k, v) for k, v in _flat(params).items()])
        return run.info.run_id

    # -- logging -----------------------------------------------------------------------------------
    def log_cell(
        self,
        embedding: str,
        size: int,
        seed: int,
        metrics: dict[str, float],
        predictions: pd.DataFrame | None = None,
    ) -> None:
        """Predictions first, metrics last: the ``score`` metric marks the cell as finished."""
        from mlflow.entities import Metric

        run_id = self._children[(embedding, seed)]
        if predictions is not None:
            log_table(self.client, run_id, predictions, f"predictions/size_{size:07d}.json")
        now = int(time.time() * 1000)
        batch = [Metric(k, float(v), now, size) for k, v in metrics.items() if v is not None and k != "score"]
        self.client.log_batch(run_id, metrics=batch)
        self.client.log_batch(run_id, metrics=[Metric("score", float(metrics["score"]), now, size)])
        self._finished.add((embedding, size, seed))
        if self._heartbeat is not None:
            self._heartbeat.beat()  # a finished cell proves the owner alive

    def log_parent_metrics(self, metrics: dict[str, float], step: int = 0) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        self.client.log_batch(
            self.parent_id, metrics=[Metric(k, float(v), now, step) for k, v in metrics.items()]
        )

    def log_parent_tags(self, tags: dict[str, str]) -> None:
        from mlflow.entities import RunTag

        self.client.log_batch(self.parent_id, tags=[RunTag(k, str(v)) for k, v in tags.items()])

    def log_table(self, data: pd.DataFrame, artifact_file: str, run_id: str | None = None) -> None:
        log_table(self.client, run_id or self.parent_id, data, artifact_file)

    def log_figure(self, figure: Any, artifact_file: str, run_id: str | None = None) -> None:
        self.client.log_figure(run_id or self.parent_id, figure, artifact_file)

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        self.client.log_artifact(self.parent_id, str(path), artifact_path)

    def close(self, status: str) -> None:
        """End every run this tracker opened with ``status`` (FINISHED, FAILED or KILLED)."""
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
        for run_id in self._children.values():
            if self.client.get_run(run_id).info.status == "RUNNING":
                self.client.set_terminated(run_id, status=status)
        if self.parent_id:
            self.client.set_terminated(self.parent_id, status=status)

    def load_predictions(self, embedding: str, seed: int, size: int) -> pd.DataFrame:
        """Read back the per-item predictions table of a finished cell (resume reuses them)."""
        return _read_json_table(
            self.client, self._children[(embedding, seed)], f"predictions/size_{size:07d}.json"
        )


def _read_json_table(client: Any, run_id: str, artifact_file: str) -> pd.DataFrame:
    """Tables logged with ``log_table`` are JSON ``{"columns": [...], "data": [...]}`` artifacts."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        local = client.download_artifacts(run_id, artifact_file, tmp)
        payload = json.loads(Path(local).read_text(encoding="utf-8"))
    frame = pd.DataFrame(payload["data"], columns=payload["columns"])
    for column in frame.columns:
        # JSON has no NaN: numeric columns with missing values come back as object columns of
        # numbers and None; make them float again so callers can compute on them.
        values = frame[column]
        if values.dtype == object and values.map(lambda v: v is None or isinstance(v, int | float)).all():
            if values.map(lambda v: v is None or not isinstance(v, bool)).all():
                frame[column] = pd.to_numeric(values, errors="coerce").astype(float)
    return frame


# -- reading an analysis back ------------------------------------------------------------------------


def find_analyses(
    tracking_uri: str | None = None, experiment: str | None = None, max_results: int = 100
) -> list[Any]:
    """Parent runs (newest first) across the advisor experiments of a store."""
    client = client_for(tracking_uri)
    experiments = client.search_experiments()
    ids = [e.experiment_id for e in experiments if experiment is None or e.name == experiment]
    if not ids:
        return []
    return client.search_runs(
        ids,
        filter_string="tags.`advisor.kind` = 'analysis'",
        order_by=["attributes.start_time DESC"],
        max_results=max_results,
    )


def resolve_analysis_run(client: Any, run_ref: str, tracking_uri: str | None, experiment: str | None) -> Any:
    """The parent run of an analysis from ``latest``, its id, or a child id; a clear error otherwise."""
    if run_ref == "latest":
        runs = find_analyses(tracking_uri, experiment, max_results=1)
        if not runs:
            raise ConfigError(
                "no analysis in the tracking store",
                hint=f"run `advisor run` first, or pass --tracking-uri (store: {resolve_tracking_uri(tracking_uri)})",
                code="E230",
            )
        return runs[0]
    try:
        run = client.get_run(run_ref)
    except Exception:
        raise ConfigError(
            f"no run with id {run_ref!r} in {resolve_tracking_uri(tracking_uri)}",
            hint="use `latest`, or an id listed by `advisor history`",
            code="E230",
        ) from None
    if run.data.tags.get("advisor.kind") == "curve":  # a child id: go up to its analysis
        run = client.get_run(run.data.tags["mlflow.parentRunId"])
    if run.data.tags.get("advisor.kind") != "analysis":
        raise ConfigError(f"run {run_ref!r} is not an advisor analysis", code="E230")
    return run


def _json_param(params: dict[str, str], key: str, default: Any) -> Any:
    import json

    try:
        return json.loads(params[key])
    except (KeyError, ValueError):
        return default


def load_analysis(
    run_ref: str = "latest", tracking_uri: str | None = None, experiment: str | None = None
) -> Analysis:
    """Everything the verdict, report and app need, read from MLflow only."""
    client = client_for(tracking_uri)
    parent = resolve_analysis_run(client, run_ref, tracking_uri, experiment)
    run_id = parent.info.run_id
    params = dict(parent.data.params)
    tags = dict(parent.data.tags)
    if "advisor.price_per_hour" in tags:  # a tag, so a later run may change it; the verdict reads params
        params["price_per_hour"] = tags["advisor.price_per_hour"]
    children = client.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.`mlflow.parentRunId` = '{run_id}' and tags.`advisor.kind` = 'curve'",
        max_results=5000,
    )
    full_size = int(params.get("n_train", 0)) or None
    rows: dict[tuple[str, int, int], dict[str, Any]] = {}
    for child in children:
        emb, seed = child.data.tags["advisor.embedding"], int(child.data.tags["advisor.seed"])
        for key in CELL_METRICS:
            for metric in client.get_metric_history(child.info.run_id, key):
                row = rows.setdefault(
                    (emb, int(metric.step), seed), {"embedding": emb, "seed": seed, "size": int(metric.step)}
                )
                row[key] = metric.value
    curves = pd.DataFrame([r for r in rows.values() if "score" in r])
    if curves.empty:
        curves = pd.DataFrame(columns=["embedding", "seed", "size", "score", *CELL_METRICS[1:]])
    else:
        curves = curves.sort_values(["embedding", "size", "seed"]).reset_index(drop=True)
        curves["fraction"] = curves["size"] / (full_size or curves["size"].max())
    embeddings = pd.DataFrame(_json_param(params, "embedding_info", []))
    metrics = parent.data.metrics
    if not embeddings.empty:
        for column in ("featurize_seconds", "featurize_items_per_s"):
            embeddings[column] = [metrics.get(f"{column}.{e}", float("nan")) for e in embeddings["embedding"]]
    slices = items = None
    artifacts = {a.path for a in client.list_artifacts(run_id, "analysis")}
    if "analysis/gaps.json" in artifacts:
        slices = _read_json_table(client, run_id, "analysis/gaps.json")
    if "analysis/items.json" in artifacts:
        items = _read_json_table(client, run_id, "analysis/items.json")
    layer_tables = {  # advisor.contextuality: how contextual the encoder is, learned layer weights
        name: _read_json_table(client, run_id, f"analysis/{name}.json")
        for name in ("contextuality", "mix_weights")
        if f"analysis/{name}.json" in artifacts
    }
    experiment_name = client.get_experiment(parent.info.experiment_id).name
    from advisor.verdict._resample import load_item_scores

    item_scores = load_item_scores(client, run_id, artifacts)
    from advisor.costs import serving_columns

    embeddings = serving_columns(embeddings, client, run_id, artifacts)
    return Analysis(
        task=params.get("task", tags.get("advisor.task", "")),
        primary_metric=params.get("primary_metric", "score"),
        curves=curves,
        embeddings=embeddings,
        dataset=_json_param(params, "dataset_info", {"name": params.get("dataset", "")}),
        params=params,
        environment=_json_param(params, "environment", {}),
        slices=slices,
        items=items,
        run_id=run_id,
        experiment=experiment_name,
        status=parent.info.status,
        layer_tables=layer_tables,
        item_scores=item_scores,
    )
