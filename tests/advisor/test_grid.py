"""The grid: powers-of-two sizes, nested subsets for one seed, stratified prefixes for classification."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.errors import ConfigError
from advisor.grid import Cell, cell_label, plan_grid, profiles, subset_indices, subset_order, tuning_seeds


def corpus(task: str, n: int) -> Corpus:
    if task == "ner":
        return Corpus("ner", [["w", str(i)] for i in range(n)], [["B-X", "O"]] * n)
    labels = ["a"] * (n // 2) + ["b"] * (n // 4) + ["c"] * (n - n // 2 - n // 4)
    return Corpus("classify", [["w", str(i)] for i in range(n)], labels)


def test_default_sizes_are_powers_of_two_of_the_full_size() -> None:
    plan = plan_grid(1000, ["random", "static"], profiles.get("default"))
    assert plan.sizes == [62, 125, 250, 500, 1000]
    assert len(plan.cells) == 5 * 3 * 2
    assert [c.size for c in plan.cells] == sorted(c.size for c in plan.cells)  # sizes ascending


def test_explicit_sizes_fractions_and_errors() -> None:
    quick = profiles.get("quick")
    assert plan_grid(100, ["random"], quick, sizes=[50, 10, 50]).sizes == [10, 50]
    assert plan_grid(100, ["random"], quick, fractions=[0.5, 1.0]).sizes == [50, 100]
    with pytest.raises(ConfigError, match=r"outside 1\.\.100"):
        plan_grid(100, ["random"], quick, sizes=[200])
    with pytest.raises(ConfigError, match="not both"):
        plan_grid(100, ["random"], quick, sizes=[10], fractions=[0.5])
    with pytest.raises(ConfigError, match="unknown profile"):
        profiles.get("fast")


@pytest.mark.parametrize("task", ["ner", "classify"])
def test_subsets_are_nested_for_a_seed(task: str) -> None:
    data = corpus(task, 400)
    order = subset_order(data, seed=3)
    previous: set[int] = set()
    for size in (25, 50, 100, 200, 400):
        current = set(subset_indices(order, size).tolist())
        assert previous <= current and len(current) == size
        previous = current
    assert not np.array_equal(subset_order(data, 0), subset_order(data, 1))
    assert np.array_equal(subset_order(data, 2), subset_order(data, 2))


def test_classification_prefixes_are_stratified() -> None:
    data = corpus("classify", 400)
    order = subset_order(data, seed=0)
    counts = Counter(data.labels[i] for i in subset_indices(order, 40))
    assert counts == Counter({"a": 20, "b": 10, "c": 10})


def test_app_default_profile_can_decide_and_states_its_duration(tmp_path) -> None:
    from advisor.grid import DEFAULT_APP_PROFILE, estimate_seconds
    from advisor.pipeline import expected_duration_text
    from advisor.settings import RunSettings

    profile = profiles.get(DEFAULT_APP_PROFILE)
    assert profile.seeds >= 3 and profile.n_sizes >= 4
    small = plan_grid(600, ["static", "contextual"], profile)
    large = plan_grid(6000, ["static", "contextual"], profile)
    assert estimate_seconds(large, profile, 1000) > estimate_seconds(small, profile, 1000) > 0
    assert estimate_seconds(large, profile, 1000, max_steps=100) < estimate_seconds(large, profile, 1000)
    assert estimate_seconds(large, profile, 1000, tune_lr=False) < estimate_seconds(large, profile, 1000)
    one_width = estimate_seconds(large, profile, 1000, projection=64)  # --projection: the rate alone is tuned
    assert len(profile.projections) > 1 and one_width < estimate_seconds(large, profile, 1000)
    train = tmp_path / "train.csv"
    train.write_text(
        "text,label\n" + "".join(f"item {i} word,{'ab'[i % 2]}\n" for i in range(1000)), encoding="utf-8"
    )
    settings = RunSettings(
        data=str(train), task="classify", cache_dir=str(tmp_path / "cache")
    )  # no speed recorded
    text = expected_duration_text(settings, calibrate=False, time_training=False)
    assert (
        text.startswith("Expected duration: a rough first guess of about ")
        and "45 cells (3 embeddings × 5 sizes × 3 seeds)" in text
    )
    assert "based on an encoder speed constant for 2 CPU cores" in text  # nothing measured: it says so


def test_expected_steps_lie_between_the_floor_and_the_ceiling() -> None:
    from advisor.grid import expected_steps

    profile = profiles.get("default")
    window = profile.patience * 20  # a small cell is scored every 20 steps
    assert expected_steps(10, profile) == profile.min_steps + profile.anneals * window  # floor, 2 anneals
    epoch = -(-7020 // 64)  # 110 steps: scored every 100
    assert expected_steps(7020, profile) == 15 * epoch + (1 + profile.anneals) * profile.patience * 100
    assert expected_steps(10**7, profile) == profile.max_steps
    assert expected_steps(10**7, profile, max_steps=50) == 50  # an explicit ceiling caps the floor too


def test_learning_rates_are_tuned_on_the_grids_first_seeds() -> None:
    profile = profiles.get("default")
    three = plan_grid(1000, ["static"], profile)
    assert tuning_seeds(three, profile) == [0, 1] == three.seeds[: profile.lr_seeds]
    one = plan_grid(1000, ["static"], profile, seeds=1)
    assert tuning_seeds(one, profile) == [0]  # never a seed whose subsets and random tables were not made


def test_a_cells_key_leaves_its_rate_trial_out_and_has_one_written_form() -> None:
    trial = Cell("static", 40, 1, lr=0.01)
    assert trial.key == Cell("static", 40, 1).key == ("static", 40, 1)
    assert cell_label(trial.key) == "static/40/1"


def test_evidence_first_puts_one_seed_of_every_family_at_the_largest_size_first() -> None:
    from advisor.grid import evidence_first, evidence_rounds

    grid = plan_grid(
        1000, ["random", "static", "contextual"], profiles.get("default"), sizes=[250, 500, 1000], seeds=3
    )
    ordered = evidence_first(grid.cells)
    assert sorted(ordered, key=str) == sorted(grid.cells, key=str)  # the same cells, reordered
    assert [(c.embedding, c.size, c.seed) for c in ordered[:3]] == [
        ("random", 1000, 0), ("static", 1000, 0), ("contextual", 1000, 0)
    ]  # fmt: skip
    assert [c.seed for c in ordered[3:9]] == [1, 1, 1, 2, 2, 2]
    assert [c.size for c in ordered[9:]] == [500] * 9 + [250] * 9
    rounds = evidence_rounds(grid.cells)
    assert len(rounds) == 9 and all(len(r) == 3 for r in rounds)
    assert [(r[0].size, r[0].seed) for r in rounds[:4]] == [(1000, 0), (1000, 1), (1000, 2), (500, 0)]


def test_trials_are_priced_at_their_width_and_grid_cells_at_the_narrowest() -> None:
    """A 256-wide step costs about twice a 64-wide one: the estimate prices each trial at its width; a
    grid cell's width is chosen during the run, so it is priced at the narrowest timed."""
    from advisor.grid import StepCost, Throughput, estimate_seconds, expected_steps, tuning_seeds

    profile = profiles.get("default")
    plan = plan_grid(3000, ["static"], profile)
    narrow, wide = StepCost(0.01, 0.0), StepCost(0.02, 0.0)
    speed = Throughput(step_costs={("static", 64): narrow, ("static", 256): wide}, n_dev=0)
    middle = plan.sizes[(len(plan.sizes) - 1) // 2]
    per_width = len(profile.lr_grid) * len(tuning_seeds(plan, profile)) * expected_steps(middle, profile)
    grid = sum(expected_steps(c.size, profile) for c in plan.cells) * 0.01
    expected = (grid + per_width * (0.01 + 0.02)) / 2 + 30.0  # 2 workers, the fixed 30 s
    assert profile.projections == (64, 256)
    assert estimate_seconds(plan, profile, 100, throughput=speed) == pytest.approx(expected)
    assert speed.step_seconds("static", 100) == pytest.approx(0.01)
    other = Throughput(step_costs={("random", 64): narrow, ("random", 256): wide})  # static not timed
    assert other.step_seconds("static", 100, 256) == pytest.approx(0.02)
