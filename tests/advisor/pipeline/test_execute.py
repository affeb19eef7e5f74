"""The executor: per-child order, the encoder prelude beside the first cells, deferred features."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from advisor.data import read_splits
from advisor.embeddings import make_embedding
from advisor.grid import Cell
from advisor.pipeline import _execute
from advisor.pipeline._execute import DeferredFeatures, Prelude, _InChildOrder, train_cells
from tests.advisor.test_runner import write_ner

# A fake cell's duration: a child's first (smaller) cell is the slow one, so finish order != grid order.
_SECONDS = {1: 0.8, 2: 0.05, 3: 0.05}


def _fake_train_one(cell: Cell, state: dict) -> tuple[Cell, float, float]:
    """Forked workers run this instead of training: it returns the time the cell started."""
    started = time.time()
    time.sleep(_SECONDS[cell.size])
    return cell, started, time.time() - started


@pytest.fixture
def fake_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_execute, "train_one", _fake_train_one)  # before the fork: workers inherit it


def test_outcomes_are_held_until_the_same_childs_smaller_cells_are_out() -> None:
    small, large, other = Cell("static", 1, 0), Cell("static", 2, 0), Cell("static", 2, 1)
    order = _InChildOrder([small, other, large])
    assert order.release((large, "L", 0.0)) == []  # its child's size-1 cell is not out yet
    assert order.release((other, "O", 0.0)) == [(other, "O", 0.0)]
    assert order.release((small, "S", 0.0)) == [(small, "S", 0.0), (large, "L", 0.0)]


@pytest.mark.usefixtures("fake_cells")
def test_a_child_gets_its_cells_in_size_order_when_the_larger_finishes_first() -> None:
    cells = [Cell("static", 1, 0), Cell("static", 2, 0)]
    outcomes = list(train_cells(cells, {}, n_workers=2))
    assert [cell for cell, _, _ in outcomes] == cells
    first_start, second_start = outcomes[0][1], outcomes[1][1]
    assert second_start < first_start + _SECONDS[1]  # they did run side by side


@pytest.mark.usefixtures("fake_cells")
def test_cheap_cells_run_beside_the_prelude_and_its_cells_start_after_then() -> None:
    release = threading.Event()
    calls: dict[str, float | int] = {}

    def run() -> str:
        calls["run_thread"] = threading.get_ident()
        release.wait(10)
        return "encoded"

    def then(result: str) -> None:
        assert result == "encoded"
        calls["then_thread"], calls["then_at"] = threading.get_ident(), time.time()

    cheap = [Cell("static", 2, 0), Cell("static", 3, 0)]
    later = [Cell("contextual", 2, 0), Cell("contextual", 3, 0)]
    prelude = Prelude(run=run, then=then, cells=later)
    cells = train_cells(cheap, {}, n_workers=2, prelude=prelude)
    first = next(cells)  # the encoder is still running: only a cheap cell can be out
    assert first[0] == cheap[0] and "then_at" not in calls
    release.set()
    outcomes = [first, *cells]
    assert len(outcomes) == 4 and {c for c, _, _ in outcomes} == {*cheap, *later}
    started = {cell: at for cell, at, _ in outcomes}
    assert calls["then_thread"] == threading.get_ident() != calls["run_thread"]
    assert all(started[cell] >= calls["then_at"] for cell in later)
    assert prelude.stop.is_set()  # finished: a late encoder batch would end there


@pytest.mark.usefixtures("fake_cells")
def test_a_failing_prelude_fails_the_run_and_stops_the_workers() -> None:
    def run() -> None:
        raise ValueError("the encoder failed")

    prelude = Prelude(run=run, then=lambda _: None, cells=[Cell("contextual", 2, 0)])
    with pytest.raises(ValueError, match="the encoder failed"):
        list(train_cells([Cell("static", 1, 0)], {}, n_workers=2, prelude=prelude))


@pytest.mark.usefixtures("fake_cells")
def test_closing_the_executor_tells_the_prelude_to_stop() -> None:
    release = threading.Event()
    prelude = Prelude(run=lambda: release.wait(5), then=lambda _: None, cells=[Cell("contextual", 2, 0)])
    cells = train_cells([Cell("static", 2, 0)], {}, n_workers=2, prelude=prelude)
    next(cells)
    cells.close()
    assert prelude.stop.is_set()
    release.set()


@pytest.mark.usefixtures("fake_cells")
def test_one_worker_runs_the_prelude_first_then_every_cell_in_grid_order() -> None:
    order: list[str] = []
    prelude = Prelude(
        run=lambda: order.append("run"),
        then=lambda _: order.append("then"),
        cells=[Cell("contextual", 2, 0), Cell("contextual", 3, 0)],
    )
    cheap = [Cell("static", 2, 0), Cell("static", 3, 0)]
    outcomes = list(train_cells(cheap, {}, n_workers=1, prelude=prelude))
    assert order == ["run", "then"]
    assert [c.size for c, _, _ in outcomes] == [2, 2, 3, 3]


def test_deferred_features_read_the_committed_cache_entry(tmp_path: Path, tiny_bert_dir: Path) -> None:
    files = {part: write_ner(tmp_path / f"{part}.conll", n, i) for i, (part, n) in
             enumerate((("train", 12), ("dev", 4), ("test", 5)))}  # fmt: skip
    splits = read_splits(files["train"], "ner", dev=files["dev"], test=files["test"])
    options = {"model": str(tiny_bert_dir), "layer": "mix", "cache_dir": str(tmp_path / "cache")}
    encoder = make_embedding("contextual", **options)
    encoder.fit(splits.train)
    parent = [encoder.featurize(part) for part in (splits.train, splits.dev, splits.test)]
    opened = DeferredFeatures("contextual", options).load(splits)
    for mine, theirs in zip(parent, opened, strict=True):
        np.testing.assert_array_equal(np.asarray(mine.vectors), np.asarray(theirs.vectors))
        np.testing.assert_array_equal(mine.offsets, theirs.offsets)
        assert isinstance(theirs.vectors, np.memmap)  # read from the entry, not encoded again
