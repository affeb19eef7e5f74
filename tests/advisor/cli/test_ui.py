"""``advisor ui``: the Streamlit command line it runs, its refusals, and what the served app costs idle."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from advisor.cli import app
from advisor.cli.ui import APP_FILE, streamlit_command


def test_streamlit_command_binds_the_host_and_passes_the_store() -> None:
    command = streamlit_command("127.0.0.1", 8765, "sqlite:///x/mlflow.db", 5)
    assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(APP_FILE)]
    options = dict(zip(command[5:-3:2], command[6:-3:2], strict=True))
    assert options["--server.address"] == "127.0.0.1" and options["--server.port"] == "8765"
    assert options["--server.maxUploadSize"] == "5" and options["--server.headless"] == "true"
    assert command[-3:] == ["--", "--tracking-uri", "sqlite:///x/mlflow.db"]
    assert APP_FILE.exists()
    import advisor

    # The page inside the package, not the checkout's shim: a wheel serves the same file.
    assert APP_FILE.is_relative_to(Path(advisor.__file__).parent) and APP_FILE.name == "page.py"


def test_ui_refuses_a_bad_store_or_cap() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["ui", "--tracking-uri", "not-a-uri"])
    assert result.exit_code != 0 and "is not a URI" in str(result.exception)
    result = runner.invoke(app, ["ui", "--max-upload-mb", "-3"])
    assert result.exit_code != 0 and "must be positive" in str(result.exception)


def test_streamlit_command_turns_the_file_watcher_off() -> None:
    command = streamlit_command("127.0.0.1", 8765, "sqlite:///x/mlflow.db", 5)
    options = dict(zip(command[5:-3:2], command[6:-3:2], strict=True))
    assert options["--server.fileWatcherType"] == "none" and options["--server.runOnSave"] == "false"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_idle_app_costs_under_5_percent_of_a_core_and_exits_promptly(tmp_path: Path) -> None:
    """The served app with no browser: CPU over 20 s, then SIGTERM (as `advisor ui` runs it)."""
    port = _free_port()
    command = streamlit_command("127.0.0.1", port, f"sqlite:///{tmp_path}/mlflow.db", 5)
    env = {**os.environ, "ADVISOR_UPLOAD_DIR": str(tmp_path / "uploads")}
    with (tmp_path / "ui.log").open("wb") as log:
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if time.time() > deadline or process.poll() is not None:
                    pytest.fail("the app did not start: " + (tmp_path / "ui.log").read_text()[-2000:])
                time.sleep(0.5)
        time.sleep(2)  # start-up work is over
        server = psutil.Process(process.pid)
        before, t0 = server.cpu_times(), time.monotonic()
        time.sleep(20)
        after, seconds = server.cpu_times(), time.monotonic() - t0
        used = (after.user - before.user) + (after.system - before.system)
        assert used / seconds < 0.05, f"idle app used {used:.2f} s of CPU in {seconds:.0f} s"
        t1 = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        assert time.monotonic() - t1 < 5, "the app took more than 5 s to exit on SIGTERM"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
