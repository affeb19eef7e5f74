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


def _pair_file(path: Path) -> Path:
    """14 pairs: seven with the second text's words all in the first, seven with none of them."""
    rows = ["sentence1\tsentence2\tlabel"]
    for i in range(7):
        rows.append(f"the red car stopped near house {i} .\tthe car stopped .\tparaphrase")
        rows.append(f"a dog barked twice .\tsome cats slept on sofa {i}\tdifferent")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_inspect_pairs_shows_both_sides_labels_and_overlap(tmp_path: Path, advisor_cli) -> None:
    code, out, err = advisor_cli("inspect", str(_pair_file(tmp_path / "pairs.tsv")), "--task", "pair")
    assert code == 0, err
    assert "pairs" in out and "14" in out
    assert "first text" in out and "mean 6.5, median 6.5, min 5, max 8 tokens" in out
    assert "second text" in out and "mean 5.0, median 5, min 4, max 6 tokens" in out
    assert "50% of the second text's words are in the first" in out
    assert "50% of pairs overlap at least 50%" in out
    assert "2: different 7, paraphrase 7" in out


def test_inspect_single_text_file_as_pair_exits_2_with_the_hint(tmp_path: Path, advisor_cli) -> None:
    path = tmp_path / "single.csv"
    path.write_text("text,label\n" + "a fine film,pos\n" * 12, encoding="utf-8")
    code, out, err = advisor_cli("inspect", str(path), "--task", "pair")
    assert code == 2 and "Traceback" not in err + out
    assert f"{path}:1: this looks like a single-text file" in err and "--task classify" in err
