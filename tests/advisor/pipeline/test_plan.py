"""The run plan: the downstream precision is resolved before a run and is part of its resume key, and so
are the projection widths (the profile's, chosen on dev, or the one ``--projection`` fixes)."""

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


def _plan(tmp_path: Path, precision: str, profile: str = "default", **changes: object):
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
    settings = replace(settings, **changes)
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
    never resumes the quick profile's cells."""
    profiles.register("quick-proj256-test")(
        replace(profiles.get("quick"), name="quick-proj256-test", projections=(256,))
    )
    try:
        quick, wide = _plan(tmp_path, "float32", "quick"), _plan(tmp_path, "float32", "quick-proj256-test")
    finally:
        profiles.unregister("quick-proj256-test")
    assert quick.train_config.projection == 64 and wide.train_config.projection == 256
    assert json.loads(wide.params["train_config"])["projection"] == 256
    assert quick.key != wide.key


def test_widths_chosen_on_dev_are_the_setting_and_a_fixed_width_is_another(tmp_path: Path) -> None:
    """The default profile chooses the width with the rate: its key and logged config name the widths
    tried and the rule, not one width; ``--projection`` fixes one width (a run of its own); ``--lr``
    tunes nothing, so the profile's first width is trained."""
    chosen = _plan(tmp_path, "float32")
    config = json.loads(chosen.params["train_config"])
    assert profiles.get("default").projections == (64, 256)
    assert config["projection"] is None and config["projection_grid"] == [64, 256]
    assert config["lr_choice"].startswith("narrowest width, then largest rate")
    fixed = _plan(tmp_path, "float32", projection=128)
    assert fixed.train_config.projection == 128 and "projection_grid" not in json.loads(
        fixed.params["train_config"]
    )
    assert len({chosen.key, fixed.key, _plan(tmp_path, "float32", projection=256).key}) == 3
    one_rate = _plan(tmp_path, "float32", lr=0.01)
    assert one_rate.train_config.projection == 64 and "projection_grid" not in one_rate.params["train_config"]
