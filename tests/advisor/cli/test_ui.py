"""``advisor ui``: the Streamlit command line it runs, and its refusals."""

from __future__ import annotations

import sys

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


def test_ui_refuses_a_bad_store_or_cap() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["ui", "--tracking-uri", "not-a-uri"])
    assert result.exit_code != 0 and "is not a URI" in str(result.exception)
    result = runner.invoke(app, ["ui", "--max-upload-mb", "-3"])
    assert result.exit_code != 0 and "must be positive" in str(result.exception)
