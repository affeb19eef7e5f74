"""View models of the results pages: tables the app shows, built from an ``Analysis`` and MLflow.

The verdict itself always comes from :func:`advisor.verdict.recommend`; these helpers only reshape
numbers for display (cost labels, the slice table, the per-item explorer, the history list).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.difficulty import difficulty_metric_names
from advisor.numbers import readable_number
from advisor.report import partial_label
from advisor.tracking import (
    MLFLOW_UI_URL,
    WORKFLOW_QUERY,
    child_runs_filter,
    client_for,
    experiment_url,
    mlflow_ui_command,
    read_json_table,
    run_url,
    server_url,
    test_set,
)
from advisor.verdict import COST_COLUMNS, MIN_MEASURABLE_MB, CostComparison
from advisor.vocabulary import task_spec

__all__ = [
    "MLFLOW_UI_URL",
    "compare_url",
    "cost_table",
    "experiment_url",
    "filter_items",
    "history_frame",
    "item_metric_columns",
    "item_outcomes",
    "load_predictions",
    "load_test_tokens",
    "mlflow_ui_command",
    "server_url",
    "slice_table",
    "verdict_text",
]


#: Contextual's multiples the cost table shows beside the values (the report's two ratio columns).
COST_RATIOS: tuple[str, ...] = ("contextual/static", "contextual/random")


def cost_table(costs: CostComparison) -> pd.DataFrame:
    """One row per measured cost (``cost``, ``unit``), one column per embedding, then contextual's
    multiples: a few narrow columns that fit the page (costs as columns ran off its right edge).

    Values are text as the report writes them (separators, no scientific notation); a training peak
    memory below what resident-memory sampling resolves reads '< 1'.
    """
    table, names = costs.table, list(costs.table.index)
    ratios = [p for p in COST_RATIOS if p in costs.ratios.index]
    rows = []
    for column, label, unit in COST_COLUMNS:
        if column not in table.columns or not table[column].notna().any():
            continue
        row = {"cost": label, "unit": unit}
        for name in names:
            value = table.loc[name, column]
            below = column == "peak_memory_mb" and pd.isna(value)
            row[name] = f"< {MIN_MEASURABLE_MB:g}" if below else readable_number(value)
        for pair in ratios:
            ratio = costs.ratios.loc[pair, column] if column in costs.ratios.columns else np.nan
            row[pair.replace("/", " / ")] = "–" if pd.isna(ratio) else f"{ratio:,.1f}×"
        rows.append(row)
    return pd.DataFrame(rows, columns=["cost", "unit", *names, *(p.replace("/", " / ") for p in ratios)])


def slice_table(slices: pd.DataFrame | None) -> pd.DataFrame:
    """Difficulty gaps at the largest size: one row per (metric, pair), gaps in points with their CI."""
    if slices is None or slices.empty:
        return pd.DataFrame(columns=["metric", "pair", "difficult", "easy", "difficult − easy", "CI"])
    at = slices[slices["size"] == slices["size"].max()]
    rows = []
    for (metric, pair), group in at.groupby(["metric", "pair"], sort=False):
        by_slice = group.set_index("slice")

        def pts(name: str, frame: pd.DataFrame = by_slice) -> float:
            return float(frame.loc[name, "gap"]) * 100 if name in frame.index else np.nan

        diff = by_slice.loc["difficult-minus-easy"] if "difficult-minus-easy" in by_slice.index else None
        finite = diff is not None and np.isfinite([diff["gap_lo"], diff["gap_hi"]]).all()
        ci = f"{diff['gap_lo'] * 100:+.1f} to {diff['gap_hi'] * 100:+.1f}" if finite else "–"
        rows.append(
            {
                "metric": metric,
                "pair": pair,
                "difficult": pts("difficult"),
                "easy": pts("easy"),
                "difficult − easy": pts("difficult-minus-easy"),
                "CI": ci,
            }
        )
    return pd.DataFrame(rows)


def _read_table(client: Any, run_id: str, artifact_file: str) -> pd.DataFrame | None:
    """An MLflow ``log_table`` JSON artifact as a frame; None when the run has no such file."""
    folder = str(Path(artifact_file).parent)
    if artifact_file not in {a.path for a in client.list_artifacts(run_id, folder)}:
        return None
    return read_json_table(client, run_id, artifact_file)


def load_predictions(
    run_id: str, tracking_uri: str | None = None, size: int | None = None
) -> dict[tuple[str, int], pd.DataFrame]:
    """Per-item prediction tables of every (embedding, seed) cell of a run at ``size`` (default: largest)."""
    client = client_for(tracking_uri)
    parent = client.get_run(run_id)
    children = client.search_runs(
        [parent.info.experiment_id],
        filter_string=child_runs_filter(run_id),
        max_results=5000,
    )
    if size is None:
        steps = [int(m.step) for c in children for m in client.get_metric_history(c.info.run_id, "score")]
        if not steps:
            return {}
        size = max(steps)
    tables: dict[tuple[str, int], pd.DataFrame] = {}
    for child in children:
        frame = _read_table(client, child.info.run_id, f"predictions/size_{size:07d}.json")
        if frame is not None:
            key = (child.data.tags["advisor.embedding"], int(child.data.tags["advisor.seed"]))
            tables[key] = frame.sort_values("item").reset_index(drop=True)
    return tables


def _is_tag(value: str) -> bool:
    return value == "O" or value[:2] in ("B-", "I-")


def _row_correct(task: str, items: pd.DataFrame, predictions: pd.DataFrame) -> np.ndarray:
    """Whether one prediction table gets each row of ``items`` right, scored as the difficulty gaps are."""
    by_item = predictions.set_index("item")
    if task != "ner" or "start" not in items.columns:
        return items["item"].map(by_item["correct"]).astype(float).to_numpy() >= 0.5
    tags = {int(i): str(p).split() for i, p in by_item["prediction"].items()}
    correct = task_spec("ner").unit_correct
    out = np.zeros(len(items), dtype=bool)
    for row, (item, start, end, gold) in enumerate(
        items[["item", "start", "end", "gold"]].itertuples(index=False)
    ):
        if not str(gold):  # sentence level: the whole sequence
            out[row] = bool(by_item.loc[int(item), "correct"] >= 0.5)
        else:  # a token (its gold is a tag) or an entity (its gold is a type)
            level = "token" if _is_tag(str(gold)) else "entity"
            out[row] = correct(level, gold, tags.get(int(item), []), int(start), int(end))
    return out


def load_test_tokens(run_id: str, tracking_uri: str | None = None) -> dict[int, list[str]]:
    """The evaluation sentences' tokens of an NER run by item (empty for runs that did not log them)."""
    frame = _read_table(client_for(tracking_uri), run_id, "analysis/test_tokens.json")
    if frame is None:
        return {}
    return {int(i): str(t).split(" ") for i, t in zip(frame["item"], frame["tokens"], strict=True)}


def _sentences(
    items: pd.Series, predictions: Mapping[tuple[str, int], pd.DataFrame], tokens: Mapping[int, list[str]]
) -> list[str]:
    """Each row's sentence with its gold entities bracketed, ``[New York]LOC``; '' where unknown."""
    from advisor.app._preview import _bracket_entities

    first = next(iter(predictions.values()), None)
    gold = {} if first is None else dict(zip(first["item"].astype(int), first["gold"], strict=True))
    out = []
    for item in items.astype(int):
        words, tags = tokens.get(item), str(gold.get(item, "")).split()
        out.append(
            _bracket_entities(words, tags) if words and len(words) == len(tags) else " ".join(words or [])
        )
    return out


def item_outcomes(
    analysis: Analysis,
    predictions: Mapping[tuple[str, int], pd.DataFrame],
    embeddings: Sequence[str] | None = None,
    tokens: Mapping[int, list[str]] | None = None,
) -> pd.DataFrame:
    """The per-item table with, per embedding, the share of seeds that got the row right.

    Rows are ``analysis.items`` (entities for NER, sentences for classification) when the run has
    them, else the evaluation items of the prediction tables. Adds ``right_<embedding>`` columns
    (0..1) and ``right_by``: the embeddings that got it right in most seeds. With NER ``tokens``
    (:func:`load_test_tokens`) a ``sentence`` column shows the tokens with their gold entities.
    """
    names = list(embeddings or [e for e in analysis.embedding_names if any(k[0] == e for k in predictions)])
    if analysis.items is not None and len(analysis.items):
        table = analysis.items.copy()
    elif predictions:
        first = next(iter(predictions.values()))
        table = first[[c for c in ("item", "line", "gold") if c in first.columns]].copy()
    else:
        return pd.DataFrame()
    for name in names:
        runs = [
            _row_correct(analysis.task, table, frame) for (e, _), frame in predictions.items() if e == name
        ]
        table[f"right_{name}"] = np.mean(runs, axis=0) if runs else np.nan
    table["right_by"] = [
        ", ".join(n for n in names if row[f"right_{n}"] > 0.5) or "none"
        for _, row in table[[f"right_{n}" for n in names]].iterrows()
    ]
    if analysis.task == "ner" and tokens:
        where = list(table.columns).index("text") + 1 if "text" in table.columns else 1
        table.insert(where, "sentence", _sentences(table["item"], predictions, tokens))
    return table


def item_metric_columns(task: str, table: pd.DataFrame) -> list[str]:
    """Difficulty metric columns present in an item table, in registry order."""
    return [name for name in difficulty_metric_names(task) if name in table.columns]


def filter_items(
    table: pd.DataFrame,
    metric: str | None = None,
    low: float | None = None,
    high: float | None = None,
    right: Mapping[str, bool] | None = None,
    keep_nonfinite: bool = True,
) -> pd.DataFrame:
    """Rows whose ``metric`` lies in [low, high] and whose ``right_<embedding>`` majority matches ``right``.

    Non-finite metric values (``ner_unseen`` is infinite for never-seen words) sit outside any slider
    range; ``keep_nonfinite`` keeps them.
    """
    mask = pd.Series(True, index=table.index)
    if metric is not None:
        values = table[metric].astype(float)
        in_range = pd.Series(True, index=table.index)
        if low is not None:
            in_range &= values >= low
        if high is not None:
            in_range &= values <= high
        mask &= in_range | (~np.isfinite(values) & keep_nonfinite)
    for name, wanted in (right or {}).items():
        mask &= (table[f"right_{name}"] > 0.5) == wanted
    return table[mask]


def verdict_text(verdict: str, status: str | None) -> str:
    """A verdict as lists show it: ``use contextual``, ``use contextual (partial: run killed)``.

    A run that did not finish and stored no verdict yet reads ``not judged yet (partial: run killed)``:
    its page shows the verdict so far with the same label, so the list never contradicts it.
    """
    label = partial_label(status)
    if label:
        return f"{verdict or 'not judged yet'} ({label})"
    return verdict or "no verdict"


#: The History table's columns, in order (``experiment_id`` is for links, not shown).
HISTORY_COLUMNS = (
    "run_id",
    "name",
    "dataset",
    "test set",
    "test items",
    "split",
    "task",
    "profile",
    "status",
    "cells",
    "verdict",
    "started",
    "experiment_id",
)


def history_frame(runs: Sequence[Any]) -> pd.DataFrame:
    """One row per analysis (MLflow parent run): what it was on (the training file, and the test set
    it was scored on: two analyses of one file with different test sets differ here), how far it got
    and its verdict."""
    rows = []
    for run in runs:
        tags, params = run.data.tags, run.data.params
        scored_on = test_set(run)
        rows.append(
            {
                "run_id": run.info.run_id,
                "name": run.info.run_name,
                "dataset": tags.get("advisor.dataset", params.get("dataset", "")),
                "test set": scored_on["test_set"],
                "test items": scored_on["test_items"],
                "split": scored_on["split"],
                "task": tags.get("advisor.task", params.get("task", "")),
                "profile": tags.get("advisor.profile", params.get("profile", "")),
                "status": run.info.status,
                "cells": tags.get("advisor.total_cells", ""),
                "verdict": verdict_text(tags.get("advisor.verdict", ""), run.info.status),
                "started": datetime.fromtimestamp(run.info.start_time / 1000, tz=UTC).strftime(
                    "%Y-%m-%d %H:%M UTC"
                ),
                "experiment_id": run.info.experiment_id,
            }
        )
    frame = pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))
    frame["test items"] = frame["test items"].astype("Int64")  # a count, blank when the run did not record it
    return frame


def compare_url(run_ids: Sequence[str], experiment_ids: Sequence[str], base: str = MLFLOW_UI_URL) -> str:
    """The MLflow UI page comparing ``run_ids`` (one run id opens that run's page instead), shown as
    model training (``workflowType``: MLflow 3.17 shows GenAI pages otherwise)."""
    experiments = list(dict.fromkeys(experiment_ids))
    if len(run_ids) == 1:
        return run_url(experiments[0], run_ids[0], base)
    runs = quote(json.dumps(list(run_ids), separators=(",", ":")))
    exps = quote(json.dumps(experiments, separators=(",", ":")))
    return f"{base}/#/compare-runs?runs={runs}&experiments={exps}&{WORKFLOW_QUERY}"
