"""``advisor inspect`` as a user runs it: a table on success, ``file:line`` and exit 2 on bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from advisor.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": ""},
    )


def test_inspect_prints_summary(tmp_path: Path) -> None:
    path = tmp_path / "train.conll"
    path.write_text(
        "".join(f"Ann\tB-PER\nLee\tI-PER\nsang\tO\nword{i}\tO\n\n" for i in range(30)), encoding="utf-8"
    )
    result = run_cli("inspect", str(path), "--task", "ner")
    assert result.returncode == 0, result.stderr
    assert "sentences" in result.stdout and "30" in result.stdout
    assert "120" in result.stdout  # tokens
    assert "IOB2" in result.stdout
    assert "train 24, dev 3, test 3" in result.stdout, result.stdout


def test_inspect_bad_file_exits_2_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.conll"
    path.write_text("John B-PER\nlives VBZ O\n", encoding="utf-8")
    result = run_cli("inspect", str(path), "--task", "ner")
    assert result.returncode == 2
    assert f"{path}:2: row has 3 columns" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_inspect_unknown_task_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "a.conll"
    path.write_text("John B-PER\n", encoding="utf-8")
    result = run_cli("inspect", str(path), "--task", "pos")
    assert result.returncode == 2
    assert "unknown task 'pos'" in result.stderr and "ner, classify" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = run_cli("inspect", str(tmp_path / "nope.csv"), "--task", "classify")
    assert result.returncode == 2
    assert "file not found" in result.stderr
