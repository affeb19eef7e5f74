"""``advisor ui``: start the Streamlit app on this machine (127.0.0.1 unless told otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from advisor._error_codes import E250, E260
from advisor.app import check_upload_mb
from advisor.app import max_upload_mb as upload_mb
from advisor.cli._app import app, err_console
from advisor.tracking import store_uri

__all__ = ["APP_FILE", "streamlit_command", "ui"]

#: The page inside the package (not the checkout's streamlit_app.py shim), so a wheel serves it too.
APP_FILE = Path(__file__).resolve().parents[1] / "app" / "page.py"


def streamlit_command(host: str, port: int, tracking_uri: str, max_upload_mb: int) -> list[str]:
    """``python -m streamlit run <the page>`` with the server settings, then the app's own options."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_FILE),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.maxUploadSize",
        str(max_upload_mb),
        "--browser.gatherUsageStats",
        "false",
        # No file watcher: it polls (or inotify-watches) the whole checkout, and a run writing into
        # ./mlruns kept an idle app at one CPU core. The app is not edited while it serves.
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--",
        "--tracking-uri",
        tracking_uri,
    ]


@app.command()
def ui(
    host: Annotated[
        str, typer.Option("--host", help="address to bind (0.0.0.0 exposes it to the network)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="port of the app")] = 8501,
    tracking_uri: Annotated[
        str | None,
        typer.Option(
            "--tracking-uri",
            help="MLflow store (default: $MLFLOW_TRACKING_URI or sqlite:///mlruns/mlflow.db)",
        ),
    ] = None,
    max_upload_mb: Annotated[
        int | None,
        typer.Option("--max-upload-mb", help="upload cap in MB (default: $ADVISOR_MAX_UPLOAD_MB or 50)"),
    ] = None,
) -> None:
    """Open the app: upload data, run an analysis, read the recommendation, compare past runs."""
    if not APP_FILE.exists():
        raise E260(
            path=APP_FILE,
            hint="reinstall the package (pip install --force-reinstall advisor): the app ships inside it",
        )
    uri = store_uri(tracking_uri)  # read-only: no ./mlruns folder until a run writes one
    if not 1 <= port <= 65535:
        raise E250(option="--port", requirement="a TCP port in 1..65535", value=port, hint="e.g. --port 8501")
    # the option when given (0 is an error, not "use the default"), else the environment variable:
    # each error names the source the value came from
    limit = check_upload_mb(max_upload_mb, "--max-upload-mb") if max_upload_mb is not None else upload_mb()
    env = {
        **os.environ,
        "ADVISOR_MAX_UPLOAD_MB": str(limit),
        "ADVISOR_TRACKING_URI": uri,
        "HF_HUB_OFFLINE": "1",
    }
    err_console.print(
        f"advisor ui on http://{escape(host)}:{port}  (MLflow store {escape(uri)}; Ctrl-C stops it)",
        highlight=False,
        soft_wrap=True,
    )
    command = streamlit_command(host, port, uri, limit)
    if os.name == "posix":  # become the server: SIGTERM / Ctrl-C reach Streamlit itself, no orphan
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(command[0], command, env)
    try:
        result = subprocess.run(command, env=env, check=False)
    except KeyboardInterrupt:
        return
    raise typer.Exit(result.returncode)
