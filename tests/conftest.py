"""The shared fixtures: tiny models built locally (no download), generated data, MLflow stores (one
migrated template a session, copied per test) and one finished ``advisor run`` for the tests that only
read it. The plain helpers behind them are in ``tests/helpers.py``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers import (
    FinishedRun,
    NewStore,
    build_store_template,
    build_tiny_bert,
    build_tiny_roberta,
    clone_store_folder,
    copy_store,
    tiny_run_settings,
    write_ner_splits,
    write_tiny_vectors,
)

if TYPE_CHECKING:
    from advisor.runner import ProgressEvent
    from advisor.settings import RunSettings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _planted_training_pace() -> None:
    """A training pace in the session's speed record, so a run whose estimate would time training on a
    sample (half a minute, once per task and worker) reads it instead; the timing itself is tested
    under roots of its own (tests/advisor/pipeline/test_calibrate.py, test_estimate.py)."""
    from advisor.data import TASKS
    from advisor.grid import StepCost
    from advisor.pipeline._speed import record_step_costs

    pace = {
        (family, width): StepCost(0.05, 0.0005)
        for family in ("random", "static", "contextual")
        for width in (64, 256)
    }
    for task in TASKS:
        record_step_costs(task, "cpu", pace, None)


@pytest.fixture(autouse=True, scope="session")
def cache_root(tmp_path_factory: pytest.TempPathFactory):
    """Every cache (features, parses, vectors, distilled models, locks) under a session temp dir: never $HOME."""
    root = tmp_path_factory.mktemp("advisor-cache")
    previous = os.environ.get("ADVISOR_CACHE_DIR")
    os.environ["ADVISOR_CACHE_DIR"] = str(root)
    _planted_training_pace()
    yield root
    if previous is None:
        os.environ.pop("ADVISOR_CACHE_DIR", None)
    else:
        os.environ["ADVISOR_CACHE_DIR"] = previous


@pytest.fixture()
def advisor_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run the ``advisor`` entry point in-process: ``advisor_cli(*args) -> (exit code, stdout, stderr)``."""
    import sys

    from advisor.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["advisor", *args])
        code = 0
        try:
            main()
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session")
def tiny_roberta_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_roberta(tmp_path_factory.mktemp("tiny_roberta"))


@pytest.fixture(scope="session")
def tiny_vectors_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_vectors(tmp_path_factory.mktemp("vectors") / "tiny.vec.txt")


@pytest.fixture(scope="session")
def app_store(tmp_path_factory: pytest.TempPathFactory, mlflow_template: Path):
    """An MLflow store with a finished and a half-done synthetic NER analysis (the app's tests read it)."""
    from tests.advisor.app.synthetic_store import build_store

    root = tmp_path_factory.mktemp("app_store")
    copy_store(mlflow_template, root / "mlflow.db")
    return build_store(root)


@pytest.fixture(scope="session")
def layer_store(tmp_path_factory: pytest.TempPathFactory, mlflow_template: Path):
    """A store with an analysis carrying mix weights and contextuality, and a layer sweep (app tests)."""
    from tests.advisor.app.layer_store import build_layer_store

    root = tmp_path_factory.mktemp("layer_store")
    copy_store(mlflow_template, root / "mlflow.db")
    return build_layer_store(root)


# -- MLflow stores ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def mlflow_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty store migrated once a session; tests get copies of it (``new_store``)."""
    return build_store_template(tmp_path_factory.mktemp("mlflow-template"))


@pytest.fixture()
def new_store(mlflow_template: Path) -> NewStore:
    """``new_store(folder, name="mlflow.db") -> uri``: a fresh sqlite store at ``folder/name``, copied
    from the session's migrated template instead of migrated again."""

    def make(folder: Path, name: str = "mlflow.db") -> str:
        return copy_store(mlflow_template, folder / name)

    return make


# -- advisor run on generated data -----------------------------------------------------------------


@pytest.fixture()
def ner_files(tmp_path: Path) -> dict[str, str]:
    """train / dev / test CoNLL files of 40 / 10 / 12 generated sentences: part -> path."""
    return write_ner_splits(tmp_path)


@pytest.fixture()
def run_settings(
    tmp_path: Path,
    ner_files: dict[str, str],
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store: NewStore,
) -> RunSettings:
    """Settings of a tiny run of every family on ``ner_files``, into a fresh store of its own."""
    uri = new_store(tmp_path / "mlruns")
    return tiny_run_settings(tmp_path, ner_files, tiny_bert_dir, tiny_vectors_file, uri)


@pytest.fixture(scope="session")
def finished_run(
    tmp_path_factory: pytest.TempPathFactory,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    mlflow_template: Path,
) -> FinishedRun:
    """``run_settings``' run, done once a session for the tests that only read it: never resume,
    re-run or log to it (take ``finished_run_copy`` for that)."""
    from advisor.runner import run_analysis

    folder = tmp_path_factory.mktemp("finished_run")
    uri = copy_store(mlflow_template, folder / "mlruns" / "mlflow.db")
    settings = tiny_run_settings(folder, write_ner_splits(folder), tiny_bert_dir, tiny_vectors_file, uri)
    events: list[ProgressEvent] = []
    outcome = run_analysis(settings, progress=events.append)
    return FinishedRun(settings=settings, outcome=outcome, events=events)


@pytest.fixture()
def finished_run_copy(finished_run: FinishedRun, tmp_path: Path) -> FinishedRun:
    """A private copy of ``finished_run``'s store (and its own cache) to resume or re-run."""
    import dataclasses

    source = Path(finished_run.settings.tracking_uri.removeprefix("sqlite:///")).parent
    clone_store_folder(source, tmp_path / "mlruns")
    settings = dataclasses.replace(
        finished_run.settings,
        tracking_uri=f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}",
        cache_dir=str(tmp_path / "cache"),
    )
    return dataclasses.replace(finished_run, settings=settings)
