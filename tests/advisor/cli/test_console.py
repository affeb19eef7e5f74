"""Output to a pipe or a file is not wrapped at 80 columns (issue 29: a piped run split its run id)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from advisor.cli._app import PIPED_WIDTH, _Console
from tests.helpers import headerless_questions, write_headerless


def test_a_piped_console_is_wide_and_a_terminal_or_columns_keep_their_width(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    piped = _Console(file=io.StringIO())
    assert not piped.is_terminal and piped.width == PIPED_WIDTH
    run_id = "0123456789abcdef" * 2
    piped.print(f"{'word ' * 30}MLflow run {run_id} in sqlite:///{'deep/' * 20}mlflow.db", highlight=False)
    assert len(piped.file.getvalue().splitlines()) == 1  # type: ignore[attr-defined]
    assert _Console(file=io.StringIO(), force_terminal=True).width != PIPED_WIDTH
    assert _Console(file=io.StringIO(), width=72).width == 72
    monkeypatch.setenv("COLUMNS", "100")
    assert _Console(file=io.StringIO()).width == 100


def test_inspect_through_a_pipe_prints_a_long_path_on_one_line(tmp_path: Path) -> None:
    folder = tmp_path / ("a" * 60) / ("b" * 40)
    folder.mkdir(parents=True)
    path = write_headerless(folder / "questions.tsv", headerless_questions(60))
    env = {
        k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE")
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from advisor.cli import main; main()",
            "inspect",
            "--task",
            "classify",
            str(path),
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(str(path)) > 80
    assert any(str(path) in line for line in done.stdout.splitlines()), done.stdout
    assert any(f"{path}:1: no header" in line for line in done.stderr.splitlines()), done.stderr


def _printed(console: _Console, title: str) -> list[str]:
    from advisor.cli._app import titled_table

    table = titled_table(title)
    table.add_column("k")
    table.add_row("v")
    console.print(table)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def test_a_table_title_is_not_wrapped_at_a_narrow_table_s_width(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    path = "/data/" + "x" * 90 + "/train.tsv"
    for title in (path, f"[bold]{path}[/]: 12 items"):
        assert path in _printed(_Console(file=io.StringIO()), title)[0]
    lines = _printed(_Console(file=io.StringIO(), width=40), path)  # a terminal's width still wins
    assert (
        max(map(len, lines)) <= 40 and "".join(line.strip() for line in lines[:3]) == path
    )  # wrapped, not cut
