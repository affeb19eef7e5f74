"""A real MLflow tracking server: ``advisor run``, ``report``, ``predict-gain`` and History over HTTP.

The server runs in a subprocess on a free port of 127.0.0.1 (sqlite backend, artifacts served by the
server) and is stopped by its process group id at the end, whatever happened.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.app import history_frame
from advisor.tracking import find_analyses, load_analysis
from tests.helpers import NewStore, write_ner


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"mlflow server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"mlflow server at {url} did not answer within {timeout:.0f} s")


@pytest.fixture()
def server(tmp_path: Path, new_store: NewStore) -> Iterator[str]:
    """``mlflow server`` on 127.0.0.1:PORT (a copied, already migrated sqlite backend); yields its URL;
    killed (process group) at the end."""
    port = _free_port()
    backend = new_store(tmp_path / "server")
    mlflow = Path(sys.executable).with_name("mlflow")
    command = [
        str(mlflow),
        "server",
        "--backend-store-uri",
        backend,
        "--artifacts-destination",
        str(tmp_path / "server" / "artifacts"),
        "--serve-artifacts",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    log = open(tmp_path / "server" / "log.txt", "wb")  # closed in finally
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process)
        yield url
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass
        log.close()


def test_run_report_predict_gain_and_history_against_a_server(
    server: str,
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    advisor_cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may land in the checkout
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    files = [
        str(write_ner(tmp_path / f"{p}.conll", n, i))
        for i, (p, n) in enumerate((("train", 40), ("dev", 10), ("test", 24)))
    ]
    code, out, err = advisor_cli(
        "run", files[0], "--task", "ner", "--dev", files[1], "--test", files[2],
        "--contextual", str(tiny_bert_dir), "--static", str(tiny_vectors_file),
        "--sizes", "20,40", "--seeds", "2", "--profile", "quick", "--device", "cpu", "--workers", "1",
        "--max-steps", "40",  # the server is under test, not convergence
        "--tracking-uri", server, "--experiment", "team",
    )  # fmt: skip
    assert code == 0, err
    assert f"browse: {server}" in out  # the server is its own UI: no `mlflow ui` command
    assert not (tmp_path / "mlruns").exists()  # everything went to the server
    runs = find_analyses(server)
    assert len(runs) == 1 and runs[0].info.status == "FINISHED"
    run_id = runs[0].info.run_id
    analysis = load_analysis(run_id, server)  # artifacts come back through the server
    assert len(analysis.curves) == 12 and analysis.item_scores is not None
    assert any((tmp_path / "server" / "artifacts").rglob("curves.json"))  # stored by the server

    code, out, err = advisor_cli("report", "latest", "--tracking-uri", server, "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert "HTML report" in out and (tmp_path / "rep" / "report.html").stat().st_size > 10_000
    from mlflow import MlflowClient

    logged = {a.path for a in MlflowClient(server).list_artifacts(run_id, "report")}
    assert "report/report.html" in logged

    unlabeled = tmp_path / "traffic.txt"
    unlabeled.write_text("John went to Paris\nthe bank of the river\nMary likes Google\n", encoding="utf-8")
    assert "advisor.gain_skipped" not in runs[0].data.tags  # this grid fits the gain model
    code, out, err = advisor_cli("predict-gain", run_id, str(unlabeled), "--tracking-uri", server)
    assert code == 0, err  # the model is an artifact: downloaded through the server
    assert f"gain model of run {run_id}" in out

    history = history_frame(find_analyses(server))  # what the app's History page shows
    assert history.loc[0, "run_id"] == run_id and history.loc[0, "status"] == "FINISHED"
    assert history.loc[0, "verdict"] not in ("", "no verdict")
    _history_page_links_to_the_server(server, run_id, monkeypatch)


def _history_page_links_to_the_server(server: str, run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's History page over HTTP: the run, and the server's own UI (no `mlflow ui` to start)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("ADVISOR_TRACKING_URI", server)
    app_file = Path(__file__).resolve().parents[2] / "streamlit_app.py"
    page = AppTest.from_file(str(app_file), default_timeout=120)
    page.query_params["page"] = "History"
    page.run()
    assert not page.exception, page.exception
    text = "\n".join(m.value for m in page.markdown)
    assert f"tracking server: [{server}]({server})" in text
    assert f"[compare in MLflow]({server}/#/experiments/" in text and run_id in text
    assert not any("mlflow ui" in c.value for c in page.code)
