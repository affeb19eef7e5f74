"""Spawned training workers: memmaps travel as file references, and a run trains the same cells."""

from __future__ import annotations

from dataclasses import replace
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

from advisor.pipeline._spawn import memmaps_by_reference, reduce_memmap, start_method


@pytest.fixture
def stack(tmp_path) -> np.memmap:
    """A read-only (40, 3, 16) float32 map of an .npy file: its data starts after the header."""
    values = np.arange(40 * 3 * 16, dtype=np.float32).reshape(40, 3, 16)
    np.save(tmp_path / "stack.npy", values)
    return np.load(tmp_path / "stack.npy", mmap_mode="r")


def _views(stack: np.memmap) -> list[np.ndarray]:
    return [stack, stack[5:9], stack[::3, 1], stack[:, :, 2], stack[7], stack[::-1]]


def test_a_map_and_its_views_go_by_reference_and_read_the_same_values(stack: np.memmap) -> None:
    with memmaps_by_reference():
        for view in _views(stack):
            payload = ForkingPickler.dumps(view)
            assert len(payload) < 1_000 < view.nbytes or view.nbytes < 1_000, len(payload)
            back = ForkingPickler.loads(payload)
            np.testing.assert_array_equal(back, view)
            assert not back.flags.writeable  # a fresh read-only map, not a copy


def test_outside_the_context_or_for_a_writable_map_the_values_are_copied(stack: np.memmap, tmp_path) -> None:
    assert len(ForkingPickler.dumps(stack)) > stack.nbytes
    writable = np.lib.format.open_memmap(tmp_path / "w.npy", mode="w+", dtype=np.float32, shape=(64, 16))
    writable[:] = 1.5
    with memmaps_by_reference():
        payload = ForkingPickler.dumps(writable)
    assert len(payload) > writable.nbytes
    np.testing.assert_array_equal(ForkingPickler.loads(payload), writable)


def test_workers_are_spawned_only_on_cuda() -> None:
    assert start_method("cuda") == start_method("cuda:1") == "spawn"
    assert start_method("cpu") == "fork"


def test_spawned_workers_train_what_one_process_trains(run_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spawn path as a GPU run takes it, on the CPU: features from the cache reach the workers by
    reference, and every cell scores as when trained in this process."""
    from advisor.pipeline import _execute, _spawn
    from advisor.runner import run_analysis
    from advisor.tracking import load_analysis

    settings = replace(run_settings, difficulty=False, lr=0.01)
    one = run_analysis(replace(settings, workers=1))
    referenced: list[str] = []

    def reduce_and_count(array: np.memmap):
        reduced = reduce_memmap(array)
        referenced.append(reduced[1][0])
        return reduced

    monkeypatch.setattr(_execute, "start_method", lambda device: "spawn")
    monkeypatch.setattr(_spawn, "reduce_memmap", reduce_and_count)
    spawned = run_analysis(replace(settings, workers=2, experiment="spawned"))
    assert any(str(name).endswith(".npy") for name in referenced)  # the cache's maps went by reference
    curves = [
        load_analysis(o.run_id, o.tracking_uri).curves.sort_values(["embedding", "size", "seed"])
        for o in (one, spawned)
    ]
    assert len(curves[0]) == 12
    columns = ["embedding", "size", "seed", "score", "steps"]
    assert curves[0][columns].reset_index(drop=True).equals(curves[1][columns].reset_index(drop=True))
