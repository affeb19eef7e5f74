"""The Stop button's contract on a real ``advisor run`` subprocess (tiny BERT, tiny vectors): SIGTERM
ends the MLflow runs KILLED and the cells finished before it stay in the store.

Slow (a fresh MLflow store and a subprocess that imports torch): ``pytest -m slow``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from advisor.app import find_session_run, read_progress, run_command, start_run
from advisor.settings import RunSettings
from advisor.tracking import client_for, load_analysis
from tests.helpers import NewStore

pytestmark = pytest.mark.slow


def _write_ner(path: Path, n: int, seed: int) -> str:
    rng = random.Random(seed)
    names = {"John": "PER", "Mary": "PER", "Paris": "LOC", "London": "LOC", "Google": "ORG"}
    filler = "the a of in on with went saw said visited likes works lives good bad".split()
    blocks = []
    for _ in range(n):
        rows = []
        for _ in range(rng.randint(3, 7)):
            name = rng.choice(sorted(names))
            rows.append(f"{name}\tB-{names[name]}" if rng.random() < 0.3 else f"{rng.choice(filler)}\tO")
        blocks.append("\n".join(rows))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return str(path)


def test_stop_ends_the_run_killed_and_keeps_finished_cells(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    uri = new_store(tmp_path / "mlruns")  # a migrated store before timing anything
    settings = RunSettings(
        data=_write_ner(tmp_path / "train.conll", 60, 0),
        task="ner",
        dev=_write_ner(tmp_path / "dev.conll", 10, 1),
        test=_write_ner(tmp_path / "test.conll", 12, 2),
        sizes=[15, 30, 45, 60],
        seeds=4,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        random_dim=16,
        lr=0.01,  # no learning-rate trials (18 models before any cell: minutes on a loaded 2-core machine)
        tracking_uri=uri,
        experiment="stop-test",
        device="cpu",
    )
    job = start_run(run_command(settings, "stop-session"), tmp_path / "run.log", "stop-session")
    run_id = None
    deadline = time.time() + 400
    while time.time() < deadline and job.running:
        run_id = run_id or find_session_run("stop-session", uri)
        if run_id and read_progress(run_id, uri).done >= 2:
            break
        time.sleep(1)
    assert run_id is not None and job.running, job.log_tail()
    assert job.stop(grace_seconds=120) == 130, job.log_tail()  # `advisor run` exits 130 on SIGTERM
    progress = read_progress(run_id, uri)
    assert progress.status == "KILLED" and 2 <= progress.done < progress.total == 48
    client = client_for(uri)
    statuses = {
        c.info.status
        for c in client.search_runs(
            [client.get_run(run_id).info.experiment_id], f"tags.`mlflow.parentRunId` = '{run_id}'"
        )
    }
    assert "RUNNING" not in statuses
    analysis = load_analysis(run_id, uri)
    assert len(analysis.curves) == progress.done and analysis.status == "KILLED"
    assert f"[{progress.done}/48]" in job.log_tail() and "Traceback" not in job.log_tail()
    assert "interrupted: the MLflow runs ended KILLED" in job.log_tail()
