"""Issue 28 through the ``advisor`` entry point: options with NaN, inf or absurd values, outputs that
cannot be written, stores that are not stores, and user strings shown through Rich.

Every refusal is exit 2 with the option (or environment variable, or path) named and no traceback; a
refused ``advisor run`` leaves no MLflow store behind, let alone a run.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest

from advisor._error_codes import CATALOG, VARIANTS
from advisor.cli import app
from advisor.cli._storage import storage_error

NER = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n" * 10
CSV = "text,label\n" + "".join(
    f"item {i} is {'good' if i % 2 else 'bad'},{'pos' if i % 2 else 'neg'}\n" for i in range(30)
)
RUN = ["--embeddings", "random", "--sizes", "4", "--seeds", "1", "--profile", "quick", "--workers", "1"]


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder of a command: a CoNLL and a CSV training file, a text file, a vectors file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    (tmp_path / "train.conll").write_text(NER, encoding="utf-8")
    (tmp_path / "train.csv").write_text(CSV, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("just text\n", encoding="utf-8")
    (tmp_path / "v.txt").write_text("the 0.1 0.2 0.3 0.4\nman 0.1 0.2 abc 0.4\n", encoding="utf-8")
    (tmp_path / "listconfig").mkdir()
    (tmp_path / "listconfig" / "config.json").write_text("[1, 2]", encoding="utf-8")
    return tmp_path


def _refused(advisor_cli, args: list[str], *expected: str) -> str:
    code, out, err = advisor_cli(*args)
    assert "Traceback" not in out + err
    assert code == 2, out + err
    for text in expected:
        assert text in err, f"{text!r} not in {err!r}"
    assert "hint:" in err
    return err


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--price-per-hour", "nan"], "--price-per-hour must be a finite number, got nan"),
        (["--price-per-hour", "inf"], "--price-per-hour must be a finite number, got inf"),
        (["--seeds", "100000"], "--seeds must be at most 1,000"),
        (["--seeds", "99999999999999999999999"], "--seeds must be at most 1,000"),
        (["--random-dim", "1000000000"], "--random-dim must be at most 16,384"),
        (["--projection", "100000"], "--projection must be at most 4,096"),
        (["--max-steps", str(10**12)], "--max-steps must be at most 10,000,000"),
        (["--embeddings", "static", "--static", "v.txt"], "v.txt:2: not a number: 'abc'"),
        (["--embeddings", "contextual", "--contextual", "listconfig"], "it holds a JSON list, not an object"),
        (["--cache-dir", "notes.txt/cache"], "cache folder notes.txt/cache: notes.txt is a file"),
        (["--until", "sometimes"], "unknown --until value 'sometimes'"),
        (["--pair-encoding", "both"], "unknown --pair-encoding 'both'"),
        (["--pair-encoding", "separate"], "--pair-encoding separate applies to --task pair only"),
    ],
)
def test_run_refuses_before_creating_the_store(
    folder: Path, advisor_cli, options: list[str], expected: str
) -> None:
    store = folder / "store" / "mlflow.db"
    args = ["run", "train.conll", "--task", "ner", "--tracking-uri", f"sqlite:///{store}", *RUN, *options]
    _refused(advisor_cli, args, expected)
    assert not store.exists()


def test_run_checks_the_spacy_model_before_the_store(folder: Path, advisor_cli) -> None:
    store = folder / "store" / "mlflow.db"
    args = ["run", "train.csv", "--task", "classify", "--tracking-uri", f"sqlite:///{store}", *RUN]
    _refused(advisor_cli, [*args, "--spacy-model", "no_such_pipeline"], "--spacy-model 'no_such_pipeline'")
    assert not store.exists()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--max-extrapolation", "nan"], "--max-extrapolation must be a finite number, got nan"),
        (["--latency-budget-ms", "nan"], "--latency-budget-ms must be a finite number, got nan"),
        (["--label-cost", "inf"], "--label-cost must be a finite number, got inf"),
        (
            ["--labelling-budget-money", "nan", "--label-cost", "1"],
            "--labelling-budget-money must be a finite",
        ),
        (["--acceptable-loss", "nan"], "--acceptable-loss must be a finite number"),
        (["--min-seeds", "100000"], "--min-seeds must be at most 1,000"),
        (["--labelling-budget-items", str(10**400)], "--labelling-budget-items must be at most"),
        (["--out", "notes.txt"], "report folder notes.txt: notes.txt is a file, not a folder"),
        (["--tracking-uri", "sqlite:///{dir}/notes.txt"], "notes.txt is not an SQLite database"),
    ],
)
def test_report_refuses_bad_options_before_reading_the_run(
    folder: Path, advisor_cli, options: list[str], expected: str
) -> None:
    args = ["report", "latest", *(o.replace("{dir}", str(folder)) for o in options)]
    if "--tracking-uri" not in options:
        args += ["--tracking-uri", f"sqlite:///{folder / 'none.db'}"]  # never opened: refused first
    _refused(advisor_cli, args, expected)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--out", "missing/items.csv"], "--out must be in an existing folder"),
        (["--out", "listconfig"], "--out must name a file, but listconfig is a folder"),
        (["--difficult-share", "nan"], "--difficult-share must lie in (0, 1), got nan"),
        (["--spacy-model", "no_such_pipeline"], "--spacy-model 'no_such_pipeline'"),
    ],
)
def test_metrics_refuses_before_computing(
    folder: Path, advisor_cli, monkeypatch: pytest.MonkeyPatch, options: list[str], expected: str
) -> None:
    import advisor.cli.metrics as metrics

    monkeypatch.setattr(metrics, "item_metrics", lambda *a, **k: pytest.fail("computed before refusing"))
    _refused(advisor_cli, ["metrics", "train.csv", "--task", "classify", *options], expected)


def test_predict_gain_seed_has_numpys_bound(folder: Path, advisor_cli) -> None:
    _refused(
        advisor_cli, ["predict-gain", "latest", "notes.txt", "--seed", str(2**40)], "--seed must be at most"
    )


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["--max-upload-mb", "0"], None, "--max-upload-mb must be positive, got 0"),
        (["--max-upload-mb", "-3"], None, "--max-upload-mb must be positive, got -3"),
        (["--max-upload-mb", "99999999"], None, "--max-upload-mb must be at most 10,240"),
        ([], "-3", "ADVISOR_MAX_UPLOAD_MB must be positive, got -3"),
        ([], "abc", "ADVISOR_MAX_UPLOAD_MB must be a whole number of megabytes, got 'abc'"),
        (["--port", "99999"], None, "--port must be a TCP port in 1..65535, got 99999"),
    ],
)
def test_ui_names_the_source_of_a_bad_value(
    folder: Path,
    advisor_cli,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: str | None,
    expected: str,
) -> None:
    import os

    monkeypatch.setattr(os, "execve", lambda *a: pytest.fail("the server was started"))
    if env is None:
        monkeypatch.delenv("ADVISOR_MAX_UPLOAD_MB", raising=False)
    else:
        monkeypatch.setenv("ADVISOR_MAX_UPLOAD_MB", env)
    err = _refused(advisor_cli, ["ui", *args], expected)
    if env is not None:
        assert "--max-upload-mb" not in err.splitlines()[0]  # the variable is named, not the option


@pytest.mark.parametrize("label", ["[/]", "[bold]neg", "[link=x]pos[/link]", "a\\[b"])
def test_inspect_shows_labels_and_file_names_as_written(folder: Path, advisor_cli, label: str) -> None:
    name = "odd [red]name[@x].csv"  # markup, but no slash in a file name
    rows = "".join(f'"item {i} is here","{label if i % 2 else "plain"}"\n' for i in range(30))
    (folder / name).write_text("text,label\n" + rows, encoding="utf-8")
    code, out, err = advisor_cli("inspect", name, "--task", "classify")
    assert code == 0, out + err
    assert "Traceback" not in out + err
    assert label in out and name in out  # not swallowed as markup, not restyled


def test_no_hint_names_a_command_that_does_not_exist() -> None:
    commands = {command.name or command.callback.__name__ for command in app.registered_commands}
    texts = [entry.template + " " + (entry.hint or "") for entry in [*CATALOG.values(), *VARIANTS]]
    named = {m for text in texts for m in re.findall(r"`advisor ([a-z][a-z-]*)", text)}
    assert named and named <= commands, named - commands
    assert "advisor ui" in (CATALOG["E227"].hint or "")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (OSError(errno.ENOSPC, "No space left on device", "/data/out/report.md"), "disk full"),
        (OSError(errno.EACCES, "Permission denied", "/data/out/report.md"), "permission denied"),
        (OSError(errno.EROFS, "Read-only file system", "/data/out/report.md"), "permission denied"),
    ],
)
def test_storage_errors_name_the_path(error: OSError, expected: str) -> None:
    found = storage_error(error)
    assert found is not None and expected in found.render() and "/data/out/report.md" in found.render()
    wrapped = RuntimeError("logging failed")
    wrapped.__cause__ = error
    assert storage_error(wrapped) is not None  # found anywhere in the chain
    copy = OSError(errno.ENOSPC, "No space left on device", "/tmp/figure.png", None, "/data/out/report.md")
    assert "/data/out/report.md: disk full" in storage_error(copy).render()  # a copy's destination
    assert storage_error(ValueError("nothing to do with disks")) is None
    assert storage_error(OSError(errno.ENOENT, "No such file", "x")) is None


def test_a_store_that_fills_up_during_a_run_says_disk_full(
    folder: Path, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sqlite's "database or disk is full", as sqlalchemy and MLflow wrap it, is exit 2 naming the store."""
    import sqlite3

    import advisor.cli.run as run

    def full(*args: object, **kwargs: object) -> None:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as error:
            raise RuntimeError(
                "(sqlite3.OperationalError) database or disk is full [SQL: INSERT ...]"
            ) from error

    monkeypatch.setattr(run, "run_analysis", full)
    store = folder / "store" / "mlflow.db"
    err = _refused(
        advisor_cli,
        ["run", "train.conll", "--task", "ner", "--tracking-uri", f"sqlite:///{store}", *RUN],
        "MLflow store",
        "disk full",
        str(store),
    )
    assert "--tracking-uri" in err
