"""The pages as a newcomer read them (issue 29): the Configure page shows the verdict when its run ends,
the costs table fits the page, and no table shows Streamlit's literal "None" for a missing value."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from advisor.app import cost_table, start_run
from advisor.tracking import load_analysis
from advisor.verdict import COST_COLUMNS, compare_costs, recommend

APP = str(Path(__file__).resolve().parents[3] / "streamlit_app.py")


def _finished_run(run_id: str) -> str:
    """A stand-in ``advisor run`` that plans ``run_id``, says it is done and exits 0."""
    return (
        "import os\n"
        "from advisor.progress import PROGRESS_FILE_ENV, ProgressFile\n"
        "from advisor.runner import ProgressEvent\n"
        "sink = ProgressFile(os.environ[PROGRESS_FILE_ENV], min_interval=0)\n"
        f"sink(ProgressEvent('plan', done=0, total=4, message='4 cells to compute', run_id='{run_id}'))\n"
        "sink(ProgressEvent('done', done=4, total=4))\n"
        "print('done', flush=True)\n"
    )


def _page(uri: str, page: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **query: str) -> AppTest:
    monkeypatch.setenv("ADVISOR_TRACKING_URI", uri)
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "uploads"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["page"] = page
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_configure_page_shows_the_verdict_when_its_run_ends(
    app_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = start_run(
        [sys.executable, "-c", _finished_run(app_store.finished)], tmp_path / "run.log", "ended-1"
    )
    assert job.process.wait(timeout=120) == 0, job.log_tail(20)
    deadline = time.time() + 10
    while job.running and time.time() < deadline:
        time.sleep(0.1)
    at = _page(app_store.uri, "Configure & run", monkeypatch, tmp_path, session="ended-1")
    rec = recommend(load_analysis(app_store.finished, app_store.uri))
    block = f"**Verdict: {rec.verdict.upper()}**\n\n{rec.headline}"  # the Results page's block, to the letter
    assert block in [s.value for s in at.success]
    at.button(key="open_results").click().run()
    assert not at.exception, at.exception
    assert at.sidebar.radio(key="page").value == "Results"
    assert at.selectbox(key="result_run").value == app_store.finished
    assert at.success[0].value == block


def test_cost_table_has_costs_as_rows_and_a_few_columns(app_store) -> None:
    costs = compare_costs(load_analysis(app_store.finished, app_store.uri))
    table = cost_table(costs)
    names = list(costs.table.index)
    assert list(table.columns) == ["cost", "unit", *names, "contextual / static", "contextual / random"]
    labels = {column: label for column, label, _ in COST_COLUMNS}
    memory = table.set_index("cost").loc[labels["peak_memory_mb"]]
    assert memory["unit"] == "MB" and memory["contextual"] == "1,000"  # separators, never 1e+03
    assert memory["contextual / static"].endswith("×")
    assert not table.map(lambda v: "e+" in str(v) or "e-" in str(v)).any().any()


def _dataframes_with_missing(at: AppTest) -> list[tuple[list[str], str]]:
    """(columns, placeholder) of every table on the page that holds a missing value."""
    return [
        (list(frame.value.columns), frame.proto.placeholder)
        for frame in at.dataframe
        if frame.value.isna().any().any()
    ]


def test_layers_page_shows_a_dash_not_none_for_the_mix_row(
    layer_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _page(layer_store.uri, "Layers", monkeypatch, tmp_path)
    missing = _dataframes_with_missing(at)
    assert missing and any("dev − mix" in columns for columns, _ in missing)
    assert [columns for columns, placeholder in missing if placeholder != "–"] == []
    assert any("– on the mix's own row" in c.value for c in at.caption)


def test_results_page_tables_show_a_dash_not_none_and_costs_fit(
    app_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _page(app_store.uri, "Results", monkeypatch, tmp_path, run=app_store.finished)
    assert [columns for columns, placeholder in _dataframes_with_missing(at) if placeholder != "–"] == []
    costs = next(frame for frame in at.dataframe if "unit" in frame.value.columns)
    assert len(costs.value.columns) <= 7  # cost, unit, 3 embeddings, 2 ratios: it fits, nothing cut off
    assert "cost" in costs.value.columns and "training peak memory (process)" in list(costs.value["cost"])
