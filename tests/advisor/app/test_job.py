"""The run subprocess: the ``advisor run`` command line the page builds, SIGTERM on Stop, the log tail."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from typer.main import get_command

from advisor.app import SESSION_TAG, display_command, parse_list, run_command, start_run, tail
from advisor.cli import app
from advisor.errors import ConfigError
from advisor.settings import RunSettings


def _settings(**changes: object) -> RunSettings:
    base = {
        "data": "my data/train.conll",
        "task": "ner",
        "profile": "quick",
        "tracking_uri": "sqlite:///s/mlflow.db",
    }
    return RunSettings(**{**base, **changes})


def test_run_command_is_an_advisor_run_that_the_cli_accepts() -> None:
    settings = _settings(
        dev="dev.conll", sizes=[50, 100], seeds=2, embeddings=["static", "contextual"], tags={"who": "me"}
    )
    command = run_command(settings, "abc123", python="/py")
    assert command[:5] == ["/py", "-c", "from advisor.cli import main; main()", "run", "my data/train.conll"]
    args = command[4:]
    # The CLI's own parser reads the arguments back into the same settings.
    context = get_command(app).make_context("advisor", list(command[3:]))
    sub = context.command.get_command(context, "run")
    parsed = sub.make_context("run", args).params
    assert (
        parsed["data"] == "my data/train.conll"
        and parsed["task"] == "ner"
        and parsed["dev"] == Path("dev.conll")
    )
    assert (
        parsed["sizes"] == "50,100" and parsed["seeds"] == 2 and parsed["embeddings"] == "static,contextual"
    )
    assert parsed["profile"] == "quick" and parsed["tracking_uri"] == "sqlite:///s/mlflow.db"
    assert parsed["tag"] == ["who=me", f"{SESSION_TAG}=abc123"]
    assert parsed["fractions"] is None and parsed["static"] is None


@pytest.mark.parametrize(
    ("backend", "address"), [("local", None), ("ray", None), ("ray", "ray://head:10001")]
)
def test_the_backend_and_the_ray_address_reach_advisor_run(backend: str, address: str | None) -> None:
    command = run_command(_settings(backend=backend, ray_address=address), "s1", python="/py")
    context = get_command(app).make_context("advisor", list(command[3:]))
    parsed = context.command.get_command(context, "run").make_context("run", command[4:]).params
    assert parsed["backend"] == backend and parsed["ray_address"] == address
    assert ("--backend" in command) == (backend != "local")  # the default stays implicit


def test_display_command_reads_like_the_cli() -> None:
    command = run_command(_settings(fractions=[0.5, 1.0]), "s1", python="/py")
    text = display_command(command)
    assert text.startswith("advisor run 'my data/train.conll' --task ner")
    assert "--fractions 0.5,1" in text and "--tag app.session=s1" in text


def test_parse_list() -> None:
    assert parse_list("100, 200;400", int, "sizes") == [100, 200, 400]
    assert parse_list("  ", int, "sizes") is None
    assert parse_list("0.5,1", float, "fractions") == [0.5, 1.0]
    with pytest.raises(ConfigError, match="cannot read 'a,b' as sizes"):
        parse_list("a,b", int, "sizes")
    with pytest.raises(ConfigError, match="must be positive"):
        parse_list("10,-1", int, "sizes")


SCRIPT = """
import signal, sys, time
def stop(signum, frame):
    print("got SIGTERM, ending KILLED", flush=True)
    sys.exit(130)
signal.signal(signal.SIGTERM, stop)
print("cell 1 done", flush=True)
print("oops", file=sys.stderr, flush=True)
time.sleep(60)
"""


def test_stop_sends_sigterm_and_the_log_keeps_both_streams(tmp_path: Path) -> None:
    log = tmp_path / "up" / "run.log"
    job = start_run([sys.executable, "-c", SCRIPT], log, "sess")
    deadline = time.time() + 20
    while "oops" not in tail(log) and time.time() < deadline:
        time.sleep(0.1)
    assert job.running and job.returncode is None
    assert job.stop(grace_seconds=10) == 130  # the handler ran: SIGTERM, not SIGKILL
    assert not job.running and job.stop_requested
    assert job.log_tail().splitlines() == ["cell 1 done", "oops", "got SIGTERM, ending KILLED"]


def test_stop_falls_back_to_sigkill_when_sigterm_is_ignored(tmp_path: Path) -> None:
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    job = start_run([sys.executable, "-c", script], tmp_path / "run.log", "sess")
    deadline = time.time() + 20
    while "ready" not in tail(tmp_path / "run.log") and time.time() < deadline:
        time.sleep(0.1)
    assert job.stop(grace_seconds=0.5) == -9


def test_tail_of_a_missing_or_long_file(tmp_path: Path) -> None:
    assert tail(tmp_path / "none.log") == ""
    path = tmp_path / "long.log"
    path.write_text("".join(f"line {i}\n" for i in range(1000)))
    assert tail(path, 3).splitlines() == ["line 997", "line 998", "line 999"]
