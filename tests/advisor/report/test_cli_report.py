"""``advisor report``: options, output and errors with a stand-in loader (fast), and end to end through
a real temporary MLflow store read back by ``advisor.tracking.load_analysis`` (slow: store creation)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor.analysis import Analysis
from advisor.cli import app
from advisor.report import partial_notice
from advisor.verdict import Thresholds, analysis_from_scores, make_synthetic_analysis, recommend
from tests.helpers import copy_store


def _log_run(analysis: Analysis, uri: str) -> str:
    """Write ``analysis`` the way ``advisor run`` does: a parent run and one child per (embedding, seed)."""
    from advisor.tracking import AnalysisTracker

    tracker = AnalysisTracker(uri, "test")
    tracker.open(
        "synthetic-key",
        "synthetic",
        params={
            "task": analysis.task,
            "primary_metric": analysis.primary_metric,
            "n_train": analysis.full_size,
            "dataset_info": json.dumps(analysis.dataset),
            "embedding_info": json.dumps(
                analysis.embeddings[["embedding", "model", "dim", "embedding_bytes"]].to_dict("records")
            ),
        },
        tags={"advisor.task": analysis.task},
    )
    for row in analysis.embeddings.itertuples():
        tracker.log_parent_metrics(
            {
                f"featurize_seconds.{row.embedding}": row.featurize_seconds,
                f"featurize_items_per_s.{row.embedding}": row.featurize_items_per_s,
            }
        )
    columns = ["score", "train_seconds", "inference_ms_per_item", "peak_memory_mb", "n_params", "epochs"]
    for cell in analysis.curves.itertuples():
        tracker.child(cell.embedding, cell.seed)
        tracker.log_cell(cell.embedding, cell.size, cell.seed, {c: getattr(cell, c) for c in columns})
    tracker.close("FINISHED")
    return tracker.parent_id


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory: pytest.TempPathFactory, mlflow_template: Path) -> tuple[str, str, Analysis]:
    analysis = make_synthetic_analysis(n_sizes=4, seeds=(0, 1), noise=0.001, slice_effects={})
    uri = copy_store(mlflow_template, tmp_path_factory.mktemp("mlruns") / "mlflow.db")
    return uri, _log_run(analysis, uri), analysis


@pytest.fixture
def synthetic_run(monkeypatch: pytest.MonkeyPatch) -> tuple[Analysis, list[tuple[str, str | None]]]:
    """A synthetic analysis served by a stand-in loader that records what it was asked for."""
    import advisor.tracking

    analysis = make_synthetic_analysis(n_sizes=4, seeds=(0, 1), noise=0.001, slice_effects={})
    calls: list[tuple[str, str | None]] = []

    def load(
        run_ref: str = "latest", tracking_uri: str | None = None, experiment: str | None = None
    ) -> Analysis:
        calls.append((run_ref, tracking_uri))
        return analysis

    monkeypatch.setattr(advisor.tracking, "load_analysis", load)
    monkeypatch.setattr(advisor.tracking, "require_store", lambda uri: uri)  # no store on disk here
    return analysis, calls


def test_report_command_prints_the_verdict_and_writes_both_files(synthetic_run, tmp_path: Path) -> None:
    analysis, calls = synthetic_run
    args = ["report", "abc123", "--tracking-uri", "sqlite:///x.db", "--out", str(tmp_path), "--no-log"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert calls == [("abc123", "sqlite:///x.db")]
    expected = recommend(analysis, Thresholds())
    assert expected.verdict == "use contextual"
    assert f"Verdict: {expected.verdict.upper()}" in result.output
    assert expected.headline[:60] in result.output.replace("\n", " ")
    assert (tmp_path / "report.html").exists() and (tmp_path / "report.md").exists()
    assert "HTML report:" in result.output and "Markdown report:" in result.output


def test_threshold_options_reach_the_verdict(synthetic_run, tmp_path: Path) -> None:
    # The same run is "use contextual" at the default 1-point tolerance (previous test).
    args = ["report", "latest", "--out", str(tmp_path), "--no-log", "--acceptable-loss", "0.3"]
    generous = CliRunner().invoke(app, args)
    assert generous.exit_code == 0, generous.output
    assert "Verdict: RANDOM IS ENOUGH" in generous.output
    assert "acceptable loss 30.0 pts" in generous.output


def test_report_of_a_killed_run_is_labelled_partial_everywhere(synthetic_run, tmp_path: Path) -> None:
    analysis, _ = synthetic_run
    analysis.status = "KILLED"
    result = CliRunner().invoke(app, ["report", "latest", "--out", str(tmp_path), "--no-log"])
    assert result.exit_code == 0, result.output
    notice = partial_notice("KILLED")
    assert notice in " ".join(result.output.split())
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert notice in md and "(partial: run killed)**" in md
    assert notice in html and 'class="verdict use-contextual partial"' in html


def test_report_from_a_folder_without_a_store_creates_none(
    advisor_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    code, _out, err = advisor_cli("report", "latest")
    assert code == 2 and "no MLflow store at" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_bad_threshold_is_a_config_error(synthetic_run, tmp_path: Path) -> None:
    from advisor.errors import ConfigError

    args = ["report", "latest", "--out", str(tmp_path), "--labelling-budget-money", "100"]
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, ConfigError)
    assert "--label-cost" in str(result.exception)


@pytest.mark.slow
def test_report_end_to_end_through_mlflow(logged_run, tmp_path: Path) -> None:
    from advisor.tracking import client_for

    uri, run_id, analysis = logged_run
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", "latest", "--tracking-uri", uri, "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = recommend(analysis, Thresholds())
    assert f"Verdict: {expected.verdict.upper()}" in result.output
    assert (out / "report.html").exists() and (out / "report.md").exists()
    client = client_for(uri)
    logged = {a.path for a in client.list_artifacts(run_id, "report")}
    assert {"report/report.html", "report/report.md", "report/verdict.json", "report/figures"} <= logged
    local = client.download_artifacts(run_id, "report/verdict.json", str(tmp_path))
    assert json.loads(Path(local).read_text())["verdict"] == expected.verdict


@pytest.mark.parametrize("zero", [("random", "static"), ("random", "static", "contextual")])
def test_report_of_a_run_that_learned_nothing(
    tmp_path: Path, mlflow_template: Path, zero: tuple[str, ...]
) -> None:
    """WNUT-17 on 300 sentences: random and static (or every family) score F1 0.0 at every size; the
    report says so instead of failing on an undefined R²."""
    scores = {
        name: {
            size: [0.0, 0.0] if name in zero else [size / 1000, size / 1000 + 0.01]
            for size in (50, 100, 200, 400)
        }
        for name in ("random", "static", "contextual")
    }
    uri = copy_store(mlflow_template, tmp_path / "mlruns" / "mlflow.db")
    _log_run(analysis_from_scores(scores), uri)
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", "latest", "--tracking-uri", uri, "--out", str(out)])
    assert result.exit_code == 0, result.output
    markdown = html.unescape((out / "report.md").read_text(encoding="utf-8"))
    if len(zero) == 3:
        expected = (
            "no family learned this task at these sizes: every score is 0.0 — check the labels or add data"
        )
        assert "Verdict: INCONCLUSIVE" in result.output
    else:
        expected = "Static's curve is flat (0.000 at every size): no extrapolation"
        assert "random and static scored 0.0 at every size and seed" in result.output
    assert expected in " ".join(result.output.split()) and expected in markdown
