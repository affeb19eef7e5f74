"""The writer: opens (or resumes) an analysis's parent and child runs and logs into them.

Besides MLflow's own records it keeps, in memory, what it wrote to the parent (params, tags,
metrics) and one row per finished cell, logged as the parent's cells table after every cell. The
runner builds its :class:`~advisor.analysis.Analysis` from that memory instead of reading back
what it just logged (:func:`advisor.tracking.written_analysis`).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from advisor.tracking._cells import CellKey, cell_row, rows_from_history, rows_from_table
from advisor.tracking._layout import (
    ANALYSIS_COMPLETE,
    ANALYSIS_KIND,
    ANALYSIS_STATE_TAG,
    CELLS_TABLE,
    CHILD_KIND,
    EMBEDDING_TAG,
    KEY_TAG,
    KIND_TAG,
    PARENT_TAG,
    READER_WARNINGS_TABLE,
    READER_WARNINGS_TAG,
    SEED_TAG,
    TRIALS_TABLE,
    TRIALS_TAG,
    predictions_artifact,
)
from advisor.tracking._lifecycle import Heartbeat, Owner, close_stale_runs
from advisor.tracking._locks import store_lock
from advisor.tracking._store import (
    DEFAULT_EXPERIMENT,
    child_runs,
    client_for,
    experiment_id,
    resolve_tracking_uri,
)
from advisor.tracking._tables import log_table, read_json_table, write_json_table
from advisor.tracking._views import tag_experiment_kind

__all__ = ["AnalysisTracker", "dev_history_key", "environment_info"]


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


def _owned_by_advisor(tag: str) -> bool:
    """advisor's own state tags (a resume updates them); others (``--tag``, the app's session) are
    the creator's and keep their value."""
    return tag.startswith("advisor.")


def dev_history_key(size: int) -> str:
    """The metric holding a cell's dev curve in its child run (one per size; step = optimizer step)."""
    return f"dev_history.size_{size:07d}"


@dataclass
class AnalysisTracker:
    """Opens (or re-opens, for resume) the parent and child runs and logs cells into them."""

    tracking_uri: str
    experiment: str = DEFAULT_EXPERIMENT
    client: Any = None
    experiment_id: str = ""
    parent_id: str = ""
    resumed: bool = False
    #: What the parent holds, as this tracker found and wrote it (the runner's Analysis reads these).
    params: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    cells: dict[CellKey, dict[str, Any]] = field(default_factory=dict)
    parent_run: Any = None  # the parent as found or created (its artifact location)
    #: A resume that found the analysis done (every planned cell, the report, the same settings): the
    #: run is left as another process wrote it (status, owner, tags, end time) until real work starts.
    idle: bool = False
    _children: dict[tuple[str, int], str] = field(default_factory=dict)
    _child_params: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)
    _finished: set[CellKey] = field(default_factory=set)
    _heartbeat: Heartbeat | None = None

    def __post_init__(self) -> None:
        self.tracking_uri = resolve_tracking_uri(self.tracking_uri)
        self.client = client_for(self.tracking_uri)
        self.experiment_id = experiment_id(self.client, self.experiment, self.tracking_uri) or ""
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
        planned: Collection[CellKey] | None = None,
    ) -> str:
        """Find the parent run for ``key`` (resume) or create it; RUNNING, owned by this process.

        Analyses whose owner is gone are closed KILLED first. While a live process runs this same
        analysis, wait (``on_wait`` is told once), then resume: no cell is computed twice. A finished
        analysis that already holds every ``planned`` cell and its report, with the same params and
        ``advisor.*`` tags, is not claimed (:attr:`idle`): its status, owner, tags and end time stay.
        """
        waited = False
        while True:
            with store_lock(self.tracking_uri, f"analysis-{key}"):
                busy = self._claim(key, run_name, params, tags, force, planned)
            if busy is None:
                break
            if on_wait is not None and not waited:
                on_wait(f"{busy} is running this same analysis; this run waits and resumes when it ends")
            waited = True
            time.sleep(poll_seconds)
        if not self.idle:
            self._heartbeat = Heartbeat(self.client, self.parent_id).start()
        return self.parent_id

    def _claim(
        self,
        key: str,
        run_name: str,
        params: dict[str, Any],
        tags: dict[str, str],
        force: bool,
        planned: Collection[CellKey] | None = None,
    ) -> str | None:
        """Resume or create the parent (under the analysis lock); the live owner if another has it."""
        close_stale_runs(client=self.client, experiment_ids=[self.experiment_id])
        existing = self.client.search_runs(
            [self.experiment_id],
            filter_string=f"tags.`{KEY_TAG}` = '{key}' and tags.`{KIND_TAG}` = '{ANALYSIS_KIND}'",
            order_by=["attributes.start_time DESC"],
            max_results=1,
        )
        me = Owner.current()
        if existing and not force:
            owner = Owner.from_tags(existing[0].data.tags)
            if existing[0].info.status == "RUNNING" and owner is not None and not owner.same(me):
                return owner.describe()
            self._resume(existing[0])
            if self._nothing_to_do(existing[0], params, tags, planned):
                self.idle = True
                return None
            self.client.update_run(self.parent_id, status="RUNNING")
            tags = {k: v for k, v in tags.items() if _owned_by_advisor(k) or k not in self.tags}
        else:
            tags = {**tags, KIND_TAG: ANALYSIS_KIND, KEY_TAG: key}
            run = self.client.create_run(self.experiment_id, run_name=run_name, tags=tags)
            self.parent_id, self.parent_run = run.info.run_id, run
            self.tags = dict(run.data.tags)
        try:
            self._log_open_params(params, {**tags, **me.tags()})
        except BaseException:  # never leave a parent RUNNING that nobody will close
            self.client.set_terminated(self.parent_id, status="FAILED")
            raise
        return None

    def _nothing_to_do(
        self, parent: Any, params: dict[str, Any], tags: dict[str, str], planned: Collection[CellKey] | None
    ) -> bool:
        """Whether resuming ``parent`` would change nothing: finished with its report, every planned
        cell done, the same params and the same ``advisor.*`` tags (user tags never count)."""
        if planned is None or parent.info.status != "FINISHED" or not self.analysis_complete():
            return False
        same_params = all(self.params.get(k, v) == v for k, v in _flat(params).items())
        same_tags = all(self.tags.get(k) == str(v) for k, v in tags.items() if _owned_by_advisor(k))
        return same_params and same_tags and set(planned) <= self._finished

    def _wake(self) -> None:
        """An idle resume that has work after all (a cell, the analysis): claim the run now."""
        if not self.idle:
            return
        from mlflow.entities import RunTag

        self.idle = False
        self.client.update_run(self.parent_id, status="RUNNING")
        owner = Owner.current().tags()
        self.client.log_batch(self.parent_id, tags=[RunTag(k, v) for k, v in owner.items()])
        self.tags.update(owner)
        self._heartbeat = Heartbeat(self.client, self.parent_id).start()

    def _resume(self, parent: Any) -> None:
        """Read ``parent`` back: its children (and their params), finished cells and cell rows as the
        store has them. Nothing is written: the caller claims the run, or leaves it idle."""
        self.parent_id, self.parent_run = parent.info.run_id, parent
        self.resumed = True
        self.params, self.tags = dict(parent.data.params), dict(parent.data.tags)
        self.metrics = dict(parent.data.metrics)
        stored = self._stored_cells()
        missing = []
        for child in child_runs(self.client, self.experiment_id, self.parent_id):
            emb, seed = child.data.tags[EMBEDDING_TAG], int(child.data.tags[SEED_TAG])
            self._children[(emb, seed)] = child.info.run_id
            self._child_params[(emb, seed)] = dict(child.data.params)
            for metric in self.client.get_metric_history(child.info.run_id, "score"):
                self._finished.add((emb, int(metric.step), seed))
                if (emb, int(metric.step), seed) not in stored:
                    missing.append(child)
        history = rows_from_history(self.client, list({c.info.run_id: c for c in missing}.values()))
        rows = {**history, **stored}  # a cell killed before the table was logged: from its history
        self.cells = {k: v for k, v in rows.items() if k in self._finished}

    def _stored_cells(self) -> dict[CellKey, dict[str, Any]]:
        """The cells table an earlier process logged (empty for runs from before it existed)."""
        if CELLS_TABLE not in {a.path for a in self.client.list_artifacts(self.parent_id, "analysis")}:
            return {}
        return rows_from_table(read_json_table(self.client, self.parent_id, CELLS_TABLE))

    def _log_open_params(self, params: dict[str, Any], tags: dict[str, str]) -> None:
        """Params the parent lacks; grid params may grow between resumed runs: the latest go to tags."""
        from mlflow.entities import RunTag

        flat = _flat(params)
        changed = {f"advisor.latest.{k}": v for k, v in flat.items() if self.params.get(k, v) != v}
        self.log_parent_params_once(params)
        owned = {**changed, **tags}
        self.client.log_batch(self.parent_id, tags=[RunTag(k, v) for k, v in owned.items()])
        self.tags.update(owned)

    def log_parent_params_once(self, params: dict[str, Any]) -> None:
        """Params are immutable in MLflow: log those the parent does not have yet."""
        from mlflow.entities import Param

        new = {k: v for k, v in _flat(params).items() if k not in self.params}
        if new:
            self.client.log_batch(self.parent_id, params=[Param(k, v) for k, v in new.items()])
            self.params.update(new)

    def is_finished(self, embedding: str, size: int, seed: int) -> bool:
        return (embedding, size, seed) in self._finished

    def child(self, embedding: str, seed: int, params: dict[str, Any] | None = None) -> str:
        """The child run of (embedding, seed), created on first use and marked RUNNING."""
        from mlflow.entities import Param

        self._wake()
        key = (embedding, seed)
        if key in self._children:  # resumed: the params it lacks (those it has are immutable)
            run_id = self._children[key]
            self.client.update_run(run_id, status="RUNNING")
            had = self._child_params.setdefault(key, {})
            new = {k: v for k, v in _flat(params or {}).items() if k not in had}
            if new:
                self.client.log_batch(run_id, params=[Param(k, v) for k, v in new.items()])
                had.update(new)
            return run_id
        run = self.client.create_run(
            self.experiment_id,
            run_name=f"{embedding}-seed{seed}",
            tags={
                PARENT_TAG: self.parent_id,
                KIND_TAG: CHILD_KIND,
                EMBEDDING_TAG: embedding,
                SEED_TAG: str(seed),
            },
        )
        self._children[key] = run.info.run_id
        self._child_params[key] = _flat(params or {})
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
        dev_history: list[tuple[int, float]] | None = None,
    ) -> None:
        """Predictions first, then metrics, ``score`` last (it marks the cell finished), then the cells table.

        ``dev_history``: the cell's dev score per evaluation as ``(optimizer step, score)``, logged as
        the metric :func:`dev_history_key` ``(size)`` with step = optimizer step.
        """
        from mlflow.entities import Metric

        run_id = self._children[(embedding, seed)]
        if predictions is not None:
            log_table(self.client, run_id, predictions, predictions_artifact(size))
        now = int(time.time() * 1000)
        curve = [Metric(dev_history_key(size), float(v), now, int(s)) for s, v in dev_history or []]
        batch = curve + [
            Metric(k, float(v), now, size) for k, v in metrics.items() if v is not None and k != "score"
        ]
        self.client.log_batch(run_id, metrics=batch)
        self.client.log_batch(run_id, metrics=[Metric("score", float(metrics["score"]), now, size)])
        self._finished.add((embedding, size, seed))
        self.cells[(embedding, size, seed)] = cell_row(embedding, size, seed, metrics)
        write_json_table(self.client, self.parent_id, pd.DataFrame(list(self.cells.values())), CELLS_TABLE)
        if self._heartbeat is not None:
            self._heartbeat.beat()  # a finished cell proves the owner alive

    def log_parent_metrics(self, metrics: dict[str, float], step: int = 0) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        self.client.log_batch(
            self.parent_id, metrics=[Metric(k, float(v), now, step) for k, v in metrics.items()]
        )
        self.metrics.update({k: float(v) for k, v in metrics.items()})

    def log_parent_tags(self, tags: dict[str, str]) -> None:
        from mlflow.entities import RunTag

        if self.idle:  # an idle resume writes only what changed (nothing, normally)
            tags = {k: v for k, v in tags.items() if self.tags.get(k) != str(v)}
            if not tags:
                return
        self.client.log_batch(self.parent_id, tags=[RunTag(k, str(v)) for k, v in tags.items()])
        self.tags.update({k: str(v) for k, v in tags.items()})

    def log_table(self, data: pd.DataFrame, artifact_file: str, run_id: str | None = None) -> None:
        log_table(self.client, run_id or self.parent_id, data, artifact_file)

    def log_figure(self, figure: Any, artifact_file: str, run_id: str | None = None) -> None:
        self.client.log_figure(run_id or self.parent_id, figure, artifact_file)

    def log_dict(self, payload: dict[str, Any], artifact_file: str) -> None:
        self.client.log_dict(self.parent_id, payload, artifact_file)

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        self.client.log_artifact(self.parent_id, str(path), artifact_path)

    def log_reader_warnings(self, warnings: list[str]) -> None:
        """What the data readers warned about, on the parent: a count tag and one table row each."""
        self.log_parent_tags({READER_WARNINGS_TAG: str(len(warnings))})
        if warnings:
            write_json_table(
                self.client, self.parent_id, pd.DataFrame({"warning": warnings}), READER_WARNINGS_TABLE
            )

    def kept_trials(self) -> pd.DataFrame | None:
        """The learning-rate trials an earlier process finished on this parent (None: none kept, or
        their table is gone)."""
        from mlflow.exceptions import MlflowException

        if not int(self.tags.get(TRIALS_TAG, "0")):
            return None
        try:
            return read_json_table(self.client, self.parent_id, TRIALS_TABLE)
        except (MlflowException, OSError):  # the tag without its artifact (a copied store): train again
            return None

    def keep_trials(self, rows: pd.DataFrame) -> None:
        """Every trial finished so far: a tuning stage stopped half-way resumes from these rows."""
        write_json_table(self.client, self.parent_id, rows, TRIALS_TABLE)
        self.log_parent_tags({TRIALS_TAG: str(len(rows))})

    def mark_analysis(self, state: str) -> None:
        """``running`` before the analysis stages, :data:`ANALYSIS_COMPLETE` once the report is logged."""
        if state != ANALYSIS_COMPLETE:
            self._wake()
        self.log_parent_tags({ANALYSIS_STATE_TAG: state})

    def analysis_complete(self) -> bool:
        """Whether an earlier process recorded every analysis stage and the report of this parent."""
        return self.tags.get(ANALYSIS_STATE_TAG) == ANALYSIS_COMPLETE

    def close(self, status: str) -> None:
        """End every run this tracker opened with ``status`` (FINISHED, FAILED or KILLED).

        A finished parent also finishes every child it holds, those an earlier process left KILLED or
        FAILED included: their cells are all in the finished analysis. A parent that did not finish
        ends only the children still RUNNING. An idle resume ends nothing: it changed nothing."""
        if self.idle:
            return
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
        for run_id in self._children.values():
            current = self.client.get_run(run_id).info.status
            if current == "RUNNING" or (status == "FINISHED" and current != status):
                self.client.set_terminated(run_id, status=status)
        if self.parent_id:
            self.client.set_terminated(self.parent_id, status=status)

    def load_predictions(self, embedding: str, seed: int, size: int) -> pd.DataFrame:
        """Read back the per-item predictions table of a cell an earlier process finished (resume reuses them)."""
        return read_json_table(self.client, self._children[(embedding, seed)], predictions_artifact(size))
