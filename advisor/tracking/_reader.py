"""The reader: find analyses and turn one into an :class:`~advisor.analysis.Analysis`.

A finished analysis costs the parent run, one artifact listing and one download per table: the
cells come from the parent's cells table. Runs logged before that table existed fall back to the
children's metric histories. :func:`written_analysis` assembles the same object from what a live
:class:`~advisor.tracking.AnalysisTracker` holds in memory, so the runner never reads its own cells back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pandas as pd

from advisor._error_codes import E226, E227, E228
from advisor.analysis import Analysis
from advisor.costs import ServingMeasurements, serving_columns
from advisor.settings import DECISION_PARAM
from advisor.tracking._cells import curves_frame, rows_from_history, rows_from_table
from advisor.tracking._item_scores import load_item_scores
from advisor.tracking._layout import (
    ANALYSIS_KIND,
    BUDGET_STOP_TAG,
    CELLS_TABLE,
    CHILD_KIND,
    DECISION_TAG,
    EARLY_STOP_TAG,
    GAPS_TABLE,
    ITEMS_TABLE,
    KIND_TAG,
    LAYER_TABLES,
    PARENT_TAG,
    PRICE_TAG,
    TASK_TAG,
    UNTIL_TAG,
    known_rates,
    known_widths,
)
from advisor.tracking._serving import load_serving
from advisor.tracking._store import child_runs, client_for, resolve_tracking_uri, run_artifacts
from advisor.tracking._tables import read_json_table

__all__ = [
    "RunFacts",
    "find_analyses",
    "find_runs",
    "load_analysis",
    "resolve_analysis_run",
    "written_analysis",
]


@dataclass
class RunFacts:
    """What the parent run says about itself: where it is, its status, params, tags and metrics."""

    run_id: str
    experiment_id: str
    experiment: str
    status: str
    params: dict[str, str]
    tags: dict[str, str]
    metrics: dict[str, float]


def find_analyses(
    tracking_uri: str | None = None, experiment: str | None = None, max_results: int = 100
) -> list[Any]:
    """Parent runs (newest first) across the advisor experiments of a store."""
    return find_runs(ANALYSIS_KIND, tracking_uri, experiment, max_results)


def find_runs(
    kind: str, tracking_uri: str | None = None, experiment: str | None = None, max_results: int = 100
) -> list[Any]:
    """Runs of one ``advisor.kind`` (newest first) in ``experiment``, or in every experiment of the store."""
    client = client_for(tracking_uri)
    experiments = client.search_experiments()
    ids = [e.experiment_id for e in experiments if experiment is None or e.name == experiment]
    if not ids:
        return []
    return client.search_runs(
        ids,
        filter_string=f"tags.`{KIND_TAG}` = '{kind}'",
        order_by=["attributes.start_time DESC"],
        max_results=max_results,
    )


def resolve_analysis_run(client: Any, run_ref: str, tracking_uri: str | None, experiment: str | None) -> Any:
    """The parent run of an analysis from ``latest``, its id, or a child id; a clear error otherwise."""
    if run_ref == "latest":
        runs = find_analyses(tracking_uri, experiment, max_results=1)
        if not runs:
            raise E226(store=resolve_tracking_uri(tracking_uri))
        return runs[0]
    try:
        run = client.get_run(run_ref)
    except Exception:
        raise E227(run=run_ref, store=resolve_tracking_uri(tracking_uri)) from None
    if run.data.tags.get(KIND_TAG) == CHILD_KIND:  # a child id: go up to its analysis
        run = client.get_run(run.data.tags[PARENT_TAG])
    if run.data.tags.get(KIND_TAG) != ANALYSIS_KIND:
        raise E228(run=run_ref)
    return run


def _json_param(params: dict[str, str], key: str, default: Any) -> Any:
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
    facts = RunFacts(
        run_id=parent.info.run_id,
        experiment_id=parent.info.experiment_id,
        experiment=client.get_experiment(parent.info.experiment_id).name,
        status=parent.info.status,
        params=dict(parent.data.params),
        tags=dict(parent.data.tags),
        metrics=dict(parent.data.metrics),
    )
    return assemble_analysis(client, facts, store=run_artifacts(client, parent))


def written_analysis(
    tracker: Any,
    tables: dict[str, pd.DataFrame],
    item_scores: Any = None,
    serving: ServingMeasurements | None = None,
) -> Analysis:
    """The Analysis of the tracker's open run from its memory: cells, params, tags, metrics and the
    parent ``tables`` the caller just logged (artifact path -> the frame as a reader would get it
    back: :func:`~advisor.tracking.as_logged`); tables logged by earlier processes or by stages that
    write through the client are read from the store. ``item_scores`` and ``serving`` (the serving
    measurements as logged) likewise, when the caller holds them."""
    facts = RunFacts(
        run_id=tracker.parent_id,
        experiment_id=tracker.experiment_id,
        experiment=tracker.experiment,
        status="RUNNING",
        params=dict(tracker.params),
        tags=dict(tracker.tags),
        metrics=dict(tracker.metrics),
    )
    store = run_artifacts(tracker.client, tracker.parent_run) if tracker.parent_run else None
    rows = list(tracker.cells.values())
    return assemble_analysis(
        tracker.client, facts, rows, tables, store, item_scores=item_scores, serving=serving
    )


def _cell_rows(client: Any, store: Any, facts: RunFacts, artifacts: set[str]) -> list[dict[str, Any]]:
    """The cells table, or for older runs the children's metric histories."""
    if CELLS_TABLE in artifacts:
        return list(rows_from_table(read_json_table(store, facts.run_id, CELLS_TABLE)).values())
    children = child_runs(client, facts.experiment_id, facts.run_id)
    return list(rows_from_history(client, children).values())


def _embeddings(params: dict[str, str], metrics: dict[str, float]) -> pd.DataFrame:
    """One row per embedding: what the featurizer described, with its featurize time and speed."""
    embeddings = pd.DataFrame(_json_param(params, "embedding_info", []))
    if not embeddings.empty:
        for column in ("featurize_seconds", "featurize_items_per_s", "encode_seconds"):
            embeddings[column] = [metrics.get(f"{column}.{e}", float("nan")) for e in embeddings["embedding"]]
    return embeddings


def assemble_analysis(
    client: Any,
    facts: RunFacts,
    rows: list[dict[str, Any]] | None = None,
    tables: dict[str, pd.DataFrame] | None = None,
    store: Any = None,
    *,
    item_scores: Any = None,
    serving: ServingMeasurements | None = None,
) -> Analysis:
    """An Analysis from the parent's facts, its cell rows (None: read them) and its tables.

    ``store`` lists and downloads the parent's artifacts (default: ``client``); ``item_scores`` and
    ``serving`` given here are not read.
    """
    store = store or client
    artifacts = {a.path for a in store.list_artifacts(facts.run_id, "analysis")}
    known = dict(tables or {})

    def table(path: str) -> pd.DataFrame | None:
        if path in known:
            return known[path]
        return read_json_table(store, facts.run_id, path) if path in artifacts else None

    params = dict(facts.params)
    if PRICE_TAG in facts.tags:  # a tag, so a later run may change it; the verdict reads params
        params["price_per_hour"] = facts.tags[PRICE_TAG]
    if DECISION_TAG in facts.tags:  # what the verdict weighs, as the latest process was given it
        params[DECISION_PARAM] = facts.tags[DECISION_TAG]
    if UNTIL_TAG in facts.tags:  # --until of the latest process; its settled stop only when "decided"
        params["until"] = facts.tags[UNTIL_TAG]
        if params["until"] == "decided" and facts.tags.get(EARLY_STOP_TAG):
            params["early_stop"] = facts.tags[EARLY_STOP_TAG]
    if facts.tags.get(BUDGET_STOP_TAG):  # what --budget left out (advisor.verdict states it)
        params["budget_stop"] = facts.tags[BUDGET_STOP_TAG]
    rates = known_rates(facts.tags)
    if rates:  # tags: chosen on dev after the params were fixed (advisor.pipeline._tune)
        params["learning_rates"] = json.dumps(rates)
    if widths := known_widths(facts.tags):  # chosen with the rates
        params["projections"] = json.dumps(widths)
    rows = _cell_rows(client, store, facts, artifacts) if rows is None else rows
    serving = load_serving(store, facts.run_id, artifacts) if serving is None else serving
    embeddings = serving_columns(_embeddings(params, facts.metrics), serving)
    layer_tables = {name: frame for name, path in LAYER_TABLES.items() if (frame := table(path)) is not None}
    return Analysis(
        task=params.get("task", facts.tags.get(TASK_TAG, "")),
        primary_metric=params.get("primary_metric", "score"),
        curves=curves_frame(rows, int(params.get("n_train", 0)) or None),
        embeddings=embeddings,
        dataset=_json_param(params, "dataset_info", {"name": params.get("dataset", "")}),
        params=params,
        environment=_json_param(params, "environment", {}),
        slices=table(GAPS_TABLE),
        items=table(ITEMS_TABLE),
        run_id=facts.run_id,
        experiment=facts.experiment,
        status=facts.status,
        layer_tables=layer_tables,
        item_scores=load_item_scores(store, facts.run_id, artifacts) if item_scores is None else item_scores,
    )
