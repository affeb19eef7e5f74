from __future__ import annotations

import os
from pathlib import Path

import pytest

from advisor.cache import CACHE_ENV, KINDS, cache_dir, using_cache_root
from advisor.difficulty._parse import default_cache_dir as parse_cache_dir
from advisor.embeddings import default_cache_dir as feature_cache_dir
from advisor.embeddings._static import load_vectors
from advisor.tracking._locks import _lock_dir
from tests.helpers import write_tiny_vectors


def test_tests_never_write_to_the_home_directory(cache_root: Path):
    assert Path(os.environ[CACHE_ENV]) == cache_root
    folders = [cache_dir(kind) for kind in KINDS] + [feature_cache_dir(), parse_cache_dir()]
    folders.append(_lock_dir("http://127.0.0.1:5000"))
    for folder in folders:
        assert folder.is_relative_to(cache_root), folder
        assert not folder.is_relative_to(Path.home() / ".cache"), folder


def test_layout_under_a_root_and_the_home_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert cache_dir("features", tmp_path) == tmp_path  # feature entries sit at the top, as before
    assert cache_dir("parses", tmp_path) == tmp_path / "parses"
    assert cache_dir("locks", tmp_path) == tmp_path / "locks"
    monkeypatch.delenv(CACHE_ENV)
    assert cache_dir("parses") == Path.home() / ".cache" / "advisor" / "parses"  # nothing is created
    with pytest.raises(ValueError, match="unknown cache kind"):
        cache_dir("weights")


def test_a_run_root_holds_while_the_block_runs_and_is_given_back(tmp_path: Path, cache_root: Path):
    with using_cache_root(tmp_path / "run"):
        assert parse_cache_dir() == tmp_path / "run" / "parses"
        assert feature_cache_dir() == tmp_path / "run"
    assert os.environ[CACHE_ENV] == str(cache_root)
    with using_cache_root(None):
        assert feature_cache_dir() == cache_root


def test_parsed_vectors_go_under_the_run_root(tmp_path: Path):
    vectors = write_tiny_vectors(tmp_path / "vectors.txt")
    with using_cache_root(tmp_path / "run"):
        table = load_vectors(vectors)
    assert len(table.index) > 0
    assert [p.name[:8] for p in (tmp_path / "run").iterdir()] == ["vectors-"]


def test_run_analysis_makes_the_settings_cache_dir_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import advisor.runner as runner
    from advisor.settings import RunSettings

    seen = []
    monkeypatch.setattr(runner, "_run_analysis", lambda *args: seen.append(parse_cache_dir()))
    runner.run_analysis(RunSettings(data="x", task="ner", cache_dir=str(tmp_path / "run")))
    assert seen == [tmp_path / "run" / "parses"]
