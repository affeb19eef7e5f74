"""The run plan: the downstream precision is resolved before a run and is part of its resume key, and so
is the profile's projection width."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.data import read_splits
from advisor.grid import profiles
from advisor.pipeline import plan_run
from advisor.settings import RunSettings
from tests.helpers import write_ner
from trainers import _precision


def _plan(tmp_path: Path, precision: str, profile: str = "default"):
    files = {
        part: write_ner(tmp_path / f"{part}.conll", 20, i) for i, part in enumerate(("train", "dev", "test"))
    }
    settings = RunSettings(
        data=str(files["train"]),
        task="ner",
        dev=str(files["dev"]),
        test=str(files["test"]),
        embeddings=["random"],
        precision=precision,
        device="cpu",
        profile=profile,
    )
    return plan_run(
        settings, read_splits(str(files["train"]), "ner", dev=str(files["dev"]), test=str(files["test"]))
    )


@pytest.mark.parametrize(("native", "resolved"), [(True, "bfloat16"), (False, "float32")])
def test_auto_precision_is_resolved_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, native: bool, resolved: str
) -> None:
    monkeypatch.setattr(_precision, "native_bf16_cpu", lambda: native)
    plan = _plan(tmp_path, "auto")
    assert plan.train_config.precision == resolved
    assert json.loads(plan.params["train_config"])["precision"] == resolved


def test_runs_in_different_precisions_never_share_a_resume_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run resumed on a machine without native bf16 starts a new run instead of mixing precisions."""
    keys = {p: _plan(tmp_path, p).key for p in ("float32", "bfloat16")}
    assert keys["float32"] != keys["bfloat16"]
    monkeypatch.setattr(_precision, "native_bf16_cpu", lambda: True)
    assert _plan(tmp_path, "auto").key == keys["bfloat16"]
    monkeypatch.setattr(_precision, "native_bf16_cpu", lambda: False)
    assert _plan(tmp_path, "auto").key == keys["float32"]


def test_the_profiles_projection_width_is_trained_and_part_of_the_resume_key(tmp_path: Path) -> None:
    """A width audit (experiments/bench_convergence.py --against projection=N) trains what it names and
    never resumes the default's cells."""
    profiles.register("default-proj256-test")(
        replace(profiles.get("default"), name="default-proj256-test", projection=256)
    )
    try:
        default, wide = _plan(tmp_path, "float32"), _plan(tmp_path, "float32", "default-proj256-test")
    finally:
        profiles.unregister("default-proj256-test")
    assert default.train_config.projection == 64 and wide.train_config.projection == 256
    assert json.loads(wide.params["train_config"])["projection"] == 256
    assert default.key != wide.key
