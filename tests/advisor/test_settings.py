from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from typer.main import get_command

from advisor.app import run_command
from advisor.cli import app
from advisor.settings import DATA_OPTIONS, SETTINGS, RunSettings, default_of, from_cli, to_argv

#: A value unlike the default for every field, so each one must travel through the argv to arrive.
CHANGED: dict[str, Any] = {
    "data": "my data/train.conll",
    "task": "classify",
    "dev": "dev set.csv",
    "test": "test.csv",
    "text_col": "sentence",
    "label_col": "gold",
    "split_seed": 7,
    "strict": True,
    "embeddings": ["static", "contextual"],
    "profile": "quick",
    "sizes": [50, 100],
    "fractions": None,  # --sizes and --fractions exclude each other; fractions get their own case below
    "seeds": 2,
    "max_steps": 4,
    "patience": 3,
    "until": "decided",
    "budget": "10m",
    "lr": 0.002,
    "projection": 128,
    "contextual": "bert-base-cased",
    "layer": "mean-last-4",
    "pooling": "mean",
    "pair_encoding": "separate",  # a round trip only: validation refuses it without --task pair
    "distill_layer": "2",
    "static": "glove.txt",
    "random_dim": 32,
    "finetune_sizes": "mid,full",
    "finetune_epochs": 2,
    "finetune_seeds": 1,
    "difficulty": False,
    "spacy_model": "en_core_web_sm",
    "price_per_hour": 1.5,
    "acceptable_loss": 0.02,
    "latency_budget_ms": 10.0,
    "latency_batch": 64,
    "monthly_items": 2_000_000.0,
    "value_per_point": 3.0,
    "label_cost": 0.25,
    "tracking_uri": "sqlite:///s/mlflow.db",
    "experiment": "exp one",
    "tags": {"team": "nlp", "note": "a=b"},
    "force": True,
    "device": "cpu",
    "precision": "float32",
    "workers": 3,
    "backend": "ray",
    "ray_address": "ray://head:10001",
    "cache_dir": "/tmp/advisor cache",
}


def _parsed(argv: list[str]) -> dict[str, Any]:
    """What the real ``advisor run`` parser makes of ``argv`` (the words after ``run``)."""
    group = get_command(app)
    context = group.make_context("advisor", ["run", *argv])
    return group.get_command(context, "run").make_context("run", list(argv)).params


def _round_trip(settings: RunSettings) -> RunSettings:
    return RunSettings(**from_cli(_parsed(to_argv(settings))))


def test_the_schema_covers_every_run_setting_once():
    names = [s.name for s in SETTINGS]
    assert sorted(names) == sorted(f.name for f in dataclasses.fields(RunSettings))
    assert len(set(names)) == len(names)
    assert set(CHANGED) == set(names)
    assert DATA_OPTIONS == ("data", "task", "dev", "test", "text_col", "label_col", "split_seed", "strict")


def test_every_field_survives_settings_to_argv_to_settings():
    settings = RunSettings(**CHANGED)
    for name, value in CHANGED.items():
        if name != "fractions":
            assert value != default_of(name), name  # otherwise the case proves nothing
    assert _round_trip(settings) == settings


@pytest.mark.parametrize(
    "changes",
    [{}, {"fractions": [0.25, 1.0]}, {"difficulty": True, "embeddings": ["random", "static", "contextual"]}],
)
def test_defaults_stay_implicit_and_round_trip(changes: dict[str, Any]):
    settings = RunSettings(data="train.conll", task="ner", **changes)
    argv = to_argv(settings)
    assert _round_trip(settings) == settings
    if not changes:
        assert argv[:3] == ["train.conll", "--task", "ner"] and "--profile" in argv and "--sizes" not in argv


def test_the_app_command_carries_every_setting_and_its_session(tmp_path):
    settings = RunSettings(**CHANGED)
    command = run_command(settings, "s1", python="/py")
    back = RunSettings(**from_cli(_parsed(command[4:])))
    assert back == dataclasses.replace(settings, tags={**settings.tags, "app.session": "s1"})
    for flag in (
        "--workers",
        "--price-per-hour",
        "--strict",
        "--distill-layer",
        "--finetune-sizes",
        "--cache-dir",
    ):
        assert flag in command


@pytest.mark.parametrize("command", ["run", "inspect", "metrics", "layers", "contextuality"])
def test_every_data_command_takes_the_schema_data_options(command: str):
    group = get_command(app)
    context = group.make_context("advisor", [command, "--help"], resilient_parsing=True)
    names = [p.name for p in group.get_command(context, command).params]
    assert names[: len(DATA_OPTIONS)] == list(DATA_OPTIONS)
