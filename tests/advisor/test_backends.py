"""``--backend ray``: the tiny grid on a local Ray runtime (2 CPUs) gives the local backend's scores.

Each test starts its own runtime through the backend (no address given) and checks it is shut down
again, so nothing of Ray outlives the run; runs end FINISHED, or KILLED on Ctrl-C, never RUNNING.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import client_for, load_analysis
from advisor.validate import validate_settings
from tests.helpers import NewStore, write_ner

ray = pytest.importorskip("ray")


@pytest.fixture()
def settings(tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path) -> RunSettings:
    files = {
        part: str(write_ner(tmp_path / f"{part}.conll", n, i))
        for i, (part, n) in enumerate((("train", 40), ("dev", 10), ("test", 12)))
    }
    return RunSettings(
        data=files["train"],
        task="ner",
        dev=files["dev"],
        test=files["test"],
        sizes=[20, 40],
        seeds=2,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        random_dim=16,
        max_steps=3,
        experiment="test",
        cache_dir=str(tmp_path / "cache"),
        device="cpu",
        workers=2,
        difficulty=False,
    )


def _scores(settings: RunSettings, tracking_uri: str) -> list[tuple[str, int, int, float]]:
    settings.tracking_uri = tracking_uri
    outcome = run_analysis(settings)
    curves = load_analysis(outcome.run_id, settings.tracking_uri).curves
    rows = curves.sort_values(["embedding", "size", "seed"])[["embedding", "size", "seed", "score"]]
    return [tuple(r) for r in rows.itertuples(index=False)]


def _statuses(uri: str) -> list[str]:
    client = client_for(uri)
    return [r.info.status for r in client.search_runs([client.get_experiment_by_name("test").experiment_id])]


def test_ray_backend_gives_the_local_scores_and_leaves_nothing_running(
    settings: RunSettings, tmp_path: Path, new_store: NewStore
) -> None:
    local = _scores(settings, new_store(tmp_path / "local"))
    settings.backend = "ray"
    on_ray = _scores(settings, new_store(tmp_path / "ray"))
    assert len(on_ray) == 12 and {r[0] for r in on_ray} == {"random", "static", "contextual"}
    assert on_ray == local  # exactly: same cells, seeds and training function
    assert set(_statuses(settings.tracking_uri)) == {"FINISHED"}
    assert not ray.is_initialized()  # the runtime the backend started is shut down


def test_ctrl_c_on_ray_ends_killed_and_resumes(
    settings: RunSettings, tmp_path: Path, new_store: NewStore
) -> None:
    settings.backend = "ray"
    settings.embeddings = ["random"]
    settings.tracking_uri = new_store(tmp_path)

    def interrupt(event: ProgressEvent) -> None:
        if event.stage == "cell" and event.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_analysis(settings, progress=interrupt)
    assert not ray.is_initialized()
    assert set(_statuses(settings.tracking_uri)) == {"KILLED"}
    settings.backend = "local"  # a resume may use the other backend: the resume key ignores it
    outcome = run_analysis(settings)
    assert len(outcome.reused) == 2 and len(outcome.computed) == 2


def test_bad_backend_options_are_config_errors(settings: RunSettings) -> None:
    settings.backend = "spark"
    with pytest.raises(ConfigError, match="unknown backend"):
        validate_settings(settings)
    settings.backend, settings.ray_address = "local", "ray://head:10001"
    with pytest.raises(ConfigError, match="needs --backend ray"):
        validate_settings(settings)
