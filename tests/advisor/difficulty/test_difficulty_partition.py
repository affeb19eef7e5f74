"""The difficult/easy partition: ties never split, degenerate metrics refused, sizes reported."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from advisor.difficulty import PartitionRule, partition
from advisor.errors import ConfigError

SMALL = PartitionRule(min_items=1, min_share=0.0)


def test_cut_between_distinct_values_closest_to_target() -> None:
    values = pd.Series([1] * 6 + [2] * 4 + [3] * 2, name="span")
    split = partition(values, SMALL)
    assert split.splittable and split.threshold == 2
    assert split.n_difficult == 6 and split.n_easy == 6
    assert split.difficult.tolist() == [False] * 6 + [True] * 6
    assert "span" in split.description and "6 difficult" in split.description


def test_ties_are_never_split_across_slices() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        values = pd.Series(rng.integers(0, 4, size=40).astype(float))
        split = partition(values, SMALL)
        if not split.splittable:
            continue
        for value in values.unique():
            members = split.difficult[values == value]
            assert members.all() or not members.any()
        assert (split.difficult ^ split.easy).all()


def test_degenerate_distributions_cannot_be_split() -> None:
    same = partition(pd.Series([1.0] * 50, name="ambiguity"))
    assert not same.splittable and same.threshold is None
    assert same.n_difficult == same.n_easy == 0
    assert "cannot split" in same.description and "all 50 values equal 1" in same.description
    dominated = partition(pd.Series([1.0] * 97 + [2.0] * 3), PartitionRule(min_items=5))
    assert not dominated.splittable and "97 %" in dominated.description


def test_heavy_tie_goes_wholly_to_one_side() -> None:
    # 70 % tie at 1: the cut may not pass through them; the best legal cut is at 2 (30 % difficult).
    split = partition(pd.Series([1.0] * 70 + [2.0] * 20 + [3.0] * 10), PartitionRule(min_items=5))
    assert split.threshold == 2 and split.n_difficult == 30 and split.n_easy == 70


def test_inf_is_a_value_and_nan_is_in_neither_slice() -> None:
    values = pd.Series([0.5, 1.0, np.inf, np.inf, np.nan, 0.25])
    # 2 of 5 (>= inf) and 3 of 5 (>= 1) are equally far from 1/2: the higher threshold wins the tie.
    assert partition(values, SMALL).threshold == np.inf
    split = partition(values, PartitionRule(target_share=0.6, min_items=1, min_share=0.0))
    assert split.threshold == 1.0
    assert split.difficult.tolist() == [False, True, True, True, False, False]
    assert split.easy.tolist() == [True, False, False, False, False, True]
    assert split.n_missing == 1 and "1 in neither slice (no value)" in split.description


def test_fixed_threshold_and_its_size_check() -> None:
    values = np.arange(20, dtype=float)
    split = partition(values, PartitionRule(threshold=15, min_items=2))
    assert split.n_difficult == 5 and split.n_easy == 15
    refused = partition(values, PartitionRule(threshold=19, min_items=2))
    assert not refused.splittable and "needs at least 2" in refused.description


def test_target_share_moves_the_cut() -> None:
    values = np.arange(100, dtype=float)
    assert partition(values, PartitionRule(target_share=0.2)).n_difficult == 20
    assert partition(values).n_difficult == 50


@pytest.mark.parametrize("bad", [{"target_share": 1.0}, {"min_share": 0.6}, {"min_items": 0}])
def test_rule_validation(bad: dict) -> None:
    with pytest.raises(ConfigError):
        PartitionRule(**bad)
