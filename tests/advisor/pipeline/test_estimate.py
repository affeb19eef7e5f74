"""The duration before a run: from the speeds this machine recorded (or timed now), said with its basis."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.grid import expected_steps, plan_grid, profiles
from advisor.pipeline import estimate_run
from advisor.pipeline._speed import (
    calibrate_encoder,
    record_encoder_speed,
    record_training_speed,
    recorded_encoder_speed,
    recorded_seconds_per_step,
    recorded_steps_ratio,
)
from advisor.progress import CellClock
from advisor.settings import RunSettings


@pytest.fixture
def train(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))  # a machine with nothing recorded
    path = tmp_path / "train.csv"
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    rows = [f"{' '.join(words[: 2 + i % 6])} {i},{'ab'[i % 2]}" for i in range(600)]
    path.write_text("text,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_run_records_seconds_per_step_weighted_by_steps_and_steps_against_the_rule(train: Path) -> None:
    rule = lambda size: expected_steps(size, profiles.get("default"))  # noqa: E731
    clock = CellClock(rule)
    clock.finished += [("static", 64, 1.0, 600), ("static", 4096, 9.0, 900), ("random", 64, 0.0, 0)]
    record_training_speed("classify", "cpu", clock)
    assert recorded_seconds_per_step("classify", "cpu") == {"static": 10.0 / 1500}  # a cell of no steps: none
    assert recorded_steps_ratio("classify", "cpu")["static"] == pytest.approx(1500 / (rule(64) + rule(4096)))
    assert recorded_seconds_per_step("ner", "cpu") == {} == recorded_seconds_per_step("classify", "cuda")


def test_the_estimate_uses_planted_throughputs_and_says_so(train: Path, tiny_bert_dir: Path) -> None:
    settings = RunSettings(
        data=str(train), task="classify", embeddings=["static", "contextual"], contextual=str(tiny_bert_dir),
        profile="quick", workers=1, lr=0.01, device="cpu",
    )  # fmt: skip
    record_encoder_speed(str(tiny_bert_dir), "cpu", 500.0)
    clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
    clock.finished += [("static", 100, 2.0, 400), ("contextual", 100, 8.0, 400)]  # 0.005 and 0.02 s/step
    record_training_speed("classify", "cpu", clock)
    estimate = estimate_run(settings, calibrate=False)
    splits_words = sum(
        len(f"{i}".split()) + 2 + i % 6 for i in range(600)
    )  # every text: its words + the number
    profile = profiles.get("quick")
    grid = plan_grid(estimate.plan.full_size, ["static", "contextual"], profile)
    steps = {
        e: sum(expected_steps(c.size, profile) for c in grid.cells if c.embedding == e)
        for e in grid.embeddings
    }
    train_seconds = 0.005 * steps["static"] + 0.02 * steps["contextual"]
    assert estimate.seconds == pytest.approx(splits_words / 500.0 + train_seconds + 30.0, rel=0.02)
    text = estimate.text()
    assert "the encoder's speed measured by an earlier run on this machine (cpu)" in text
    assert "training speed recorded by earlier classify runs on this machine" in text


def test_with_nothing_recorded_the_encoder_is_timed_on_a_sample_without_filling_the_cache(
    train: Path, tiny_bert_dir: Path, tmp_path: Path
) -> None:
    settings = RunSettings(
        data=str(train),
        task="classify",
        embeddings=["contextual"],
        contextual=str(tiny_bert_dir),
        device="cpu",
    )
    text = estimate_run(settings).text()
    assert "the encoder timed just now on a sample of your texts (cpu)" in text
    assert "a training speed constant for 2 CPU cores" in text
    words_per_s, source = recorded_encoder_speed(str(tiny_bert_dir), "cpu")
    assert words_per_s > 0 and source == "calibration"
    assert (
        "timed on a sample of texts on this machine" in estimate_run(settings).text()
    )  # recorded: not again
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name != "speed"]  # no feature entry written
    from advisor.data import read_splits

    assert (
        calibrate_encoder(
            {"model": str(tiny_bert_dir)}, read_splits(str(train), "classify").train.subset([0])
        )
        is None
    )


def test_the_estimate_reads_the_speeds_of_the_runs_own_cache_root(
    train: Path, tiny_bert_dir: Path, tmp_path: Path
) -> None:
    """``--cache-dir`` is where a run records its speeds, so it is where the estimate reads them."""
    settings = RunSettings(
        data=str(train), task="classify", embeddings=["contextual"], contextual=str(tiny_bert_dir),
        profile="quick", workers=1, lr=0.01, device="cpu", cache_dir=str(tmp_path / "own-cache"),
    )  # fmt: skip
    record_encoder_speed(str(tiny_bert_dir), "cpu", 500.0)  # under $ADVISOR_CACHE_DIR, not the run's root
    assert "measured by an earlier run" not in estimate_run(settings, calibrate=False).text()
