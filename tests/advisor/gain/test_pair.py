"""The gain model on sentence pairs: features over both texts equal the difficulty metrics, a planted
low-overlap advantage is learned and predicted, and ``advisor predict-gain`` reads one pair per line."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from advisor.data._corpus import Corpus
from advisor.difficulty import item_metrics
from advisor.errors import AdvisorError, InputError
from advisor.gain import (
    GainModel,
    GainResult,
    TrainingStatistics,
    default_features,
    fit_gain_model,
    gain_features,
    gain_summary,
    predict_gain,
    read_unlabelled,
)
from advisor.tracking import AnalysisTracker, log_gain_model
from tests.helpers import copy_store

WORDS = [f"w{i}" for i in range(60)]
NEW = [f"u{i}" for i in range(100)]
OTHER = {"same": "different", "different": "same"}


def _pair(rng: random.Random, high: bool) -> tuple[list[str], list[str]]:
    """Six words, then five: four of them from the first text (overlap 0.8) or none (overlap 0)."""
    a = rng.sample(WORDS, 6)
    rest = [w for w in WORDS if w not in a]
    return a, (rng.sample(a, 4) + rng.sample(rest, 1) if high else rng.sample(rest, 5))


def _corpus(n: int, rng: random.Random, unseen: bool = False) -> tuple[Corpus, list[bool]]:
    tokens, splits, labels, high = [], [], [], []
    for _ in range(n):
        shared = rng.random() < 0.5
        a, b = _pair(rng, shared)
        if unseen:  # one never-seen word in the second text, on every pair alike
            b[-1] = rng.choice(NEW)
        tokens.append(a + b)
        splits.append(len(a))
        labels.append(rng.choice(("same", "different")))
        high.append(shared)
    return Corpus("pair", tokens, labels, pair_split=splits), high


def _predictions(
    evaluation: Corpus, high: list[bool], rng: random.Random
) -> dict[tuple[str, int, int], list[Any]]:
    """Static is right 30 % of the time on pairs sharing no word, 90 % elsewhere; contextual 90 % everywhere."""
    predictions: dict[tuple[str, int, int], list[Any]] = {}
    for seed in range(3):
        for family in ("contextual", "static"):
            predictions[(family, 100, seed)] = [
                gold if rng.random() < (0.9 if family == "contextual" or shared else 0.3) else OTHER[gold]
                for gold, shared in zip(evaluation.labels, high, strict=True)
            ]
    return predictions


@pytest.fixture(scope="module")
def planted_pairs() -> tuple[Corpus, Corpus, dict]:
    rng = random.Random(7)
    train, _ = _corpus(200, rng)
    evaluation, high = _corpus(300, rng, unseen=True)
    return train, evaluation, _predictions(evaluation, high, rng)


@pytest.fixture(scope="module")
def planted_pair_result(planted_pairs) -> GainResult:
    train, evaluation, predictions = planted_pairs
    return fit_gain_model(
        "pair", train, evaluation, predictions, features=default_features("pair", parse=False)
    )


def _traffic(high: bool, n: int = 40) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(11 if high else 12)
    return [_pair(rng, high) for _ in range(n)]


def test_pair_features_equal_the_difficulty_metrics(planted_pairs) -> None:
    train, evaluation, _ = planted_pairs
    names = ["pair_ambiguity", "pair_unseen", "pair_overlap"]
    expected = item_metrics(train, evaluation, names=names)
    table = gain_features(
        TrainingStatistics.from_corpus(train), evaluation.tokens, names, pair_split=evaluation.pair_split
    )
    assert len(table) == len(evaluation)
    for name in names:
        np.testing.assert_allclose(table[name], expected[name], rtol=1e-12)
    assert set(table["pair_overlap"]) == {0.0, 0.8}
    first, second = evaluation.sides(0)
    assert table["text"][0] == " ".join(first) + " ||| " + " ".join(second)
    assert "pair_complexity" in default_features("pair") and "pair_complexity" not in default_features(
        "pair", False
    )


def test_pair_features_by_hand_and_a_pair_split_is_required() -> None:
    train = Corpus("pair", [["a", "b", "c"]], ["same"], pair_split=[1])
    statistics = TrainingStatistics.from_corpus(train)
    names = ["pair_overlap", "length_ratio", "n_tokens", "pair_unseen", "min_log_count"]
    table = gain_features(statistics, [["A", "b", "x", "a", "c"]], names, pair_split=[3])
    # sides {a, b, x} and {a, c}: one shared word of the shorter text's two
    assert table.loc[0, names].tolist() == pytest.approx([0.5, 2 / 3, 5.0, 2 / 5, 0.0])
    with pytest.raises(ValueError, match="pair_split"):
        gain_features(statistics, [["a", "b"]], names)
    restored = TrainingStatistics.from_dict(json.loads(json.dumps(statistics.to_dict())))
    assert restored.task == "pair" and restored.token_counts == statistics.token_counts


def test_planted_low_overlap_advantage_is_learned_and_predicted(planted_pair_result) -> None:
    result = planted_pair_result
    assert result.task == "pair" and result.unit == "pair" and result.baseline == "static"
    assert result.learned_something and result.scores["auc"].lo > 0.5
    gain_rank = result.importance[result.importance["model"] == "gain"]
    assert gain_rank.iloc[0]["feature"] == "pair_overlap"
    model = GainModel.from_result(result)
    low, high = _traffic(False), _traffic(True)
    apart = predict_gain(model, [a + b for a, b in low], n_boot=200, pair_split=[len(a) for a, _ in low])
    alike = predict_gain(model, [a + b for a, b in high], n_boot=200, pair_split=[len(a) for a, _ in high])
    assert apart.n_units == 40 and apart.expected_gain > alike.expected_gain + 0.3


def test_the_gain_model_of_pairs_speaks_of_pairs(planted_pair_result) -> None:
    """Insights, the fit scheme and the forecast count pairs (the task spec's gain unit), never sentences."""
    result = planted_pair_result
    texts = [*result.insights, result.fit_scheme, gain_summary(result)["fit_scheme"]]
    assert not [t for t in texts if "sentence" in t], texts
    assert "% of pairs (wrong where" in result.insights[0] and "grouped by pair" in result.fit_scheme
    assert any("(threshold chosen on the other half of the test pairs)" in t for t in result.insights)
    assert "per-pair contribution" in result.insights[-1]
    model = GainModel.from_result(result)
    model.meta["unit"] = "sentence"  # as a pair model saved before pairs had a unit of their own says
    low = _traffic(False)
    lines = predict_gain(
        model, [a + b for a, b in low], n_boot=50, pair_split=[len(a) for a, _ in low]
    ).summary_lines()
    assert lines[0].startswith("40 pairs scored") and "of pairs (95% interval" in lines[1]
    assert "(bootstrap over pairs)" in lines[3] and not [t for t in lines if "sentence" in t or "texts" in t]


def test_too_few_pairs_are_counted_as_pairs(planted_pairs) -> None:
    train, evaluation, predictions = planted_pairs
    few = evaluation.subset(range(10))
    subset = {key: values[:10] for key, values in predictions.items()}
    with pytest.raises(AdvisorError) as caught:
        fit_gain_model("pair", train, few, subset, features=default_features("pair", parse=False))
    assert caught.value.code == "E815" and "only 10 evaluation pairs" in caught.value.render()


def test_pair_lines_split_at_the_first_tab(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("Is it good?\tIt is good.\n\nWho won\tthe home team\twon\n", encoding="utf-8")
    text = read_unlabelled(path, "pair")
    assert text.format == "lines" and text.line_numbers == [1, 3]
    assert text.tokens == [
        ["Is", "it", "good", "?", "It", "is", "good", "."],
        ["Who", "won", "the", "home", "team", "won"],
    ]
    assert text.pair_split == [4, 2]


@pytest.mark.parametrize(
    ("content", "format", "message"),
    [
        ("one text\tand another\nno tab here\n", "auto", r"pairs.txt:2:.*no tab between the two texts"),
        ("one text\tand another\n  \tsecond\n", "auto", r"pairs.txt:2:.*first text of the pair has no word"),
        ("one text\t \n", "lines", r"pairs.txt:1:.*second text of the pair has no word"),
        ("a\tb\n", "conll", "conll cannot hold sentence pairs"),
    ],
)
def test_bad_pair_text_names_file_and_line(tmp_path: Path, content: str, format: str, message: str) -> None:
    path = tmp_path / "pairs.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(AdvisorError) as caught:
        read_unlabelled(path, "pair", format=format)
    assert re.search(message, caught.value.render())
    assert isinstance(caught.value, InputError) == (format != "conll")


def _gain_points(output: str) -> float:
    return float(re.search(r"Expected gain of contextual over static: ([+-][\d.]+) points", output).group(1))


def test_predict_gain_cli_reads_pairs(
    advisor_cli, planted_pair_result, mlflow_template: Path, tmp_path: Path
) -> None:
    uri = copy_store(mlflow_template, tmp_path / "store" / "mlflow.db")
    tracker = AnalysisTracker(uri, "gain-pair-test")
    tracker.open("key", "planted-pair", {"task": "pair"}, {"advisor.task": "pair"})
    log_gain_model(tracker, planted_pair_result)
    tracker.close("FINISHED")
    points = {}
    for high in (False, True):
        path = tmp_path / f"traffic-{high}.tsv"
        path.write_text(
            "".join(f"{' '.join(a)}\t{' '.join(b)}\n" for a, b in _traffic(high)), encoding="utf-8"
        )
        code, out, err = advisor_cli("predict-gain", tracker.parent_id, str(path), "--tracking-uri", uri)
        assert code == 0, err
        assert "(pair, read lines format)" in out and "40 pairs scored" in out and "sentence" not in out
        points[high] = _gain_points(out)
    assert points[False] > points[True] + 30
    broken = tmp_path / "broken.txt"
    broken.write_text("a\tb\nc d\n", encoding="utf-8")
    code, out, err = advisor_cli("predict-gain", tracker.parent_id, str(broken), "--tracking-uri", uri)
    assert code == 2 and f"{broken}:2:" in err and "Traceback" not in out + err
