"""The History page's table: which test set each analysis was scored on, so two analyses of one file differ."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd

from advisor.app import history_frame
from advisor.tracking import find_analyses
from tests.helpers import FinishedRun

SPLIT = "test: stratified 10% of the file, seed 0; dev: stratified 10% of the file, seed 0"


def _run(
    run_id: str, test_input: str | None, n_test: int | None, split: str | None, verdict: str
) -> SimpleNamespace:
    """A parent run as ``search_runs`` returns it: params, tags, and the test part of its dataset inputs."""
    params = {"dataset": "news.tsv"}
    if n_test is not None:
        params["n_test"] = str(n_test)
    if split is not None:
        params["dataset_info"] = json.dumps({"name": "news.tsv", "split_method": split})
    inputs = []
    if test_input is not None:
        context = SimpleNamespace(key="mlflow.data.context", value="test")
        inputs.append(SimpleNamespace(tags=[context], dataset=SimpleNamespace(name=test_input)))
    return SimpleNamespace(
        info=SimpleNamespace(run_id=run_id, run_name="news.tsv-classify", status="FINISHED", start_time=0, experiment_id="1"),
        data=SimpleNamespace(params=params, tags={"advisor.dataset": "news.tsv", "advisor.verdict": verdict}),
        inputs=SimpleNamespace(dataset_inputs=inputs),
    )  # fmt: skip


def test_two_analyses_of_one_file_with_different_test_sets_differ() -> None:
    runs = [
        _run(
            "given", "news.test.tsv (test)", 7600, "dev: stratified 10% of the file, seed 0", "use contextual"
        ),
        _run("split", "news.tsv (test split)", 1000, SPLIT, "inconclusive"),
        _run("old", None, None, None, "use static"),  # an older run: nothing recorded about its test set
    ]
    frame = history_frame(runs).set_index("run_id")
    assert list(frame.loc["given", ["dataset", "test set", "test items"]]) == [
        "news.tsv",
        "news.test.tsv",
        7600,
    ]
    assert list(frame.loc["split", ["dataset", "test set", "test items"]]) == [
        "news.tsv",
        "split from train",
        1000,
    ]
    assert frame.loc["split", "split"] == SPLIT and frame.loc["given", "split"].startswith("dev:")
    assert list(frame["verdict"]) == ["use contextual", "inconclusive", "use static"]
    assert frame.loc["old", "test set"] == "" and pd.isna(frame.loc["old", "test items"])
    shown = ["dataset", "test set", "test items", "split", "verdict"]
    assert not frame.loc["given", shown].equals(frame.loc["split", shown])


def test_history_reads_the_test_set_a_real_run_recorded(finished_run: FinishedRun) -> None:
    frame = history_frame(find_analyses(finished_run.settings.tracking_uri))
    row = frame.set_index("run_id").loc[finished_run.outcome.run_id]
    assert (row["test set"], row["test items"], row["split"]) == ("test.conll", 12, "given")
