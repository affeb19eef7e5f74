"""Gap analysis: exact schema, a planted effect recovered, bootstrap CIs that behave, NER slice scoring."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from advisor.data._corpus import Corpus
from advisor.difficulty import GAP_COLUMNS, gap_analysis, item_correctness, item_metrics, plot_gaps
from advisor.errors import ConfigError, InputError

N_HALF = 40


def _planted(n_half: int = N_HALF) -> tuple[Corpus, Corpus, dict]:
    """Easy sentences use training words only; difficult ones are half new words.

    contextual is always right; static is right on easy items and on every other difficult one;
    random is right on every other easy item and every fourth difficult one.
    """
    train = Corpus("classify", [[f"w{i}", f"w{i + 1}"] for i in range(50)], ["a", "b"] * 25)
    easy = [[f"w{i % 50}", f"w{(i + 3) % 50}"] for i in range(n_half)]
    hard = [[f"w{i % 50}", f"new{i}"] for i in range(n_half)]
    labels = ["a", "b"] * n_half
    evaluation = Corpus("classify", easy + hard, labels)
    wrong = {"a": "b", "b": "a"}

    def predict(easy_right, hard_right) -> list[str]:
        return [labels[i] if (easy_right(i) if i < n_half else hard_right(i - n_half)) else wrong[labels[i]]
                for i in range(2 * n_half)]  # fmt: skip

    always = lambda i: True  # noqa: E731
    predictions = {}
    for size in (10, 20):
        for seed in (0, 1):
            predictions[("contextual", size, seed)] = predict(always, always)
            predictions[("static", size, seed)] = predict(always, lambda i: i % 2 == 0)
    predictions[("random", 20, 0)] = predict(lambda i: i % 2 == 0, lambda i: i % 4 == 0)
    return train, evaluation, predictions


def _row(gaps: pd.DataFrame, metric: str, size: int, pair: str, slice_name: str) -> pd.Series:
    rows = gaps[
        (gaps.metric == metric) & (gaps["size"] == size) & (gaps.pair == pair) & (gaps.slice == slice_name)
    ]
    assert len(rows) == 1
    return rows.iloc[0]


def test_schema_and_planted_effect() -> None:
    train, evaluation, predictions = _planted()
    table = item_metrics(train, evaluation, names=["classify_unseen"])
    gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=400, seed=3, table=table)
    assert list(gaps.columns) == GAP_COLUMNS
    assert set(gaps.slice) == {"difficult", "easy", "difficult-minus-easy"}
    # random only at size 20: one pair at size 10, three at size 20
    assert set(gaps[gaps["size"] == 10].pair) == {"contextual-static"}
    assert set(gaps[gaps["size"] == 20].pair) == {"contextual-static", "contextual-random", "static-random"}
    assert len(gaps) == 3 * (1 + 3)

    hard = _row(gaps, "classify_unseen", 20, "contextual-static", "difficult")
    assert (hard.n_items, hard.score_a, hard.score_b, hard.gap) == (N_HALF, 1.0, 0.5, 0.5)
    assert hard.n_seeds == 2
    easy = _row(gaps, "classify_unseen", 20, "contextual-static", "easy")
    assert (easy.n_items, easy.gap, easy.gap_lo, easy.gap_hi) == (N_HALF, 0.0, 0.0, 0.0)
    difference = _row(gaps, "classify_unseen", 20, "contextual-static", "difficult-minus-easy")
    assert np.isnan(difference.score_a) and np.isnan(difference.score_b)
    assert difference.gap == pytest.approx(0.5) and difference.gap_lo > 0.2
    assert _row(
        gaps, "classify_unseen", 20, "contextual-random", "difficult-minus-easy"
    ).gap == pytest.approx(0.25)
    static_random = _row(gaps, "classify_unseen", 20, "static-random", "difficult-minus-easy")
    assert static_random.gap == pytest.approx(-0.25) and static_random.n_seeds == 1
    finite = gaps.dropna(subset=["gap_lo"])
    assert ((finite.gap_lo <= finite.gap + 1e-12) & (finite.gap <= finite.gap_hi + 1e-12)).all()
    assert gaps[["score_a", "score_b"]].stack().dropna().between(0, 1).all()
    assert "classify_unseen" in gaps.attrs["partitions"]


def test_seeds_are_averaged() -> None:
    train, evaluation, predictions = _planted()
    labels = list(evaluation.labels)
    flipped = [("b" if y == "a" else "a") for y in labels]
    predictions[("static", 20, 1)] = flipped  # seed 1 gets everything wrong
    table = item_metrics(train, evaluation, names=["classify_unseen"])
    gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=50, table=table)
    assert _row(gaps, "classify_unseen", 20, "contextual-static", "easy").score_b == pytest.approx(0.5)
    assert _row(gaps, "classify_unseen", 20, "contextual-static", "difficult").score_b == pytest.approx(0.25)


def test_interval_narrows_with_more_items_and_is_reproducible() -> None:
    widths = []
    for n_half in (40, 320):
        train, evaluation, predictions = _planted(n_half)
        table = item_metrics(train, evaluation, names=["classify_unseen"])
        gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=500, seed=0, table=table)
        row = _row(gaps, "classify_unseen", 20, "contextual-random", "difficult-minus-easy")
        assert row.gap_lo <= row.gap <= row.gap_hi
        widths.append(row.gap_hi - row.gap_lo)
        again = gap_analysis("classify", train, evaluation, predictions, n_boot=500, seed=0, table=table)
        pd.testing.assert_frame_equal(gaps, again)
    assert widths[1] < 0.6 * widths[0]


def test_unsplittable_metric_keeps_rows_with_nan_and_a_reason() -> None:
    train, evaluation, predictions = _planted()
    table = item_metrics(train, evaluation, names=["classify_unseen"])
    table["classify_unseen"] = 0.0
    gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=20, table=table)
    assert (gaps.n_items == 0).all() and gaps.gap.isna().all()
    assert "cannot split" in gaps.attrs["partitions"]["classify_unseen"]


def test_ner_entity_slices_are_scored_by_exact_recognition() -> None:
    train = Corpus("ner", [["Paris", "is", "nice"]], [["B-loc", "O", "O"]])
    tokens = [["Paris", "and", "New", "York"], ["Big", "Apple", "Inc", "rocks"], ["Paris"]]
    gold = [["B-loc", "O", "B-loc", "I-loc"], ["B-org", "I-org", "I-org", "O"], ["B-loc"]]
    evaluation = Corpus("ner", tokens, gold)
    contextual = [["B-loc", "O", "B-loc", "I-loc"], ["B-org", "I-org", "I-org", "O"], ["B-loc"]]
    static = [["B-loc", "O", "B-loc", "O"], ["B-org", "I-org", "I-org", "I-org"], ["B-loc"]]
    predictions = {("contextual", 5, 0): contextual, ("static", 5, 0): static}
    table = item_metrics(train, evaluation)
    correct = item_correctness(table, evaluation, predictions)
    # entities: Paris, New York, Big Apple Inc, Paris; static misses New York (too short), Big Apple Inc (too long)
    assert correct["static/5/0"].tolist() == [True, False, False, True]
    assert correct["contextual/5/0"].all()
    from advisor.difficulty import PartitionRule

    gaps = gap_analysis("ner", train, evaluation, predictions, n_boot=100, table=table,
                        rule=PartitionRule(min_items=1))  # fmt: skip
    # complexity: spans 1,2,3,1 -> difficult = span >= 2 (2 entities), static recall 0 there, 1 on easy
    hard = _row(gaps, "ner_complexity", 5, "contextual-static", "difficult")
    assert (hard.n_items, hard.score_a, hard.score_b) == (2, 1.0, 0.0)
    assert _row(gaps, "ner_complexity", 5, "contextual-static", "easy").score_b == 1.0
    # token level: tag accuracy
    token_table = item_metrics(train, evaluation, level="token")
    token_correct = item_correctness(token_table, evaluation, predictions)["static/5/0"]
    assert token_correct.sum() == 9 - 2 + 0  # two wrong tags out of nine


def test_bad_predictions_are_user_errors() -> None:
    train, evaluation, predictions = _planted()
    table = item_metrics(train, evaluation, names=["classify_unseen"])
    with pytest.raises(InputError):
        gap_analysis("classify", train, evaluation, {("static", 1, 0): ["a"]}, table=table)
    with pytest.raises(ConfigError):
        gap_analysis("classify", train, evaluation, {("bert", 1, 0): list(evaluation.labels)}, table=table)
    with pytest.raises(ConfigError):
        gap_analysis("ner", train, evaluation, predictions, table=table)
    ner = Corpus("ner", [["a", "b"]], [["O", "O"]])
    with pytest.raises(InputError, match="1 tags for 2 tokens"):
        gap_analysis("ner", ner, ner, {("static", 1, 0): [["O"]]})


def test_bootstrap_is_fast() -> None:
    """1000 replicates x 48 prediction sets x 3 metrics over 1000 sentences: a few seconds at most."""
    rng = np.random.default_rng(0)
    train = Corpus("classify", [["a", "b"], ["c"]], ["x", "y"])
    n = 1000
    evaluation = Corpus("classify", [["a"]] * n, list(rng.choice(["x", "y"], size=n)))
    table = item_metrics(train, evaluation, names=["classify_unseen"])
    for name in ("m1", "m2", "m3"):
        table[name] = rng.normal(size=n)
    table.attrs["metrics"] = ["m1", "m2", "m3"]
    predictions = {
        (embedding, size, seed): list(rng.choice(["x", "y"], size=n))
        for embedding in ("random", "static", "contextual")
        for size in (10, 20, 40, 80)
        for seed in range(4)
    }
    started = time.perf_counter()
    gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=1000, table=table)
    elapsed = time.perf_counter() - started
    assert len(gaps) == 3 * 4 * 3 * 3
    assert elapsed < 8.0, f"bootstrap took {elapsed:.1f} s"


def test_plot_gaps_draws_one_panel_per_metric() -> None:
    train, evaluation, predictions = _planted()
    table = item_metrics(train, evaluation, names=["classify_ambiguity", "classify_unseen"])
    gaps = gap_analysis("classify", train, evaluation, predictions, n_boot=50, table=table)
    figure = plot_gaps(gaps)
    assert isinstance(figure, Figure) and len(figure.axes) == 2
    assert figure.axes[1].get_title() == "classify_unseen"
    assert len(figure.axes[1].patches) == 3 * 3  # three pairs x three slices at the largest size
    assert len(plot_gaps(gaps, all_sizes=True).axes) == 2
    with pytest.raises(InputError):
        plot_gaps(gaps.drop(columns=["gap_lo"]))
