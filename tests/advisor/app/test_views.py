"""View models of the results pages, checked against independent computations on the stored run."""

from __future__ import annotations

import json
import math
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pytest
from seqeval.metrics import recall_score
from seqeval.scheme import IOB2

from advisor.app import (
    compare_url,
    cost_table,
    filter_items,
    history_frame,
    item_metric_columns,
    item_outcomes,
    load_predictions,
    mlflow_ui_command,
    server_url,
    slice_table,
    verdict_text,
)
from advisor.tracking import find_analyses, load_analysis
from advisor.verdict import COST_COLUMNS, compare_costs

from .synthetic_store import SEEDS, SIZES, SKILL


@pytest.fixture(scope="module")
def finished(app_store):
    analysis = load_analysis(app_store.finished, app_store.uri)
    return analysis, load_predictions(app_store.finished, app_store.uri)


def test_load_predictions_reads_every_cell_at_the_largest_size(finished) -> None:
    _, predictions = finished
    assert set(predictions) == {(e, s) for e in SKILL for s in SEEDS}
    frame = predictions[("contextual", 0)]
    assert list(frame["item"]) == list(range(len(frame))) and {"gold", "prediction", "correct"} <= set(
        frame.columns
    )


def test_item_outcomes_agree_with_seqeval_recall(finished) -> None:
    analysis, predictions = finished
    table = item_outcomes(analysis, predictions)
    assert len(table) == len(analysis.items)  # one row per gold entity
    for embedding in SKILL:
        recalls = []
        for seed in SEEDS:
            frame = predictions[(embedding, seed)]
            gold = [g.split() for g in frame["gold"]]
            pred = [p.split() for p in frame["prediction"]]
            recalls.append(recall_score(gold, pred, mode="strict", scheme=IOB2))
        # The share of entities recognised exactly, averaged over seeds, is strict entity recall.
        assert math.isclose(table[f"right_{embedding}"].mean(), float(np.mean(recalls)), abs_tol=1e-12)
        assert set(table[f"right_{embedding}"].round(6)) <= {
            round(k / len(SEEDS), 6) for k in range(len(SEEDS) + 1)
        }
    row = table.iloc[0]
    majority = [e for e in SKILL if row[f"right_{e}"] > 0.5]
    assert row["right_by"] == (", ".join(e for e in analysis.embedding_names if e in majority) or "none")


def test_item_outcomes_fall_back_to_prediction_rows_without_an_item_table(finished) -> None:
    analysis, predictions = finished
    bare = type(analysis)(**{**analysis.__dict__, "items": None})
    table = item_outcomes(bare, predictions)
    assert len(table) == len(predictions[("random", 0)])
    whole = np.mean([predictions[("static", s)]["correct"] for s in SEEDS], axis=0)
    assert np.allclose(table["right_static"], whole)


def test_filter_items_by_metric_range_and_by_who_got_it_right(finished) -> None:
    analysis, predictions = finished
    table = item_outcomes(analysis, predictions)
    assert item_metric_columns("ner", table) == ["ner_complexity", "ner_ambiguity", "ner_unseen"]
    long = filter_items(table, "ner_complexity", low=2, high=None)
    assert (
        len(long)
        and (long["ner_complexity"] >= 2).all()
        and len(long) == (table["ner_complexity"] >= 2).sum()
    )
    values = table["ner_unseen"].astype(float)
    finite = values[np.isfinite(values)]
    kept = filter_items(table, "ner_unseen", float(finite.min()), float(finite.max()), keep_nonfinite=True)
    dropped = filter_items(
        table, "ner_unseen", float(finite.min()), float(finite.max()), keep_nonfinite=False
    )
    assert len(kept) == len(table) and len(dropped) == len(finite) < len(table)
    only = filter_items(table, right={"contextual": True, "static": False})
    expected = (table["right_contextual"] > 0.5) & (table["right_static"] <= 0.5)
    assert list(only.index) == list(table.index[expected]) and len(only) > 0


def test_slice_table_is_the_gap_table_in_points(finished) -> None:
    analysis, _ = finished
    table = slice_table(analysis.slices)
    top = analysis.slices[analysis.slices["size"] == max(SIZES)]
    assert len(table) == top.groupby(["metric", "pair"]).ngroups
    row = table.iloc[0]
    source = top[(top["metric"] == row["metric"]) & (top["pair"] == row["pair"])].set_index("slice")
    assert math.isclose(row["difficult"], source.loc["difficult", "gap"] * 100)
    assert math.isclose(row["difficult − easy"], source.loc["difficult-minus-easy", "gap"] * 100)
    assert slice_table(None).empty


def test_cost_table_labels_and_values(finished) -> None:
    analysis, _ = finished
    costs = compare_costs(analysis)
    table = cost_table(costs).set_index("cost")
    labels = {column: label for column, label, _ in COST_COLUMNS}
    assert (
        table.loc[labels["train_seconds"], "unit"] == "s"
        and table.loc[labels["peak_memory_mb"], "unit"] == "MB"
    )
    assert costs.value("contextual", "peak_memory_mb") == 1000.0
    assert table.loc[labels["peak_memory_mb"], "contextual"] == "1,000"
    assert table.loc[labels["train_seconds"], "static"] == "1"  # synthetic store: cost 1 × size/64 at size 64


def test_history_frame_and_mlflow_links(app_store) -> None:
    runs = find_analyses(app_store.uri)
    frame = history_frame(runs)
    assert list(frame["run_id"]) == [app_store.finished, app_store.partial]  # newest first
    assert list(frame["status"]) == ["FINISHED", "RUNNING"]
    assert (
        frame.loc[0, "verdict"] == "use contextual"
        and frame.loc[1, "verdict"] == "not judged yet (partial: run still running)"
    )
    assert mlflow_ui_command(app_store.uri) == f"mlflow ui --backend-store-uri {app_store.uri}"
    url = compare_url(list(frame["run_id"]), list(frame["experiment_id"]))
    query = dict(part.split("=", 1) for part in url.split("?", 1)[1].split("&"))
    assert json.loads(unquote(query["runs"])) == [app_store.finished, app_store.partial]
    assert json.loads(unquote(query["experiments"])) == [frame.loc[0, "experiment_id"]]
    assert query["workflowType"] == "machine_learning"  # MLflow 3.17 shows GenAI pages otherwise
    single = compare_url([app_store.finished], ["7"])
    assert single.endswith(f"/#/experiments/7/runs/{app_store.finished}?workflowType=machine_learning")
    assert isinstance(frame, pd.DataFrame)


@pytest.mark.parametrize(
    ("uri", "url"),
    [
        ("http://127.0.0.1:5055", "http://127.0.0.1:5055"),
        ("https://mlflow.example.org/", "https://mlflow.example.org"),
        ("https://alice:s3cret@mlflow.example.org:8443/team/", "https://mlflow.example.org:8443/team"),
    ],
)
def test_a_tracking_server_is_browsed_at_its_own_url_without_credentials(uri: str, url: str) -> None:
    assert server_url(uri) == url
    assert mlflow_ui_command(uri) == url  # the server is its own UI: no `mlflow ui --backend-store-uri http…`
    assert (
        compare_url(["r1"], ["3"], base=url) == f"{url}/#/experiments/3/runs/r1?workflowType=machine_learning"
    )


def test_a_local_store_is_browsed_with_mlflow_ui(tmp_path) -> None:
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    assert server_url(uri) is None
    assert mlflow_ui_command(uri) == f"mlflow ui --backend-store-uri {uri}"


def test_verdict_text_labels_partial_verdicts_in_the_one_wording() -> None:
    assert verdict_text("use contextual", "FINISHED") == "use contextual"
    assert verdict_text("use contextual", "KILLED") == "use contextual (partial: run killed)"
    assert verdict_text("", "KILLED") == "not judged yet (partial: run killed)"
    assert verdict_text("", "FINISHED") == "no verdict"
