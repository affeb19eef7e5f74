"""Progress by stage: the wording, the featurize meter (items/s, ETA) and the file the app polls."""

from __future__ import annotations

from pathlib import Path

from advisor.grid import Cell
from advisor.progress import FeaturizeMeter, ProgressFile, describe, read_progress_file
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
    sink(ProgressEvent("cell", done=1, total=4, cell=Cell("random", 8, 0), score=0.1, seconds=0.1))
    state = read_progress_file(path)
    assert state["stage"] == "cell" and state["done"] == 1 and state["total"] == 4
    assert state["run_id"] == "abc" and state["eta"] >= 0 and "training cells [1/4]" in state["text"]
