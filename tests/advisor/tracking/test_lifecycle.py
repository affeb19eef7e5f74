"""Stale runs and concurrent runs on one store.

Unit tests judge owners and heartbeats; the end-to-end tests start real ``advisor run`` processes:
two identical runs at once on a fresh store (both finish, every cell computed once), and a run
killed with SIGKILL mid-grid (``advisor report`` shows it KILLED before any re-run, and the re-run
computes only the missing cells).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from advisor.tracking import (
    HEARTBEAT_TAG,
    Heartbeat,
    Owner,
    client_for,
    close_stale_runs,
    is_stale,
    stale_reason,
    store_lock,
)
from tests.helpers import NewStore

ROWS = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n"


def fake_run(
    status: str = "RUNNING", tags: dict[str, str] | None = None, start_ms: int = 0
) -> SimpleNamespace:
    return SimpleNamespace(
        info=SimpleNamespace(status=status, start_time=start_ms), data=SimpleNamespace(tags=tags or {})
    )


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_owner_alive_and_dead_on_this_host() -> None:
    me = Owner.current()
    assert me.alive_here() and not is_stale(fake_run(tags=me.tags()))
    gone = Owner(me.host, dead_pid(), me.started)
    assert not gone.alive_here()
    assert "is gone" in (stale_reason(fake_run(tags=gone.tags())) or "")
    reused = Owner(me.host, me.pid, me.started - 3600)  # our pid, but recorded for an older process
    assert is_stale(fake_run(tags=reused.tags()))


def test_other_host_is_judged_by_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_STALE_AFTER_S", "60")
    other = Owner(socket.gethostname() + "-elsewhere", 1, 0.0).tags()
    now = time.time()
    assert not is_stale(fake_run(tags={**other, HEARTBEAT_TAG: str(now - 10)}), now)
    assert is_stale(fake_run(tags={**other, HEARTBEAT_TAG: str(now - 120)}), now)
    assert is_stale(fake_run(tags=other, start_ms=int((now - 120) * 1000)), now)  # never beat: start time


def test_finished_or_ownerless_runs_are_never_stale() -> None:
    gone = Owner(socket.gethostname(), dead_pid(), 0.0).tags()
    assert not is_stale(fake_run("FINISHED", gone))
    assert not is_stale(fake_run("RUNNING", {}))


def test_close_stale_runs_ends_dead_analyses_and_their_children_killed(
    tmp_path: Path, new_store: NewStore
) -> None:
    client = client_for(new_store(tmp_path))
    experiment = client.create_experiment("stale")
    me = Owner.current()
    dead = Owner(me.host, dead_pid(), me.started)
    runs = {}
    for name, owner in (("dead", dead), ("alive", me)):
        parent = client.create_run(experiment, tags={"advisor.kind": "analysis", **owner.tags()})
        child = client.create_run(experiment, tags={"mlflow.parentRunId": parent.info.run_id})
        runs[name] = (parent.info.run_id, child.info.run_id)
    assert close_stale_runs(client=client) == [runs["dead"][0]]
    assert [client.get_run(r).info.status for r in runs["dead"]] == ["KILLED", "KILLED"]
    assert [client.get_run(r).info.status for r in runs["alive"]] == ["RUNNING", "RUNNING"]
    assert "is gone" in client.get_run(runs["dead"][0]).data.tags["advisor.closed_stale"]


def test_heartbeat_thread_refreshes_the_tag(tmp_path: Path, new_store: NewStore) -> None:
    client = client_for(new_store(tmp_path))
    run = client.create_run(client.create_experiment("beat"))
    beat = Heartbeat(client, run.info.run_id, interval=0.05).start()
    first = float(client.get_run(run.info.run_id).data.tags[HEARTBEAT_TAG])
    time.sleep(0.5)
    beat.stop()
    assert float(client.get_run(run.info.run_id).data.tags[HEARTBEAT_TAG]) > first


def test_store_lock_is_exclusive_across_processes(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    probe = (
        "import fcntl, sys; from pathlib import Path; "
        f"h = open(Path({str(tmp_path)!r}) / '.advisor-locks' / 'x.lock', 'a+b'); "
        "sys.exit(0 if fcntl.flock(h.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB) is None else 1)"
    )
    with store_lock(uri, "x"):
        held = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    free = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert held.returncode != 0 and "BlockingIOError" in held.stderr
    assert free.returncode == 0, free.stderr


# -- end to end: real processes on one store -------------------------------------------------------


def run_args(store: Path, vectors: Path, sizes: str, seeds: str) -> list[str]:
    return [
        "run", "train.conll", "--task", "ner", "--embeddings", "random,static", "--static", str(vectors),
        "--sizes", sizes, "--seeds", seeds, "--workers", "1", "--profile", "quick",
        "--max-steps", "40",  # the lifecycle is under test, not convergence: the floor drops to 40 steps
        "--tracking-uri", f"sqlite:///{store}",
    ]  # fmt: skip


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "COLUMNS": "200", "HF_HUB_OFFLINE": "1", "ADVISOR_CACHE_DIR": str(cwd / "cache")}
    code = "from advisor.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def store_state(store: Path) -> tuple[list[str], dict[tuple[str, int], int]]:
    """Statuses of every run, and how often each cell's score was logged."""
    client = client_for(f"sqlite:///{store}")
    ids = [e.experiment_id for e in client.search_experiments()]
    runs = client.search_runs(ids, max_results=1000)
    logged: dict[tuple[str, int], int] = {}
    for run in runs:
        if run.data.tags.get("advisor.kind") == "curve":
            for metric in client.get_metric_history(run.info.run_id, "score"):
                key = (run.info.run_name, int(metric.step))
                logged[key] = logged.get(key, 0) + 1
    return [r.info.status for r in runs], logged


def test_two_identical_runs_at_once_share_the_work(tmp_path: Path, tiny_vectors_file: Path) -> None:
    (tmp_path / "train.conll").write_text(ROWS * 10, encoding="utf-8")
    store = tmp_path / "store" / "mlflow.db"  # fresh: both processes set up the schema at once
    args = run_args(store, tiny_vectors_file, "8,16", "1")
    first, second = start(args, tmp_path), start(args, tmp_path)
    outputs = [p.communicate(timeout=600)[0] for p in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    assert all("Traceback" not in out for out in outputs)
    computed = sorted(out.split("cells computed")[0].rsplit(" ", 2)[-2] for out in outputs)
    assert computed == ["0", "4"], outputs  # one computed the grid, the other waited and reused it
    statuses, logged = store_state(store)
    assert "RUNNING" not in statuses and statuses.count("FINISHED") == 3
    assert len(logged) == 4 and set(logged.values()) == {1}  # every cell computed exactly once


def test_sigkill_mid_grid_is_reported_killed_and_resumed(
    tmp_path: Path, tiny_vectors_file: Path, advisor_cli, monkeypatch: pytest.MonkeyPatch, new_store: NewStore
) -> None:
    (tmp_path / "train.conll").write_text(ROWS * 10, encoding="utf-8")
    new_store(tmp_path)
    store = tmp_path / "mlflow.db"
    args = run_args(store, tiny_vectors_file, "2,4,8,16", "2")  # 16 cells
    process = start(args, tmp_path)
    assert process.stdout is not None
    for line in process.stdout:  # plain progress lines: "… [n/16] embedding size … seed …"
        if "[2/16]" in line:
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    statuses, before = store_state(store)
    assert "RUNNING" in statuses and 2 <= len(before) < 16  # MLflow alone never learns of the kill

    monkeypatch.chdir(tmp_path)
    code, out, err = advisor_cli("report", "latest", "--tracking-uri", f"sqlite:///{store}", "--no-log")
    assert code == 0, err
    assert "killed" in out.lower()
    statuses, _ = store_state(store)
    assert "RUNNING" not in statuses and "KILLED" in statuses

    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    code, out, err = advisor_cli(*args)
    assert code == 0, err
    assert f"{16 - len(before)} cells computed, {len(before)} reused" in out
    statuses, after = store_state(store)
    assert "RUNNING" not in statuses
    assert len(after) == 16 and set(after.values()) == {1}  # 0 recomputed cells


def test_a_failure_while_opening_never_leaves_the_parent_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_store: NewStore
) -> None:
    from advisor.tracking import AnalysisTracker

    tracker = AnalysisTracker(new_store(tmp_path), "open-fails")
    real = tracker.client.log_batch

    def refuse_tags(run_id: str, **kwargs: object) -> None:
        if kwargs.get("tags"):
            raise RuntimeError("store refused a tag")
        real(run_id, **kwargs)

    monkeypatch.setattr(tracker.client, "log_batch", refuse_tags)
    with pytest.raises(RuntimeError):
        tracker.open("k1", "name", {"task": "ner"}, {"team": "x"})
    runs = tracker.client.search_runs([tracker.experiment_id])
    assert [r.info.status for r in runs] == ["FAILED"]


def test_open_takes_ownership_and_close_stops_the_heartbeat(tmp_path: Path, new_store: NewStore) -> None:
    from advisor.tracking import AnalysisTracker

    tracker = AnalysisTracker(new_store(tmp_path), "owned")
    run_id = tracker.open("k2", "name", {"task": "ner"}, {})
    tags = tracker.client.get_run(run_id).data.tags
    owner = Owner.from_tags(tags)
    assert owner is not None and owner.same(Owner.current()) and HEARTBEAT_TAG in tags
    beat = tracker._heartbeat
    assert beat is not None and beat._thread.is_alive()
    tracker.close("FINISHED")
    assert tracker.client.get_run(run_id).info.status == "FINISHED"
    assert not beat._thread.is_alive()  # (other tests' trackers may still beat: judge only ours)


def test_closing_stale_runs_never_creates_a_store(tmp_path: Path) -> None:
    assert close_stale_runs(f"sqlite:///{tmp_path}/none/mlflow.db") == []
    assert not (tmp_path / "none").exists()
