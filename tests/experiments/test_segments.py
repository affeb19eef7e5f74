"""The clock of a benchmark run over several sittings (experiments/_segments.py): what each sitting
spent, and a killed sitting still counted up to its last progress event."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import FinishedRun, load_experiment


class FakeClock:
    """A clock the test moves by hand: wall and CPU seconds."""

    def __init__(self) -> None:
        self.now, self.cpu = 100.0, 10.0

    def tick(self, seconds: float, cpu: float = 0.0) -> None:
        self.now += seconds
        self.cpu += cpu


def ledger_at(folder: Path, clock: FakeClock):
    segments = load_experiment("_segments")
    return segments.Ledger(folder, lambda: clock.cpu, lambda: clock.now)


def test_time_up_to_an_event_goes_to_the_stage_the_previous_event_opened(tmp_path: Path) -> None:
    clock = FakeClock()
    ledger = ledger_at(tmp_path, clock)
    ledger.start("cold")
    clock.tick(2.0)
    ledger.record("read", "train.conll")  # start-up: 2 s
    clock.tick(3.0)
    ledger.record("featurize", "featurizing with contextual")  # read and plan: 3 s
    clock.tick(50.0)
    ledger.record("featurize", "contextual")
    clock.tick(10.0)
    ledger.record("tune", "static: 3 rates at 3,510 items")  # featurize contextual: 60 s
    clock.tick(30.0, cpu=50.0)
    ledger.record("tune", "", "static", 28.0)  # a trial ended: tune
    clock.tick(10.0, cpu=20.0)
    ledger.record("tune", "chosen on dev: static 0.01")  # tune: 40 s in all
    clock.tick(20.0, cpu=30.0)
    ledger.record("cell", "", "static", 15.0)
    clock.tick(20.0, cpu=30.0)
    ledger.record("cell", "", "contextual", 18.0)
    clock.tick(5.0)
    segment = ledger.close("finished", {"total": 150.0}, reused=0)
    assert segment.stages == {
        "start-up": 2.0,
        "read and plan": 3.0,
        "featurize contextual": 60.0,
        "tune": 40.0,
        "train": 45.0,
    }
    assert segment.wall == 150.0 and segment.cpu == 130.0 and segment.cells == 2
    assert segment.cell_seconds == {"static": 15.0, "contextual": 18.0}
    assert sum(segment.stages.values()) == pytest.approx(segment.wall)  # every second is somewhere
    assert ledger.finished("cold") and not ledger.finished("identical re-run")


def test_a_finished_cell_owns_the_time_since_an_announcement_without_work_of_its_own(tmp_path: Path) -> None:
    """A resumed sitting trains right after reading its cache, an extension right after its "plan"
    line: with no event between, that time was training, not featurizing or planning."""
    clock = FakeClock()
    ledger = ledger_at(tmp_path, clock)
    ledger.start("cold")
    clock.tick(1.0)
    ledger.record("featurize", "featurizing with contextual")  # start-up: 1 s
    clock.tick(140.0)
    ledger.record("cell", "", "static", 140.0)  # cache read, then a cell: train
    clock.tick(0.5)
    ledger.record("plan", "extended down to 439 items: ...; 9 cells to compute")  # train: 0.5 s
    clock.tick(60.0)
    ledger.record("cell", "", "random", 60.0)  # train
    clock.tick(2.0)
    ledger.record("analysis", "difficulty and verdict")  # train: the gap after the last cell
    clock.tick(30.0)
    segment = ledger.close("finished", {"total": 233.5}, reused=9)
    assert segment.stages == {"start-up": 1.0, "train": 202.5, "analysis and report": 30.0}
    assert sum(segment.stages.values()) == pytest.approx(segment.wall)


def test_a_killed_sitting_counts_up_to_its_last_event_and_the_next_one_adds_to_it(tmp_path: Path) -> None:
    clock = FakeClock()
    first = ledger_at(tmp_path, clock)
    first.start("cold")
    clock.tick(300.0)
    first.record("featurize", "featurizing with static")
    clock.tick(999.0)  # killed with -9 here: these seconds had no event, so they are not counted
    second = ledger_at(tmp_path, clock)  # the next sitting finds the open segment
    [killed] = second.segments("cold")
    assert killed.ended == "killed" and killed.wall == 300.0 and not second.finished("cold")
    second.start("cold")
    clock.tick(60.0)
    second.close("finished", {"total": 60.0}, reused=4)
    walls = [s.wall for s in second.segments("cold")]
    assert walls == [300.0, 60.0]
    assert load_experiment("_segments").total(second.segments("cold"), "wall") == 360.0
    assert not (tmp_path / "segment_open.json").exists()


def test_an_interrupted_sitting_counts_up_to_the_interruption(tmp_path: Path) -> None:
    clock = FakeClock()
    ledger = ledger_at(tmp_path, clock)
    ledger.start("cold")
    clock.tick(5.0)
    ledger.record("cell", "", "random", 4.0)
    clock.tick(7.0)
    segment = ledger.close("interrupted")
    assert segment.ended == "interrupted" and segment.wall == 12.0
    assert segment.stages == {"train": 12.0}  # the 5 s up to the finished cell were training too
    kept = ledger_at(tmp_path, clock).segments()  # nothing left open to fold in again
    assert [vars(s) for s in kept] == [vars(segment)]


def test_recording_without_an_open_sitting_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="no sitting is open"):
        ledger_at(tmp_path, FakeClock()).record("read")


def test_a_real_runs_events_land_in_the_stages_a_reader_expects(
    tmp_path: Path, finished_run: FinishedRun
) -> None:
    clock = FakeClock()
    ledger = ledger_at(tmp_path, clock)
    ledger.start("cold")
    for event in finished_run.events:
        clock.tick(1.0)
        family = event.cell.embedding if event.cell is not None else None
        ledger.record(event.stage, event.message, family, event.seconds)
    segment = ledger.close("finished")
    featurized = {stage for stage in segment.stages if stage.startswith("featurize ")}
    assert featurized == {f"featurize {family}" for family in ("random", "static", "contextual")}
    assert {"start-up", "read and plan", "train", "analysis and report"} <= set(segment.stages)
    assert segment.cells == len(finished_run.outcome.computed)
    assert set(segment.cell_seconds) == {cell.embedding for cell in finished_run.outcome.computed}
