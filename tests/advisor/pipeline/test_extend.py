"""The grid's left end: when and how far it is halved, on hand-written scores (no training)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from advisor.grid import GridPlan, plan_grid, profiles, subset_indices
from advisor.pipeline import Extension, extension_floor, finished_scores, next_extension, with_size
from advisor.pipeline._extend import matched_families, smaller_size, step_from_rows, under_trained_cells

SEEDS = (0, 1)


def _grid(full: int = 1600, embeddings: tuple[str, ...] = ("random", "static", "contextual")) -> GridPlan:
    return plan_grid(full, list(embeddings), profiles.get("quick"), seeds=len(SEEDS))  # full, /2, /4


def _scores(curves: dict[str, dict[int, float]], spread: float = 0.02) -> dict[tuple[str, int, int], float]:
    """Per-seed scores whose mean is the given curve value."""
    return {
        (name, size, seed): mean + (spread if seed else -spread)
        for name, curve in curves.items()
        for size, mean in curve.items()
        for seed in SEEDS
    }


@dataclass
class _Corpus:
    task: str
    labels: list[str]


def test_smaller_size_continues_the_grid_series() -> None:
    assert smaller_size(400, 1600) == 200
    assert smaller_size(433, 6930) == 217  # round(6930 / 32) = 216.56
    assert smaller_size(1, 1600) == 0


def test_floor_is_50_items_and_two_per_class() -> None:
    assert extension_floor(_Corpus("ner", [])) == 50
    assert extension_floor(_Corpus("classify", ["a", "b"] * 10)) == 50
    assert extension_floor(_Corpus("classify", [str(i) for i in range(40)])) == 80


def test_contextual_matching_at_the_smallest_size_extends_by_half() -> None:
    grid = _grid()
    scores = _scores(
        {
            "random": {400: 0.30, 800: 0.40, 1600: 0.50},
            "static": {400: 0.50, 800: 0.60, 1600: 0.70},
            "contextual": {400: 0.72, 800: 0.80, 1600: 0.85},
        }
    )
    step = next_extension(grid, scores, floor=50)
    assert step == Extension(smallest=400, size=200, matched=("random", "static"), floor=50)
    assert "extended down to 200 items" in step.describe()


def test_a_bracketed_crossing_stops_the_extension() -> None:
    grid = with_size(_grid(), 200)
    scores = _scores(
        {
            "random": {200: 0.2, 400: 0.30, 800: 0.40, 1600: 0.45},
            "static": {200: 0.4, 400: 0.50, 800: 0.60, 1600: 0.70},
            "contextual": {200: 0.60, 400: 0.72, 800: 0.80, 1600: 0.85},
        }
    )
    # contextual falls below static's full-data 0.70 at 200 items, but not below random's 0.45
    assert matched_families(grid, scores) == ("random",)
    scores = {**scores, **_scores({"contextual": {200: 0.44}})}
    assert next_extension(grid, scores, floor=50) is None


def test_a_dip_above_the_smallest_size_already_brackets_the_crossing() -> None:
    """The verdict's rule: the curve must stay at or above the target; a dip below it is a crossing."""
    scores = _scores(
        {
            "static": {400: 0.5, 800: 0.6, 1600: 0.70},
            "contextual": {400: 0.75, 800: 0.65, 1600: 0.85},
        }
    )
    assert next_extension(_grid(embeddings=("static", "contextual")), scores, floor=50) is None


def test_the_floor_stops_the_extension_and_says_it_is_censored() -> None:
    grid = _grid(full=400)  # 100, 200, 400: the next size, 50, is the floor itself
    curves = {"static": {100: 0.5, 200: 0.6, 400: 0.7}, "contextual": {100: 0.8, 200: 0.8, 400: 0.9}}
    assert next_extension(grid, _scores(curves), floor=50).size == 50
    step = next_extension(grid, _scores(curves), floor=51)
    assert step is not None and step.size is None
    assert "censored" in step.describe() and "not extended below 100 items" in step.describe()


def test_missing_cells_or_no_contextual_never_extend() -> None:
    grid = _grid(embeddings=("static", "contextual"))
    scores = _scores(
        {"static": {400: 0.5, 800: 0.6, 1600: 0.7}, "contextual": {400: 0.8, 800: 0.8, 1600: 0.9}}
    )
    del scores[("contextual", 400, 1)]  # an unfinished size proves nothing
    assert next_extension(grid, scores, floor=50) is None
    only_cheap = _grid(embeddings=("random", "static"))
    assert next_extension(only_cheap, _scores({"random": {400: 0.9}, "static": {1600: 0.1}}), 50) is None


def test_with_size_adds_every_embedding_and_seed_and_keeps_subsets_nested() -> None:
    grid = _grid()
    extended = with_size(grid, 200)
    assert extended.sizes == [200, 400, 800, 1600]
    new = [c for c in extended.cells if c.size == 200]
    assert {(c.embedding, c.seed) for c in new} == {(e, s) for e in grid.embeddings for s in SEEDS}
    assert extended.cells[: len(new)] == new and extended.cells[len(new) :] == grid.cells
    order = np.random.default_rng(0).permutation(1600)
    assert set(subset_indices(order, 200)) <= set(subset_indices(order, 400))


def test_finished_scores_reads_the_tracker_rows() -> None:
    rows = {("static", 40, 0): {"score": 0.5, "steps": 3.0}, ("static", 20, 0): {"steps": 3.0}}
    assert finished_scores(rows) == {("static", 40, 0): pytest.approx(0.5)}


CURVES = {
    "random": {400: 0.30, 800: 0.40, 1600: 0.50},
    "static": {400: 0.50, 800: 0.60, 1600: 0.70},
    "contextual": {400: 0.72, 800: 0.80, 1600: 0.85},
}


def test_a_family_under_trained_at_full_data_is_named_but_not_chased() -> None:
    """Random's full-data score understates it: bracketing a match with it would overstate contextual."""
    step = next_extension(_grid(), _scores(CURVES), floor=50, under_trained=frozenset({("random", 1600, 1)}))
    assert step == Extension(400, 200, matched=("static",), floor=50, under_trained=("random",))
    text = step.describe()
    assert text.startswith("extended down to 200 items: contextual already reaches static's")
    assert "random's full-data cells are under-trained" in text and "not chased" in text


def test_only_under_trained_matches_train_nothing_more() -> None:
    flagged = frozenset({("random", 1600, 0), ("static", 1600, 1)})
    step = next_extension(_grid(), _scores(CURVES), floor=50, under_trained=flagged)
    assert step == Extension(400, None, matched=(), floor=50, under_trained=("random", "static"))
    assert step.describe().startswith("not extended below 400 items: random and static's full-data cells")
    assert "stays censored" in step.describe()


def test_under_trained_cells_below_full_data_do_not_stop_the_chase() -> None:
    """Only the target (the full-data score) matters; contextual's own flags understate contextual."""
    flagged = frozenset({("random", 400, 0), ("static", 800, 1), ("contextual", 1600, 0)})
    step = next_extension(_grid(), _scores(CURVES), floor=50, under_trained=flagged)
    assert step is not None and step.matched == ("random", "static") and step.under_trained == ()


def test_rows_give_scores_and_flags() -> None:
    rows = {
        ("random", 1600, 0): {"score": 0.5, "under_trained": 1.0},
        ("random", 1600, 1): {"score": 0.5, "under_trained": float("nan")},  # a run from before the flag
        ("static", 1600, 0): {"score": 0.7, "under_trained": 0.0},
        ("static", 800, 0): {"under_trained": 1.0},  # unfinished: no score
    }
    assert under_trained_cells(rows) == frozenset({("random", 1600, 0)})
    full = {key: {"score": score} for key, score in _scores(CURVES).items()}
    full[("random", 1600, 0)]["under_trained"] = 1.0
    assert step_from_rows(_grid(), full, 50) == Extension(400, 200, ("static",), 50, ("random",))
