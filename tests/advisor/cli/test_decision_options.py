"""The decision options (issue 29) on ``advisor run`` and ``advisor report``: the same names and checks on
both, refused before anything is created or read, stored by the run and overridden by the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from advisor.data import read_splits
from advisor.pipeline import plan_run
from advisor.settings import DECISION_INPUTS, DECISION_PARAM, RunSettings, setting
from advisor.tracking import DECISION_TAG, load_analysis
from tests.advisor.app.synthetic_store import log_analysis
from tests.helpers import NewStore, write_ner

RUN = ["--embeddings", "random", "--sizes", "4", "--seeds", "1", "--profile", "quick", "--workers", "1"]

BAD = [
    (["--acceptable-loss", "nan"], "[E244]", "--acceptable-loss must be a finite number, got nan"),
    (["--acceptable-loss", "1.5"], "[E211]", "--acceptable-loss must be below 1 (the 0-1 score scale)"),
    (["--latency-budget-ms", "inf"], "[E244]", "--latency-budget-ms must be a finite number, got inf"),
    (["--latency-budget-ms", "-3"], "[E211]", "--latency-budget-ms must not be negative, got -3.0"),
    (["--latency-batch", "8"], "[E211]", "--latency-batch must be 1 or 64 (the batch sizes the serving pass"),
    (["--monthly-items", "-1"], "[E211]", "--monthly-items must not be negative"),
    (["--monthly-items", "1e16"], "[E245]", "--monthly-items must be at most 1,000,000,000,000,000"),
    (["--price-per-hour", "nan"], "[E244]", "--price-per-hour must be a finite number, got nan"),
    (
        ["--value-per-point", "-2", "--price-per-hour", "1"],
        "[E211]",
        "--value-per-point must not be negative",
    ),
    (["--label-cost", "inf"], "[E244]", "--label-cost must be a finite number, got inf"),
    (["--label-cost", "2e6"], "[E245]", "--label-cost must be at most 1,000,000"),
]


def _refused(advisor_cli, args: list[str], code: str, message: str) -> None:
    exit_code, out, err = advisor_cli(*args)
    assert exit_code == 2, out + err
    assert "Traceback" not in out + err
    assert code in err and message in err and "hint:" in err, err


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    write_ner(tmp_path / "train.conll", 20, 0)
    return tmp_path


@pytest.mark.parametrize(("options", "code", "message"), BAD)
def test_run_refuses_a_bad_decision_option_before_creating_the_store(
    folder: Path, advisor_cli, options: list[str], code: str, message: str
) -> None:
    store = folder / "store" / "mlflow.db"
    args = ["run", "train.conll", "--task", "ner", "--tracking-uri", f"sqlite:///{store}", *RUN, *options]
    _refused(advisor_cli, args, code, message)
    assert not store.exists()


@pytest.mark.parametrize(("options", "code", "message"), BAD)
def test_report_refuses_the_same_options_before_reading_the_run(
    folder: Path, advisor_cli, options: list[str], code: str, message: str
) -> None:
    never = folder / "none.db"  # never opened: refused first
    _refused(
        advisor_cli, ["report", "latest", "--tracking-uri", f"sqlite:///{never}", *options], code, message
    )
    assert not never.exists()


def test_run_needs_a_price_for_a_value_per_point(folder: Path, advisor_cli) -> None:
    store = folder / "store" / "mlflow.db"
    args = ["run", "train.conll", "--task", "ner", "--tracking-uri", f"sqlite:///{store}", *RUN]
    _refused(
        advisor_cli, [*args, "--value-per-point", "5"], "[E604]", "--value-per-point needs --price-per-hour"
    )
    assert not store.exists()


def test_run_and_report_spell_the_options_alike() -> None:
    from typer.main import get_command

    from advisor.cli import app

    group = get_command(app)
    flags = {}
    for command in ("run", "report"):
        context = group.make_context("advisor", [command, "--help"], resilient_parsing=True)
        flags[command] = {o for p in group.get_command(context, command).params for o in p.opts}
    wanted = {setting(name).flag for name in DECISION_INPUTS}
    assert wanted <= flags["run"] and wanted <= flags["report"]


def test_the_plan_stores_what_the_run_was_given(tmp_path: Path) -> None:
    files = {
        p: str(write_ner(tmp_path / f"{p}.conll", 20, i)) for i, p in enumerate(("train", "dev", "test"))
    }
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    base = {
        "data": files["train"],
        "task": "ner",
        "dev": files["dev"],
        "test": files["test"],
        "device": "cpu",
    }
    given = {"latency_budget_ms": 10.0, "latency_batch": 64, "price_per_hour": 2.0, "value_per_point": 3.0}
    plain = plan_run(RunSettings(**base, embeddings=["random"]), splits)
    plan = plan_run(RunSettings(**base, embeddings=["random"], **given), splits)
    assert json.loads(plan.tags[DECISION_TAG]) == given and json.loads(plain.tags[DECISION_TAG]) == {}
    assert plan.key == plain.key  # what the verdict weighs never starts another run


def test_report_judges_with_the_run_inputs_unless_told_otherwise(
    tmp_path: Path, new_store: NewStore, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    uri = new_store(tmp_path)
    run_id = log_analysis(uri, "decided")
    stored = {"latency_budget_ms": 0.0001, "price_per_hour": 2.0, "monthly_items": 5e6}
    MlflowClient(uri).set_tag(run_id, DECISION_TAG, json.dumps(stored))  # as `advisor run` tags it
    assert json.loads(load_analysis(run_id, uri).params[DECISION_PARAM]) == stored
    report = ["report", run_id, "--tracking-uri", uri, "--no-log"]
    code, out, err = advisor_cli(*report, "--out", str(tmp_path / "a"))
    assert code == 0, out + err
    assert "Verdict: NOTHING WITHIN BUDGET" in out
    assert "latency budget 0.0001 ms/item at batch 1" in out and "volume 5,000,000 items a month" in out
    code, out, err = advisor_cli(*report, "--out", str(tmp_path / "b"), "--latency-budget-ms", "100000")
    assert code == 0, out + err
    assert "NOTHING WITHIN BUDGET" not in out and "latency budget 100000 ms/item at batch 1" in out
    assert "price $2.00 per machine-hour, volume 5,000,000 items a month" in out  # the rest: still the run's


def test_run_stores_its_decision_options_for_the_final_verdict(
    finished_run_copy, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``advisor run`` with the options (a resume of a finished run: nothing retrains) judges with them and
    records them; the same run again without them clears them."""
    monkeypatch.setenv("COLUMNS", "400")  # the thresholds line on one line
    from dataclasses import replace

    from advisor.settings import to_argv
    from advisor.verdict import recommend

    given = {"latency_budget_ms": 0.0001, "price_per_hour": 2.0, "monthly_items": 5e6}
    settings = replace(finished_run_copy.settings, **given)
    code, out, err = advisor_cli("run", *to_argv(settings))
    assert code == 0, out + err
    said = " ".join(out.split())  # the thresholds line, however the console wrapped it
    assert "latency budget 0.0001 ms/item at batch 1" in said and "volume 5,000,000 items a month" in said
    run_id = finished_run_copy.outcome.run_id
    analysis = load_analysis(run_id, settings.tracking_uri)
    assert json.loads(analysis.params[DECISION_PARAM]) == given
    assert recommend(analysis).thresholds.latency_budget_ms == 0.0001
    code, out, err = advisor_cli("run", *to_argv(finished_run_copy.settings))
    assert code == 0 and "latency budget none" in " ".join(out.split())
    assert json.loads(load_analysis(run_id, settings.tracking_uri).params[DECISION_PARAM]) == {}
