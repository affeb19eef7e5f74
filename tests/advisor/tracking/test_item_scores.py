"""The record layer saves the bootstrap's per-item counts as one parent artifact and reads them back;
a run without the artifact (an older run) reads as None."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advisor.stats import item_scores
from advisor.tracking import ITEM_SCORES_ARTIFACT, load_item_scores, log_item_scores


class _Store:
    """Stands in for the tracker (``log_artifact``) and the client (``download_artifacts``): a folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        folder = self.root / (artifact_path or "")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, folder / Path(path).name)

    def download_artifacts(self, run_id: str, path: str, dst: str) -> str:
        return shutil.copy(self.root / path, Path(dst) / Path(path).name)


def test_logged_counts_load_back_equal(tmp_path: Path) -> None:
    store = _Store(tmp_path)
    scores = item_scores("classify", ["a", "b", "a"], {("random", 3, 1): ["a", "a", "a"]})
    assert log_item_scores(store, scores) is scores
    assert (tmp_path / ITEM_SCORES_ARTIFACT).is_file()
    again = load_item_scores(store, "run", {ITEM_SCORES_ARTIFACT})
    assert again is not None and again.keys == scores.keys
    assert again.score(("random", 3, 1)) == pytest.approx(2 / 3)


def test_a_run_without_the_artifact_has_no_item_scores(tmp_path: Path) -> None:
    assert load_item_scores(_Store(tmp_path), "run", {"analysis/cells.json"}) is None
