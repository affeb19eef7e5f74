"""Classification difficulty metrics: parse distance on hand-built Docs, label entropy, unseen share, cache."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from spacy.tokens import Doc
from spacy.vocab import Vocab

from advisor.data._corpus import Corpus
from advisor.difficulty import (
    MetricContext,
    classify_ambiguity,
    classify_complexity,
    classify_unseen,
    dependency_distance,
    item_metrics,
    label_entropy,
    parse_tokens,
    word_label_probabilities,
)
from advisor.errors import ConfigError
from advisor.registry import metrics

TRAIN = Corpus("classify", [["good", "film"], ["bad", "film"], ["good"]], ["pos", "neg", "pos"])
EVALUATION = Corpus("classify", [["good", "film"], ["new", "film", "good", "zzz"], []], ["pos", "neg", "pos"])


def _entropy(p: list[float]) -> float:
    return -sum(x * math.log2(x) for x in p if x > 0)


def test_dependency_distance_on_hand_built_doc() -> None:
    # She ate red apples: She->ate (1), red->apples (1), apples->ate (2); ate is the root.
    doc = Doc(
        Vocab(),
        words=["She", "ate", "red", "apples"],
        heads=[1, 1, 3, 1],
        deps=["nsubj", "ROOT", "amod", "dobj"],
    )
    assert dependency_distance(doc) == pytest.approx(4 / 3)
    assert dependency_distance(Doc(Vocab(), words=["Hi"], heads=[0], deps=["ROOT"])) == 0.0
    # two sentences in one Doc: two roots, arcs of both count
    doc = Doc(
        Vocab(),
        words=["Go", "now", "Stop", "it"],
        heads=[0, 0, 2, 2],
        deps=["ROOT", "advmod", "ROOT", "dobj"],
    )
    assert dependency_distance(doc) == pytest.approx(1.0)


def test_word_label_probabilities_are_smoothed_towards_the_prior() -> None:
    index, table, prior, labels = word_label_probabilities(TRAIN.tokens, TRAIN.labels)
    assert labels == ["neg", "pos"]
    assert prior == pytest.approx([1 / 3, 2 / 3])
    # good: 0 neg, 2 pos -> ((0 + 1/3) / 3, (2 + 2/3) / 3)
    assert table[index["good"]] == pytest.approx([1 / 9, 8 / 9])
    assert table[index["film"]] == pytest.approx([4 / 9, 5 / 9])
    assert np.allclose(table.sum(axis=1), 1.0)


def test_label_entropy_hand_computed_with_unseen_words_and_empty_sentence() -> None:
    index, table, prior, _ = word_label_probabilities(TRAIN.tokens, TRAIN.labels)
    assert label_entropy(["good", "film"], index, table, prior) == pytest.approx(_entropy([5 / 18, 13 / 18]))
    # unseen words are left out (they would pull the average towards the prior): only film and good count
    mean = np.mean([[4 / 9, 5 / 9], [1 / 9, 8 / 9]], axis=0)
    assert label_entropy(["new", "film", "good", "zzz"], index, table, prior) == pytest.approx(
        _entropy(list(mean))
    )
    assert np.isnan(label_entropy([], index, table, prior))  # no seen word: not applicable
    assert np.isnan(label_entropy(["new", "zzz"], index, table, prior))


def test_entropy_handles_multiclass() -> None:
    train = Corpus("classify", [["a"], ["b"], ["c"], ["a"]], ["x", "y", "z", "x"])
    index, table, prior, _ = word_label_probabilities(train.tokens, train.labels)
    # a: counts (2,0,0), prior (1/2,1/4,1/4) -> ((2.5)/3, .25/3, .25/3)
    assert table[index["a"]] == pytest.approx([2.5 / 3, 0.25 / 3, 0.25 / 3])
    assert label_entropy(["a"], index, table, prior) == pytest.approx(_entropy([2.5 / 3, 0.25 / 3, 0.25 / 3]))


def test_unseen_and_ambiguity_through_item_metrics_without_a_parser() -> None:
    table = item_metrics(TRAIN, EVALUATION, names=["classify_ambiguity", "classify_unseen"])
    assert list(table.columns[:4]) == ["item", "unit", "text", "gold"]
    assert table["classify_unseen"].tolist() == [0.0, 0.5, 0.0]
    assert table["classify_ambiguity"][0] == pytest.approx(_entropy([5 / 18, 13 / 18]))
    assert table["n_tokens"].tolist() == [2, 4, 0]
    assert "classify_complexity" not in table


def test_complexity_metric_reads_the_context_docs() -> None:
    context = MetricContext(TRAIN, EVALUATION, level="sentence")
    vocab = Vocab()
    context.__dict__["eval_docs"] = [
        Doc(vocab, words=["good", "film"], heads=[1, 1], deps=["amod", "ROOT"]),
        Doc(
            vocab,
            words=["new", "film", "good", "zzz"],
            heads=[1, 1, 1, 1],
            deps=["amod", "ROOT", "dep", "dep"],
        ),
        Doc(vocab, words=[]),
    ]
    assert classify_complexity(context).tolist() == pytest.approx([1.0, (1 + 1 + 2) / 3, 0.0])
    assert classify_unseen(context).tolist() == [0.0, 0.5, 0.0]
    assert len(classify_ambiguity(context)) == 3


def test_metrics_are_registered_with_formula_and_meta() -> None:
    names = metrics.names(task="classify", kind="difficulty")
    assert names == ["classify_complexity", "classify_ambiguity", "classify_unseen"]
    for name in names:
        assert metrics.meta(name)["higher_is_harder"] is True and metrics.meta(name)["unit"]
        assert "=" in (metrics.get(name).__doc__ or "")


@pytest.fixture(scope="module")
def untrained_parser_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A blank English pipeline with an (untrained) parser: a loadable spaCy model without downloads."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("parser")
    nlp.initialize()
    path = tmp_path_factory.mktemp("parser") / "model"
    nlp.to_disk(path)
    return path


def test_parse_cache_is_written_and_reused(
    untrained_parser_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = [["a", "b", "c"], ["d"], []]
    first = parse_tokens(tokens, spacy_model=str(untrained_parser_dir), cache_dir=tmp_path)
    cached = list(tmp_path.rglob("*.spacy"))
    assert len(cached) == 1
    assert [len(d) for d in first] == [3, 1, 0]

    from spacy.language import Language

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed again despite the cache")

    monkeypatch.setattr(Language, "pipe", no_parsing)
    second = parse_tokens(tokens, spacy_model=str(untrained_parser_dir), cache_dir=tmp_path)
    assert [[t.head.i for t in d] for d in second] == [[t.head.i for t in d] for d in first]
    assert [[t.dep_ for t in d] for d in second] == [[t.dep_ for t in d] for d in first]
    # other text -> another cache entry (which needs parsing, so it fails under the patch)
    with pytest.raises(AssertionError):
        parse_tokens([["x"]], spacy_model=str(untrained_parser_dir), cache_dir=tmp_path)


def test_unknown_or_parserless_model_is_a_config_error(tmp_path: Path) -> None:
    import spacy

    with pytest.raises(ConfigError, match="cannot load"):
        parse_tokens([["a"]], spacy_model="no_such_model_xyz", cache_dir=tmp_path)
    blank = tmp_path / "blank"
    spacy.blank("en").to_disk(blank)
    with pytest.raises(ConfigError, match="no dependency parser"):
        parse_tokens([["a"]], spacy_model=str(blank), cache_dir=tmp_path)


@pytest.mark.slow
def test_packaged_model_parses_and_the_cache_needs_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = Corpus("classify", [["What", "is", "it", "?"]], ["q"])
    evaluation = Corpus("classify", [["Who", "wrote", "the", "book", "about", "the", "war", "?"]], ["q"])
    table = item_metrics(train, evaluation, cache_dir=tmp_path)
    assert 1.0 <= table["classify_complexity"][0] <= 4.0

    import advisor.difficulty._parse as parse_module

    def refuse(name: str):
        raise AssertionError("model loaded despite the cache")

    monkeypatch.setattr(parse_module, "_load_parser", refuse)
    again = item_metrics(train, evaluation, cache_dir=tmp_path)
    assert again["classify_complexity"][0] == table["classify_complexity"][0]
