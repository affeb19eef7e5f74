"""Progress by stage: the wording, the featurize meter (items/s, ETA) and the file the app polls."""

from __future__ import annotations

import itertools
from pathlib import Path

from advisor.grid import Cell
from advisor.progress import CellClock, FeaturizeMeter, ProgressFile, describe, read_progress_file, time_left
from advisor.runner import ProgressEvent


def test_featurize_meter_scales_batches_to_items_across_parts() -> None:
    events: list[ProgressEvent] = []
    meter = FeaturizeMeter("contextual", [100, 20, 30], events.append, ProgressEvent, min_interval=0.0)
    for done in (5, 10):  # train: 10 windows
        meter(done, 10)
    meter(2, 2)  # dev
    meter(3, 6)  # half of test
    assert [e.done for e in events] == [50, 100, 120, 135]
    assert all(e.total == 150 and e.stage == "featurize" for e in events)
    assert events[0].rate is None and events[0].eta is None  # no pace from one batch (model loading)
    assert all(e.rate and e.rate > 0 for e in events[1:])
    last = events[-1]
    assert abs(last.eta - 15 / last.rate) < 1e-6
    text = describe(last)
    assert text.startswith("featurizing contextual: 135 / 150 items, ") and "items/s, about" in text


def test_describe_names_every_stage() -> None:
    cell = Cell("static", 64, 1)
    assert describe(ProgressEvent("read", message="train.conll")) == "reading the data: train.conll"
    assert (
        describe(ProgressEvent("featurize", message="featurizing with static")) == "featurizing with static"
    )
    assert describe(ProgressEvent("cell", done=3, total=9, cell=cell, score=0.5, seconds=1.0)).startswith(
        "training cells [3/9] static"
    )
    assert describe(ProgressEvent("analysis", message="difficulty and verdict")).startswith("analysis")


def test_progress_file_keeps_the_latest_event_and_a_cell_eta(tmp_path: Path) -> None:
    path = tmp_path / "progress.json"
    sink = ProgressFile(path, min_interval=0.0)
    assert read_progress_file(path) is None
    sink(ProgressEvent("plan", done=0, total=4, message="4 cells to compute", run_id="abc"))
    sink(ProgressEvent("cell", done=1, total=4, cell=Cell("random", 8, 0), score=0.1, seconds=0.1, eta=42.0))
    state = read_progress_file(path)
    assert state["stage"] == "cell" and state["done"] == 1 and state["total"] == 4
    assert state["run_id"] == "abc" and state["eta"] == 42.0 and "training cells [1/4]" in state["text"]


# -- the training ETA: planted speeds, a simulated run on 2 workers ---------------------------------

FLOOR, CEILING = 100, 2000
PLANTED_SECONDS_PER_STEP = {"random": 0.004, "static": 0.01, "contextual": 0.03}


def _rule(size: int) -> int:
    """The profile's rule as the clock gets it: ~15 epochs of 64 items, within the floor and ceiling."""
    return min(max(15 * -(-size // 64), FLOOR), CEILING)


def _true_steps(size: int) -> int:
    """Cells stop early: 60 % of the rule, but never below the floor (what the clock must learn)."""
    return min(max(int(0.6 * _rule(size)), FLOOR), CEILING)


def _simulate(cells: list[tuple[str, int]], workers: int) -> list[tuple[float, tuple[str, int]]]:
    """Finish times of ``cells`` taken in order by ``workers`` workers (the executor's grid order)."""
    free = [0.0] * workers
    finished = []
    for family, size in cells:
        slot = free.index(min(free))
        free[slot] += PLANTED_SECONDS_PER_STEP[family] * _true_steps(size)
        finished.append((free[slot], (family, size)))
    return sorted(finished)


def test_the_training_eta_follows_planted_speeds_without_jumping_back_up() -> None:
    sizes = [100, 200, 400, 800, 1600, 3200]
    cells = [(f, z) for z in sizes for _ in range(3) for f in ("random", "static", "contextual")]
    events = _simulate(cells, workers=2)
    end = events[-1][0]
    clock = CellClock(_rule, workers=2)
    clock.plan(cells)
    etas: list[tuple[float, float]] = []
    for now, (family, size) in events:
        eta = clock.finish(
            family, size, PLANTED_SECONDS_PER_STEP[family] * _true_steps(size), _true_steps(size)
        )
        assert eta is not None  # never "–" once a cell has finished
        etas.append((now, eta))
    seen = [len({f for _, (f, _) in events[: i + 1]}) for i in range(len(events))]
    timed = seen.index(len(PLANTED_SECONDS_PER_STEP))  # from when every family has a finished cell
    for (before_at, before), (at, after) in itertools.pairwise(etas[timed:]):
        assert after <= max(before - (at - before_at), 0) * 1.15 + 1.0, (before_at, before, at, after)
    for i, (now, eta) in enumerate(etas[timed:-1], start=timed):
        truth = end - now
        assert truth / 2 <= eta <= 2 * truth, (now, eta, truth)  # steps above the floor not yet seen
        if i >= len(etas) // 2:  # cells above the floor have shown how early they stop
            assert abs(eta - truth) <= 0.3 * truth + 5.0, (now, eta, truth)
    assert etas[-1][1] == 0.0


def test_a_fast_small_cell_does_not_swing_the_eta() -> None:
    clock = CellClock(_rule, workers=1, prior={"static": 0.0025})
    clock.plan([("contextual", 3200)] * 3 + [("static", 100)] * 2)
    first = clock.finish("contextual", 3200, 30.0, 1000)
    # two contextual cells as measured (1,000 steps at 0.03 s), two static ones from the record and the
    # rule scaled by the steps the contextual cell took against it (1,000 / 750)
    assert abs(first - (60.0 + 2 * 0.0025 * FLOOR * 1000 / 750)) < 1e-9
    second = clock.finish("static", 100, 0.25, FLOOR)
    assert abs(second - first) < 0.05 * first  # a small cell barely moves the estimate


def test_the_eta_starts_from_recorded_speeds_and_is_worded_for_tune_and_cell_events() -> None:
    clock = CellClock(_rule, workers=1, prior={"static": 0.01})
    clock.plan([("static", 64)])
    assert clock.estimate() == 0.01 * FLOOR  # before any cell: the speed an earlier run recorded
    assert (
        CellClock(_rule).estimate() == 0.0 and CellClock(_rule, remaining=[("static", 64)]).estimate() is None
    )
    event = ProgressEvent(
        "cell", done=1, total=4, cell=Cell("static", 64, 0), score=0.5, seconds=1.0, eta=240.0
    )
    assert time_left(event) == ", about 4 min of training left"
    trial = ProgressEvent("tune", 2, 6, cell=Cell("static", 64, 1, lr=0.003), score=0.7, seconds=2.0)
    assert describe(trial).startswith("learning-rate trial [2/6] static") and "lr 0.003" in describe(trial)
    assert time_left(trial) == ""  # no ETA yet: nothing said rather than a dash
    wide = ProgressEvent(
        "tune", 3, 12, cell=Cell("static", 64, 1, lr=0.01, projection=256), score=0.7, seconds=2.0
    )
    assert "lr 0.01 width 256 size 64" in describe(wide)
