"""Every malformed input or option ends in exit 2 with ``file:line: message`` — never a traceback,
never a hang, never a RUNNING MLflow run; unusual but valid input reads with the right counts.

The cases are generated in ``bad_inputs.py`` (both tasks, every class of defect). They run in-process
through the ``advisor_cli`` fixture; named pipes get a subprocess with a timeout as well, since a
blocking read there would hang the test run itself.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.advisor.cli.bad_inputs import Case, build_cases

CASES = build_cases()


def running_runs(store: Path) -> int:
    """RUNNING runs in an sqlite MLflow store (0 when no store was created)."""
    if not store.exists():
        return 0
    with sqlite3.connect(store) as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master where type='table'")}
        if "runs" not in tables:
            return 0
        return int(db.execute("select count(*) from runs where status = 'RUNNING'").fetchone()[0])


def materialise(case: Case, root: Path, bert: Path, vectors: Path) -> list[str]:
    """Write the case's files under ``root``; return its argv with placeholders filled in."""
    for name, content in case.files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    fifo = root / "pipe.conll"
    if not fifo.exists():
        os.mkfifo(fifo)
    values = {
        "{bert}": str(bert),
        "{vec}": str(vectors),
        "{fifo}": str(fifo),
        "{store}": f"sqlite:///{root / 'store' / 'mlflow.db'}",
        "{dir}": str(root),
    }
    argv = []
    for arg in case.args:
        for key, value in values.items():
            arg = arg.replace(key, value)
        argv.append(arg)
    return argv


def found(expected: str, output: str) -> bool:
    if expected.startswith("re:"):
        return re.search(expected[3:], output) is not None
    return expected in output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(
    case: Case,
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    advisor_cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if case.name.endswith("device-cuda-index"):
        import torch

        if torch.cuda.device_count() > 7:
            pytest.skip("this machine has a cuda:7")
    monkeypatch.chdir(tmp_path)  # messages name the files as given on the command line
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")
    argv = materialise(case, tmp_path, tiny_bert_dir, tiny_vectors_file)
    code, out, err = advisor_cli(*argv)
    output = out + err
    assert "Traceback" not in output
    assert code == case.code, output[-3000:]
    missing = [e for e in case.expect if not found(e, output)]
    assert not missing, f"{missing} not in:\n{output[-3000:]}"
    if case.code == 2:
        assert "error:" in err and ("hint:" in err or "[E" in err)
    assert running_runs(tmp_path / "store" / "mlflow.db") == 0


def test_the_suite_covers_both_tasks_and_every_class() -> None:
    names = [c.name for c in CASES]
    assert len(CASES) >= 80
    for task in ("ner", "classify"):
        assert sum(n.startswith(task) for n in names) >= 40
    for kind in (
        "fifo",
        "layer",
        "static",
        "tag",
        "uri",
        "device",
        "quote",
        "jsonl",
        "strict",
        "utf16",
        "unseen",
        "skipped",
        "did-you",
    ):
        assert any(kind in n for n in names) or any(
            kind.replace("-", " ") in e for c in CASES for e in c.expect
        ), kind


@pytest.mark.parametrize("command", ["inspect", "run"])
def test_named_pipe_never_hangs(tmp_path: Path, command: str) -> None:
    """A FIFO as the data file: refused at once (a blocking read would wait for ever)."""
    fifo = tmp_path / "data.conll"
    os.mkfifo(fifo)
    args = [command, str(fifo), "--task", "ner"]
    if command == "run":
        args += ["--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db"]
    result = subprocess.run(
        [sys.executable, "-c", "from advisor.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", "HF_HUB_OFFLINE": "1"},
    )
    assert result.returncode == 2
    assert "named pipe (FIFO)" in result.stderr and "Traceback" not in result.stderr
