"""``advisor run`` from the command line: leaderboard and verdict on success, exit 2 on bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROWS = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "from advisor.cli import main; main()"
    env = {"COLUMNS": "200", "PATH": "", "HF_HUB_OFFLINE": "1", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600, env=env, cwd=cwd
    )


def test_run_prints_leaderboard_and_verdict(tmp_path: Path, tiny_vectors_file: Path) -> None:
    (tmp_path / "train.conll").write_text(ROWS * 10, encoding="utf-8")
    result = run_cli(
        "run", "train.conll", "--task", "ner", "--embeddings", "random,static", "--static", str(tiny_vectors_file),
        "--sizes", "8,16", "--seeds", "1", "--profile", "quick", "--max-steps", "40", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "ran on cpu: 4 cells computed, 0 reused" in out
    assert "f1 × 100 by training-set size" in out and "serving from raw text" in out
    cost_rows = [
        line for line in out.splitlines() if line.startswith(("│ random", "│ static")) and "," in line
    ]
    assert len(cost_rows) == 2 and not any("nan" in row for row in cost_rows)  # serving pass measured
    assert "random" in out and "static" in out and "±" in out
    assert "Verdict:" in out
    assert (
        tmp_path / "mlruns" / "mlflow.db"
    ).exists()  # the default store, relative to the working directory
    again = run_cli(
        "run", "train.conll", "--task", "ner", "--embeddings", "random,static", "--static", str(tiny_vectors_file),
        "--sizes", "8,16", "--seeds", "1", "--profile", "quick", "--max-steps", "40", cwd=tmp_path,
    )  # fmt: skip
    assert "0 cells computed, 4 reused" in again.stdout


def test_run_bad_input_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad.conll").write_text("Ann B-PER\nsang\n", encoding="utf-8")
    result = run_cli("run", "bad.conll", "--task", "ner", cwd=tmp_path)
    assert result.returncode == 2
    assert "bad.conll:2: row has 1 column" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_bad_options_exit_2(tmp_path: Path) -> None:
    (tmp_path / "train.conll").write_text(ROWS * 10, encoding="utf-8")
    for args, message in (
        (["--embeddings", "elmo"], "unknown embedding(s) elmo"),
        (["--profile", "turbo"], "unknown profile 'turbo'"),
        (["--sizes", "5000"], "outside 1.."),
        (["--sizes", "a,b"], "comma-separated list of int"),
    ):
        result = run_cli("run", "train.conll", "--task", "ner", *args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_run_validates_its_settings_once(
    tmp_path: Path, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI leaves the check to ``run_analysis``: one validation per run, and a rejected run shows no bar."""
    import advisor.runner as runner

    calls = []

    def counted(settings: object) -> None:
        calls.append(settings)
        raise KeyError("stop after the check")

    monkeypatch.setattr(runner, "validate_settings", counted)
    (tmp_path / "train.conll").write_text(ROWS * 10, encoding="utf-8")
    with pytest.raises(KeyError, match="stop after the check"):
        advisor_cli("run", str(tmp_path / "train.conll"), "--task", "ner")
    assert len(calls) == 1
