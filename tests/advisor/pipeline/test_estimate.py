"""The duration before a run: from the speeds this machine recorded (or timed now), said with its basis."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor.grid import StepCost, expected_steps, plan_grid, profiles
from advisor.pipeline import estimate_run
from advisor.pipeline._speed import (
    calibrate_encoder,
    load_now,
    record_encoder_speed,
    record_training_speed,
    recorded_encoder_speed,
    recorded_seconds_per_step,
    recorded_steps_ratio,
    recorded_training_load,
)
from advisor.progress import CellClock
from advisor.settings import RunSettings


@pytest.fixture
def load(monkeypatch: pytest.MonkeyPatch):
    """``load(average, cores)``: the machine's load as recording and estimating read it (idle by default)."""
    import advisor.pipeline._estimate as estimate_module
    import advisor.pipeline._speed as speed_module

    def plant(average: float, cores: int = 2) -> None:
        monkeypatch.setattr(speed_module, "machine_load", lambda: (average, cores))
        monkeypatch.setattr(estimate_module, "load_now", lambda: (average, cores))

    plant(0.0)
    return plant


@pytest.fixture
def train(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load) -> Path:
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


def _planted_speeds(train: Path, tiny_bert_dir: Path) -> RunSettings:
    """Static and contextual on ``train`` (quick profile, one worker), with the encoder's 500 words/s and
    0.005 / 0.02 s per training step recorded as an earlier run on this machine would have."""
    settings = RunSettings(
        data=str(train), task="classify", embeddings=["static", "contextual"], contextual=str(tiny_bert_dir),
        profile="quick", workers=1, lr=0.01, device="cpu",
    )  # fmt: skip
    record_encoder_speed(str(tiny_bert_dir), "cpu", 500.0)
    clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
    clock.finished += [("static", 100, 2.0, 400), ("contextual", 100, 8.0, 400)]  # 0.005 and 0.02 s/step
    record_training_speed("classify", "cpu", clock)
    return settings


def test_the_estimate_uses_planted_throughputs_and_says_so(train: Path, tiny_bert_dir: Path) -> None:
    settings = _planted_speeds(train, tiny_bert_dir)
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
    assert text.startswith("Expected duration: about ")  # measured, not a first guess
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
    text = estimate_run(settings, time_training=False).text()
    assert "the encoder timed just now on a sample of your texts (cpu)" in text
    assert "a training speed constant for 2 idle CPU cores" in text
    assert text.startswith("Expected duration: a rough first guess of about ")  # no training speed recorded
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


def _static_run(train: Path) -> RunSettings:
    return RunSettings(
        data=str(train), task="classify", embeddings=["static"], profile="quick", workers=2, lr=0.01,
        device="cpu",
    )  # fmt: skip


def test_recorded_step_seconds_are_scaled_from_the_load_they_met_to_the_load_now(train: Path, load) -> None:
    """A run timed at load 6 on 2 cores ran 3x slower than idle: idle now (its 2 workers: contention 1)
    the training part is a third of what it measured, at load 4 (+2 workers) the same again."""
    load(6.0, 2)
    clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
    clock.finished += [("static", 100, 6.0, 200)]  # 0.03 s per step, measured under contention 3
    record_training_speed("classify", "cpu", clock)
    assert recorded_training_load("classify", "cpu") == {"static": 3.0}
    load(0.0, 2)
    idle = estimate_run(_static_run(train), calibrate=False)
    assert idle.throughput.seconds_per_step == {"static": pytest.approx(0.01)}
    assert "load" not in idle.text() and idle.text().startswith("Expected duration: about ")
    load(4.0, 2)
    busy = estimate_run(_static_run(train), calibrate=False)
    assert busy.throughput.seconds_per_step == {"static": pytest.approx(0.03)}
    assert busy.seconds - 30.0 == pytest.approx(3 * (idle.seconds - 30.0))  # no encoder: training + fixed
    assert "and the machine's load now (4.0 on 2 cores)" in busy.text()


def test_the_idle_core_constant_is_slowed_by_the_load_now_and_called_a_first_guess(train: Path, load) -> None:
    idle = estimate_run(_static_run(train), calibrate=False, time_training=False)
    load(10.0, 2)  # 10 other processes and 2 workers on 2 cores: 6x
    busy = estimate_run(_static_run(train), calibrate=False, time_training=False)
    assert busy.throughput.contention == 6.0 and idle.throughput.contention == 1.0
    assert busy.seconds - 30.0 == pytest.approx(6 * (idle.seconds - 30.0))
    text = busy.text()
    assert text.startswith("Expected duration: a rough first guess of about ")
    assert "a training speed constant for 2 idle CPU cores" in text and "load now (10.0 on 2 cores)" in text


def test_a_speed_recorded_without_its_load_is_not_scaled(train: Path, load, monkeypatch) -> None:
    """Records from before the load was kept: taken as they are (scaling them would count the load twice)."""
    import advisor.pipeline._speed as speed_module

    monkeypatch.setattr(speed_module, "machine_load", lambda: None)
    clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
    clock.finished += [("static", 100, 6.0, 200)]
    record_training_speed("classify", "cpu", clock)
    assert recorded_training_load("classify", "cpu") == {}
    load(10.0, 2)
    estimate = estimate_run(_static_run(train), calibrate=False)
    assert estimate.throughput.seconds_per_step == {"static": 0.03}
    assert "load" not in estimate.text()  # the load scaled nothing: not named as a basis


def test_the_estimate_bounds_the_extension_below_the_grid_and_says_so(
    train: Path, tiny_bert_dir: Path
) -> None:
    """Without --sizes the run may halve its smallest size down to the floor (50 items) while contextual
    still matches: the sentence adds what those cells may cost, at the floor's steps each."""
    settings = _planted_speeds(train, tiny_bert_dir)
    estimate = estimate_run(settings, calibrate=False)
    full = estimate.plan.full_size
    smallest = min(estimate.plan.sizes)
    added = [round(full / 2**k) for k in range(1, 12) if 50 <= round(full / 2**k) < smallest]
    assert added and estimate.extension is not None and estimate.extension[0] == min(added)
    quick = profiles.get("quick")  # small cells: the floor, then a plateau of patience x 20 steps per anneal
    floor_steps = quick.min_steps + quick.anneals * quick.patience * 20
    per_size = 2 * floor_steps * (0.005 + 0.02)  # 2 seeds × (static + contextual), one worker
    assert estimate.extension[1] == pytest.approx(len(added) * per_size)
    assert f"the grid extends down to {min(added):,} items: up to about" in estimate.text()
    fixed = estimate_run(RunSettings(**{**settings.__dict__, "sizes": [100, 200]}), calibrate=False)
    assert fixed.extension is None and "extends" not in fixed.text()  # sizes given: never extended


def test_a_cpu_constant_used_for_a_gpu_run_says_nothing_was_measured_there(
    train: Path, tiny_bert_dir: Path
) -> None:
    """The first guess for a GPU run rests on CPU constants: the estimate must not pass them off as the
    GPU's (on an H100 the CoNLL-size encoder pass took 14.5 s, against 142-365 s on 2 cores)."""
    settings = dataclasses.replace(
        _static_run(train), embeddings=["static", "contextual"], contextual=str(tiny_bert_dir), device="cuda"
    )
    text = estimate_run(settings, calibrate=False).text()
    assert "an encoder speed constant for 2 CPU cores, though this run uses cuda" in text
    assert "2 idle CPU cores (no earlier run of this task here yet), though this run uses cuda" in text
    cpu_text = estimate_run(_static_run(train), calibrate=False).text()
    assert "this run uses" not in cpu_text


class _Readings:
    """``/proc/loadavg`` as successive readings: the averages of a heavy job that just ended, with the
    processes running at each instant (the reader is one of them)."""

    def __init__(self, running: list[int]) -> None:
        self.running = iter(running)

    def read_text(self, encoding: str) -> str:
        return f"2.80 1.90 1.20 {next(self.running)}/250 4242"


def test_the_load_now_counts_the_processes_running_now_not_the_decaying_average() -> None:
    """A job that ended a minute ago is still in the 1-minute average (2.80) but competes with nothing."""
    assert load_now(_Readings([1, 1, 1]), samples=3, interval=0)[0] == 0.0  # type: ignore[arg-type]
    busy_half_the_time = _Readings([3, 2, 3, 2])  # one worker always running, one half the time
    assert load_now(busy_half_the_time, samples=4, interval=0)[0] == pytest.approx(1.5)  # type: ignore[arg-type]


def test_without_a_readable_proc_loadavg_the_load_now_is_the_load_average(
    tmp_path: Path, monkeypatch
) -> None:
    import advisor.pipeline._speed as speed_module

    monkeypatch.setattr(speed_module, "machine_load", lambda: (3.5, 4))
    assert load_now(tmp_path / "missing", interval=0) == (3.5, 4)
    (tmp_path / "loadavg").write_text("garbled\n", encoding="ascii")
    assert load_now(tmp_path / "loadavg", interval=0) == (3.5, 4)


@pytest.fixture
def timed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Training timed on a sample returns a planted pace (static: 20 ms a step, 1 ms a dev item); the
    list counts the timings."""
    import advisor.pipeline._calibrate as calibrate_module

    calls: list[int] = []

    def planted(splits, options, config, widths) -> dict[tuple[str, int], StepCost]:
        calls.append(len(splits.train))
        return {(name, width): StepCost(0.02 * width / 64, 0.001) for name in options for width in widths}

    monkeypatch.setattr(calibrate_module, "calibrate_training", planted)
    return calls


def test_a_long_first_run_times_training_once_and_prices_its_dev_passes(
    train: Path, load, timed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    import advisor.pipeline._estimate as estimate_module

    monkeypatch.setattr(estimate_module, "TIME_TRAINING_FROM_S", 0.0)  # this small run counts as long
    load(2.0, 2)  # timed beside 2 other processes on 2 cores: 1.5x slower than idle
    first = estimate_run(_static_run(train), calibrate=False)
    assert len(timed) == 1 and "training speed timed just now on a sample of your texts" in first.text()
    assert not first.text().startswith("Expected duration: a rough first guess")
    load(0.0, 2)  # idle now: the run's 2 workers alone, so the timed pace is 1.5x too slow
    again = estimate_run(_static_run(train), calibrate=False)
    assert len(timed) == 1 and "timed earlier on a sample of this task's texts" in again.text()
    assert set(again.throughput.step_costs) == {("static", 64)}  # --lr given: one width, nothing tuned
    cost = again.throughput.step_costs["static", 64]
    assert cost.step_s == pytest.approx(0.02 / 1.5) and cost.dev_item_s == pytest.approx(0.001 / 1.5)
    plan, profile = again.plan, profiles.get("quick")
    n_dev = again.throughput.n_dev
    cells = sum(expected_steps(c.size, profile) * cost.seconds_per_step(c.size, n_dev) for c in plan.cells)
    assert again.seconds == pytest.approx(30.0 + cells / 2)  # 2 workers; no encoder, no trials (--lr)


def test_a_short_run_is_not_worth_timing(train: Path, timed: list[int]) -> None:
    import advisor.pipeline._estimate as estimate_module

    estimate = estimate_run(_static_run(train), calibrate=False)  # the constants put it under 10 minutes
    assert estimate.seconds < estimate_module.TIME_TRAINING_FROM_S and timed == []
    assert estimate.text().startswith("Expected duration: a rough first guess of about ")


def test_a_recorded_run_speed_outranks_a_timed_sample(train: Path, timed: list[int], monkeypatch) -> None:
    import advisor.pipeline._estimate as estimate_module

    monkeypatch.setattr(estimate_module, "TIME_TRAINING_FROM_S", 0.0)
    clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
    clock.finished += [("static", 100, 6.0, 200)]
    record_training_speed("classify", "cpu", clock)
    estimate = estimate_run(_static_run(train), calibrate=False)
    assert timed == [] and estimate.throughput.step_costs == {}
    assert "recorded by earlier classify runs" in estimate.text()
