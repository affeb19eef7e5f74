"""MLflow helpers: the store default, tables that survive the JSON round-trip, run lookup errors."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from advisor.errors import ConfigError
from advisor.tracking import AnalysisTracker, load_analysis, read_json_table, resolve_tracking_uri
from tests.helpers import NewStore


def test_resolve_tracking_uri(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)
    assert resolve_tracking_uri() == "sqlite:///mlruns/mlflow.db"
    assert (tmp_path / "mlruns").is_dir()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5000")
    assert resolve_tracking_uri() == "http://127.0.0.1:5000"
    assert resolve_tracking_uri("sqlite:///x/y.db") == "sqlite:///x/y.db"
    with pytest.raises(ConfigError, match="is not a URI"):
        resolve_tracking_uri("mlruns")


def test_tables_keep_missing_numbers_as_nan(tmp_path: Path, new_store: NewStore) -> None:
    tracker = AnalysisTracker(new_store(tmp_path), "t")
    tracker.open("k", "run", {"task": "ner"}, {})
    frame = pd.DataFrame(
        {"metric": ["a", "b"], "gap": [0.5, math.nan], "gap_lo": [math.nan, math.nan], "n": [3, 4]}
    )
    tracker.log_table(frame, "analysis/gaps.json")
    back = read_json_table(tracker.client, tracker.parent_id, "analysis/gaps.json")
    assert back["gap"].dtype == float and math.isnan(back["gap"][1]) and back["gap"][0] == 0.5
    assert back["gap_lo"].dtype == float and back["gap_lo"].isna().all()
    assert back["metric"].tolist() == ["a", "b"]
    tracker.close("FINISHED")
    assert tracker.client.get_run(tracker.parent_id).info.status == "FINISHED"


def test_load_analysis_errors(tmp_path: Path, new_store: NewStore) -> None:
    uri = new_store(tmp_path)
    with pytest.raises(ConfigError, match="no analysis in the tracking store"):
        load_analysis("latest", uri)
    with pytest.raises(ConfigError, match="no run with id 'nope'"):
        load_analysis("nope", uri)


def test_a_table_logged_again_replaces_the_first(tmp_path: Path, new_store: NewStore) -> None:
    """MLflow's log_table appends; a resumed or --force run must not double a table's rows."""
    tracker = AnalysisTracker(new_store(tmp_path), "t")
    tracker.open("k", "run", {"task": "ner"}, {})
    tracker.log_table(pd.DataFrame({"item": [0, 1], "score": [0.1, 0.2]}), "analysis/curves.json")
    tracker.log_table(pd.DataFrame({"item": [0, 1, 2], "score": [0.3, 0.4, 0.5]}), "analysis/curves.json")
    back = read_json_table(tracker.client, tracker.parent_id, "analysis/curves.json")
    assert back["item"].tolist() == [0, 1, 2]
    assert back["score"].tolist() == [0.3, 0.4, 0.5]
    tracker.close("FINISHED")
