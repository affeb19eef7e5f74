"""The step budget: a small cell trains until it learns, and a cell stopped by the ceiling is flagged."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from trainers import TrainConfig, fit_and_evaluate
from trainers._budget import EVAL_EVERY_MAX, EVAL_EVERY_MIN, EarlyStopping, eval_interval
from trainers._corpus import LabelledItems
from trainers._features import TokenFeatures

DIM = 8
MODEL = {"batch_size": 16, "lr": 5e-3, "hidden": 16, "projection": 16}


class _Items:
    """The corpus shape trainers read (``trainers._corpus.LabelledItems``), built locally."""

    def __init__(self, task: str, tokens: list[list[str]], labels: list) -> None:
        self.task, self.tokens, self.labels = task, tokens, labels
        self.source = "<planted>"
        self.line_numbers = list(range(1, len(tokens) + 1))

    def __len__(self) -> int:
        return len(self.tokens)

    def label_counts(self) -> dict:
        flat = [t for tags in self.labels for t in tags] if self.task == "ner" else self.labels
        return {label: flat.count(label) for label in set(flat)}


def _planted(n: int, seed: int) -> tuple[TokenFeatures, LabelledItems]:
    """Two classes by the sign of feature 0's sentence mean, scaled down so it takes many steps to find."""
    rng = np.random.default_rng(seed)
    arrays, tokens, labels = [], [], []
    for _ in range(n):
        length = int(rng.integers(3, 9))
        x = rng.normal(size=(length, DIM)).astype(np.float32)
        labels.append("pos" if x[:, 0].mean() > 0 else "neg")
        arrays.append(0.05 * x)
        tokens.append(["tok"] * length)
    return TokenFeatures.from_list(arrays), _Items("classify", tokens, labels)


@pytest.fixture(scope="module")
def small_cell() -> list[tuple[TokenFeatures, LabelledItems]]:
    return [_planted(32, 0), _planted(200, 1), _planted(200, 2)]


def _fit(splits, **config: object):
    (tf, tc), (df, dc), (ef, ec) = splits
    return fit_and_evaluate(tf, tc, df, dc, ef, ec, TrainConfig(**{**MODEL, **config}))


def test_a_small_cell_trains_until_it_learns(small_cell) -> None:
    # The old budget: 10 epochs of 32 items at batch 16 = 20 steps; it stops before the model learns.
    old = _fit(small_cell, max_steps=20, min_steps=0, eval_every=2, patience=2)
    assert old.score < 0.7, old.scores
    new = _fit(small_cell)  # the default budget: a floor of steps, then patience on dev
    assert new.score > 0.8, new.scores
    assert new.steps >= TrainConfig().min_steps and new.stopped_by == "patience" and not new.under_trained
    assert new.best_step in new.dev_steps and new.dev_score == max(new.dev_history)
    assert new.eval_every == EVAL_EVERY_MIN  # 2 steps an epoch, clamped up to the minimum cadence


def test_the_ceiling_while_dev_improves_is_flagged(small_cell) -> None:
    # Early on, accuracy is flat while the dev loss still falls: each evaluation counts as an improvement.
    result = _fit(small_cell, lr=3e-3, dropout=0.0, max_steps=60, min_steps=0, eval_every=10, patience=2)
    assert result.stopped_by == "ceiling" and result.under_trained and result.steps == 60
    assert result.dev_steps == [10, 20, 30, 40, 50, 60]
    assert result.to_dict()["under_trained"] == 1
    stopped = _fit(small_cell, max_steps=2000, min_steps=0, eval_every=10, patience=2)
    assert stopped.stopped_by == "patience" and stopped.steps < 2000 and not stopped.under_trained


def test_the_last_step_is_always_evaluated(small_cell) -> None:
    result = _fit(small_cell, max_steps=25, min_steps=0, eval_every=10, patience=5)
    assert result.dev_steps == [10, 20, 25] and result.steps == 25


def test_patience_waits_for_the_floor() -> None:
    stopping = EarlyStopping(patience=2, min_steps=100)
    assert stopping.observe(10, 0.5, 1.0)
    for step in (20, 30, 40):
        assert not stopping.observe(step, 0.4, 1.0)
    assert not stopping.patience_ran_out(40)  # three evaluations without improvement, but under the floor
    assert stopping.patience_ran_out(100)
    assert stopping.observe(110, 0.5, 0.9)  # same score, lower loss: an improvement (ties -> loss)
    assert stopping.best_step == 110 and not stopping.patience_ran_out(110)


@pytest.mark.parametrize(
    ("items", "expected"), [(10, EVAL_EVERY_MIN), (64 * 50, 50), (64 * 1000, EVAL_EVERY_MAX)]
)
def test_eval_interval_is_one_epoch_within_bounds(items: int, expected: int) -> None:
    assert eval_interval(items, 64) == expected
    assert eval_interval(items, 64, eval_every=7) == 7


def test_a_plateau_anneals_the_rate_before_it_stops() -> None:
    stopping = EarlyStopping(patience=2, min_steps=0, anneals=2)
    assert stopping.observe(10, 0.5, 1.0)
    moves = []
    for step in range(20, 90, 10):
        stopping.observe(step, 0.4, 1.0)
        moves.append(stopping.next_move(step))
    # two evaluations without improvement per rate: halve, halve, then stop on the third plateau
    assert moves == ["train", "anneal", "train", "anneal", "train", "stop", "stop"]
    assert stopping.annealed == 2


def test_an_improvement_after_an_anneal_restarts_patience() -> None:
    stopping = EarlyStopping(patience=1, min_steps=0, anneals=1)
    stopping.observe(10, 0.5, 1.0)
    stopping.observe(20, 0.4, 1.0)
    assert stopping.next_move(20) == "anneal"
    assert stopping.observe(30, 0.6, 0.8) and stopping.next_move(30) == "train"
    stopping.observe(40, 0.6, 0.9)
    assert stopping.next_move(40) == "stop" and stopping.best_step == 30


def test_annealing_lowers_the_rate_and_trains_longer(small_cell, monkeypatch) -> None:
    rates: list[float] = []
    real_step = torch.optim.Adam.step

    def spy(self, *args, **kwargs):
        rates.append(self.param_groups[0]["lr"])
        return real_step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", spy)
    plain = _fit(small_cell, max_steps=3000, min_steps=0, eval_every=10, patience=2, anneals=0)
    assert set(rates) == {MODEL["lr"]}
    rates.clear()
    annealed = _fit(small_cell, max_steps=3000, min_steps=0, eval_every=10, patience=2, anneals=2)
    assert sorted(set(rates), reverse=True) == [MODEL["lr"], MODEL["lr"] / 2, MODEL["lr"] / 4]
    assert annealed.steps > plain.steps and annealed.stopped_by == "patience"
