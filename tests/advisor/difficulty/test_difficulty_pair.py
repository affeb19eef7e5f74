"""Sentence-pair difficulty: the classification metrics over both texts, lexical overlap (lower is
harder), each hand-checked on a small pair corpus, and the slices split overlap the right way round."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from spacy.tokens import Doc
from spacy.vocab import Vocab

from advisor.data._corpus import Corpus
from advisor.difficulty import (
    MetricContext,
    PartitionRule,
    gap_analysis,
    item_metrics,
    lexical_overlap,
    metric_label,
    pair_complexity,
    partition,
    pooled_arc_length,
    slice_overlap,
    summarize_metrics,
)
from advisor.registry import metrics


def _pair_corpus(pairs: list[tuple[list[str], list[str], str]]) -> Corpus:
    return Corpus(
        "pair",
        [a + b for a, b, _ in pairs],
        [label for _, _, label in pairs],
        pair_split=[len(a) for a, _, _ in pairs],
    )


# Training counts: good 2, film 3, great 1, bad 1, plot 1; labels no / yes, prior (1/2, 1/2).
TRAIN = _pair_corpus(
    [(["good", "film"], ["great", "film"], "yes"), (["bad", "film"], ["good", "plot"], "no")]
)
EVALUATION = _pair_corpus(
    [
        (["Good", "film", "."], ["good", "film", "!"], "yes"),  # same words up to case and punctuation
        (["great", "plot", "twist"], ["film", "acting"], "no"),  # nothing shared
        (["zzz", "!"], ["qqq", "?"], "no"),  # no word seen in training
        (["..."], ["good"], "yes"),  # the first text has no word once punctuation is left out
        (
            ["The", "Film", "was", "good"],
            ["film", "good", "film"],
            "yes",
        ),  # the short text inside the long one
    ]
)
# p(. | w) = (c(w, y) + 1/2) / (c(w) + 1), columns (no, yes)
P = {
    "good": (0.5, 0.5),
    "film": (0.375, 0.625),
    "great": (0.25, 0.75),
    "bad": (0.75, 0.25),
    "plot": (0.75, 0.25),
}


def _entropy(*words: str) -> float:
    mean = np.mean([P[w] for w in words], axis=0)
    return float(-sum(p * math.log2(p) for p in mean if p > 0))


def test_the_four_pair_metrics_are_registered_overlap_lower_is_harder() -> None:
    names = metrics.names(task="pair", kind="difficulty")
    assert names == ["pair_complexity", "pair_ambiguity", "pair_unseen", "pair_overlap"]
    assert [metrics.meta(n)["higher_is_harder"] for n in names] == [True, True, True, False]
    assert metrics.meta("pair_overlap")["property"] == "overlap"
    for name in names:
        assert "=" in (metrics.get(name).__doc__ or "") and metrics.meta(name)["unit"]


def test_lexical_overlap_is_the_shorter_texts_share_lower_cased_without_punctuation() -> None:
    assert lexical_overlap(["The", "cat", "sat", "."], ["the", "cat", "ran", "away"]) == pytest.approx(2 / 3)
    # a short text wholly inside a long one: 1 (Jaccard would say 2/5)
    assert lexical_overlap(["a", "b"], ["x", "A", "b", "y", "z"]) == 1.0
    assert lexical_overlap(["x", "y"], ["z", "."]) == 0.0
    # symmetric: the column order of a dataset does not matter
    assert lexical_overlap(["x", "A", "b", "y", "z"], ["a", "b"]) == 1.0
    assert math.isnan(lexical_overlap([".", "!"], ["good"]))  # nothing to compare: missing, not easiest


def test_ambiguity_unseen_and_overlap_hand_computed_over_both_texts() -> None:
    table = item_metrics(TRAIN, EVALUATION, names=["pair_ambiguity", "pair_unseen", "pair_overlap"])
    assert list(table.columns[:5]) == ["item", "unit", "text", "text_b", "gold"]
    assert table["text"].tolist()[1] == "great plot twist" and table["text_b"].tolist()[1] == "film acting"
    assert table["pair_unseen"].tolist() == pytest.approx([3 / 6, 2 / 5, 1.0, 1 / 2, 3 / 7])
    overlap = table["pair_overlap"].to_numpy()
    assert overlap[[0, 1, 2, 4]].tolist() == [1.0, 0.0, 0.0, 1.0] and math.isnan(overlap[3])
    ambiguity = table["pair_ambiguity"].to_numpy()
    expected = [
        _entropy("film", "good", "film"),
        _entropy("great", "plot", "film"),
        math.nan,
        _entropy("good"),
        _entropy("good", "film", "good", "film"),
    ]
    np.testing.assert_allclose(ambiguity, expected, rtol=1e-12)
    assert ambiguity[3] == pytest.approx(1.0)
    assert table["n_tokens"].tolist() == [6, 5, 4, 2, 7]


def _doc(vocab: Vocab, words: list[str], heads: list[int]) -> Doc:
    deps = ["ROOT" if h == i else "dep" for i, h in enumerate(heads)]
    return Doc(vocab, words=words, heads=heads, deps=deps)


def test_complexity_pools_the_arcs_of_both_texts_each_parsed_alone() -> None:
    context = MetricContext(TRAIN, EVALUATION, level="sentence")
    vocab = Vocab()
    sides = [EVALUATION.sides(i) for i in range(len(EVALUATION))]
    heads = [
        ([1, 1, 1], [1, 1, 1]),
        ([2, 2, 2], [1, 1]),
        ([0, 0], [0, 0]),
        ([0], [0]),
        ([3, 3, 3, 3], [1, 1, 1]),
    ]
    context.__dict__["eval_side_docs"] = [
        (_doc(vocab, a, ha), _doc(vocab, b, hb)) for (a, b), (ha, hb) in zip(sides, heads, strict=True)
    ]
    # item 2: arcs 2, 1 in the first text and 1 in the second -> 4/3 (the mean of the means would be 1.25)
    expected = [1.0, 4 / 3, 1.0, 0.0, (3 + 2 + 1 + 1 + 1) / 5]
    assert pair_complexity(context).tolist() == pytest.approx(expected)
    assert pooled_arc_length([]) == 0.0


@pytest.fixture(scope="module")
def untrained_parser(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A blank English pipeline with an (untrained) parser: a loadable spaCy model without downloads."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("parser")
    nlp.initialize()
    path = tmp_path_factory.mktemp("parser") / "model"
    nlp.to_disk(path)
    return str(path)


def test_side_parses_hold_each_text_alone(untrained_parser: str, tmp_path: Path) -> None:
    context = MetricContext(
        TRAIN, EVALUATION, level="sentence", spacy_model=untrained_parser, cache_dir=tmp_path / "cache"
    )
    docs = context.eval_side_docs
    assert [([t.text for t in a], [t.text for t in b]) for a, b in docs] == [
        EVALUATION.sides(i) for i in range(len(EVALUATION))
    ]
    values = pair_complexity(context)
    assert values.shape == (5,) and np.isfinite(values).all() and (values >= 0).all()


def test_overlap_partition_puts_low_overlap_in_the_difficult_slice() -> None:
    values = pd.Series([0.0] * 12 + [0.5] * 3 + [1.0] * 12 + [np.nan] * 2, name="pair_overlap")
    split = partition(values)
    # 12 or 15 difficult are equally close to half: the tie goes to the smaller, harder slice, as upwards
    assert split.higher_is_harder is False and split.threshold == 0.0
    assert split.difficult.tolist() == [True] * 12 + [False] * 17
    assert split.easy.tolist() == [False] * 12 + [True] * 15 + [False] * 2
    assert "difficult = value <= 0: 12 difficult" in split.description
    assert "2 in neither slice" in split.description
    fixed = partition(values, PartitionRule(threshold=0.5))
    assert fixed.threshold == 0.5 and fixed.n_difficult == 15 and fixed.n_easy == 12
    # the same values read as an ordinary metric split the other way
    plain = partition(values.rename("values"))
    assert plain.difficult.tolist()[-3] is True and plain.difficult.tolist()[0] is False
    assert partition(values.to_numpy(), higher_is_harder=False).difficult.tolist() == split.difficult.tolist()
    assert metric_label("pair_overlap") == "pair_overlap (difficult = low overlap)"
    assert metric_label("pair_unseen") == "pair_unseen"


def _generated_pairs(n: int, rng: random.Random) -> tuple[Corpus, list[bool]]:
    """Pairs of six and five seen words: half share four of five words (overlap 0.8), half share none."""
    vocabulary = [f"w{i}" for i in range(40)]
    pairs, shared = [], []
    for k in range(n):
        a = rng.sample(vocabulary, 6)
        high = k % 2 == 0
        rest = [w for w in vocabulary if w not in a]
        b = rng.sample(a, 4) + rng.sample(rest, 1) if high else rng.sample(rest, 5)
        pairs.append((a, b, rng.choice(["same", "different"])))
        shared.append(high)
    return _pair_corpus(pairs), shared


def test_gap_analysis_finds_the_planted_low_overlap_gap_in_the_difficult_slice() -> None:
    rng = random.Random(3)
    train, _ = _generated_pairs(60, rng)
    evaluation, high = _generated_pairs(80, rng)
    other = {"same": "different", "different": "same"}
    predictions = {}
    for seed in range(3):
        for family in ("contextual", "static"):
            predictions[(family, 60, seed)] = [
                gold if rng.random() < (0.9 if family == "contextual" or shared else 0.3) else other[gold]
                for gold, shared in zip(evaluation.labels, high, strict=True)
            ]
    table = item_metrics(train, evaluation, names=["pair_ambiguity", "pair_unseen", "pair_overlap"])
    assert table["pair_overlap"].tolist() == [0.8 if h else 0.0 for h in high]
    gaps = gap_analysis("pair", train, evaluation, predictions, n_boot=300, table=table)
    rows = gaps[(gaps["metric"] == "pair_overlap") & (gaps["pair"] == "contextual-static")].set_index("slice")
    assert rows.loc["difficult", "n_items"] == 40 and rows.loc["easy", "n_items"] == 40
    assert rows.loc["difficult", "gap"] > rows.loc["easy", "gap"] + 0.3
    assert (
        rows.loc["difficult-minus-easy", "gap_lo"] > 0 and rows.loc["difficult-minus-easy", "p_value"] < 0.05
    )
    assert "value <= 0" in gaps.attrs["partitions"]["pair_overlap"]
    assert "cannot split" in gaps.attrs["partitions"]["pair_unseen"]  # every word seen in training

    from advisor.verdict import slice_findings

    finding = next(
        f for f in slice_findings(gaps) if f.metric == "pair_overlap" and f.pair == "contextual-static"
    )
    assert finding.carried_by == "difficult"
    assert finding.describe().startswith(
        "pair_overlap (difficult = low overlap), contextual vs static: the gap is carried by difficult items"
    )


def test_summary_and_slice_overlap_follow_the_overlap_direction() -> None:
    values = [0.0] * 12 + [1.0] * 12
    table = pd.DataFrame({"pair_overlap": values, "pair_unseen": [1.0 - v for v in values]})
    table.attrs["metrics"] = ["pair_overlap", "pair_unseen"]
    summary = summarize_metrics(table).set_index("metric")
    assert (
        summary.loc["pair_overlap", "n_difficult"] == 12 and summary.loc["pair_overlap", "threshold"] == 0.0
    )
    # low overlap and high unseen pick the same pairs: the same slices, not mirror images
    row = slice_overlap(table).iloc[0]
    assert row["direction"] == "same" and row["same"] == 1.0 and bool(row["warn"])


def test_metrics_command_prints_the_overlap_cut_the_right_way_round(
    advisor_cli, untrained_parser: str, tmp_path: Path
) -> None:
    rng = random.Random(5)
    for name, n in (("train", 60), ("test", 40)):
        corpus, _ = _generated_pairs(n, rng)
        rows = [
            "\t".join((" ".join(a), " ".join(b), label))
            for (a, b), label in zip(map(corpus.sides, range(n)), corpus.labels, strict=True)
        ]
        (tmp_path / f"{name}.tsv").write_text("sentence1\tsentence2\tlabel\n" + "\n".join(rows) + "\n")
    args = ["metrics", str(tmp_path / "train.tsv"), "--task", "pair", "--test", str(tmp_path / "test.tsv")]
    code, stdout, stderr = advisor_cli(
        *args, "--spacy-model", untrained_parser, "--cache-dir", str(tmp_path / "c")
    )
    assert code == 0, stderr
    for name in ("pair_complexity", "pair_ambiguity", "pair_unseen", "pair_overlap"):
        assert name in stdout
    assert "pair_overlap: difficult = value <= 0: 20 difficult (50 %), 20 easy" in stdout
    cuts = next(line for line in stdout.splitlines() if "difficult if" in line)
    ambiguity, unseen, overlap = (cell.strip() for cell in cuts.split("│")[3:6])
    assert ambiguity.startswith(">= ") and unseen == "no split" and overlap == "<= 0"  # every word seen
