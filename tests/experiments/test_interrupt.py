"""Ctrl-C ends a benchmark with one line and status 130, never a traceback (``experiments/_interrupt.py``)."""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.helpers import load_experiment

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def _interrupted() -> None:
    raise KeyboardInterrupt


def test_ctrl_c_exits_130_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    interrupt = load_experiment("_interrupt")
    with pytest.raises(SystemExit) as stopped:
        interrupt.interruptible(_interrupted)
    assert stopped.value.code == interrupt.INTERRUPTED == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("interrupted") and "Traceback" not in err


def test_a_finished_or_failing_benchmark_is_left_alone() -> None:
    interrupt = load_experiment("_interrupt")
    ran = []
    interrupt.interruptible(lambda: ran.append(True))
    assert ran == [True]
    with pytest.raises(ValueError, match="a real failure"):
        interrupt.interruptible(lambda: (_ for _ in ()).throw(ValueError("a real failure")))


def test_bad_input_exits_2_with_the_errors_own_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from advisor.data import read_splits

    interrupt = load_experiment("_interrupt")
    missing = tmp_path / "wnut17train.conll"
    with pytest.raises(SystemExit) as stopped:
        interrupt.interruptible(lambda: read_splits(str(missing), "ner"))
    assert stopped.value.code == interrupt.BAD_INPUT == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {missing}: file not found [E101]") and "Traceback" not in err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_real_signal_to_a_script_prints_no_traceback(tmp_path: Path, stop: signal.Signals) -> None:
    """A script built like the benchmarks, stopped while it waits: by SIGINT, as Ctrl-C stops one, and
    by SIGTERM, as ``kill`` stops one started in the background (where SIGINT is ignored)."""
    script = tmp_path / "bench_wait.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import signal, sys, time
            # as in a terminal: a pytest-xdist worker ignores SIGINT, and its children inherit that
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.path.insert(0, {str(EXPERIMENTS)!r})
            from _interrupt import interruptible

            def main():
                print("started", flush=True)
                time.sleep(60)

            interruptible(main)
            """
        ),
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "started\n"
    time.sleep(0.2)
    process.send_signal(stop)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "Traceback" not in err and err.startswith("interrupted")


def _main_guard_calls(path: Path) -> list[str]:
    """What the ``if __name__ == "__main__":`` block of a script calls."""
    calls = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            calls += [ast.unparse(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)]
    return calls


def test_every_benchmark_runs_its_main_through_interruptible() -> None:
    scripts = [p for p in sorted(EXPERIMENTS.glob("*.py")) if p.name.startswith(("bench_", "flair_"))]
    assert len(scripts) >= 15
    missing = [p.name for p in scripts if _main_guard_calls(p) != ["interruptible"]]
    assert missing == []
