from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import FAST, PLANTED_DIM, LabelledCorpus, fit_planted, planted_classify, planted_ner
from trainers import TrainConfig, fit_and_evaluate
from trainers._errors import ConfigError, InputError
from trainers._features import TokenFeatures


@pytest.fixture(scope="module")
def ner_splits() -> list[tuple[TokenFeatures, LabelledCorpus]]:
    return [planted_ner(240, 0), planted_ner(60, 1), planted_ner(60, 2)]


@pytest.fixture(scope="module")
def classify_splits() -> list[tuple[TokenFeatures, LabelledCorpus]]:
    return [planted_classify(300, 0), planted_classify(80, 1), planted_classify(80, 2)]


def _assert_valid_iob2(tags: list[str]) -> None:
    previous = "O"
    for tag in tags:
        if tag.startswith("I-"):
            assert previous in (f"B-{tag[2:]}", f"I-{tag[2:]}"), tags
        previous = tag


@pytest.mark.parametrize("use_crf", [False, True])
def test_tagger_learns_planted_entities(ner_splits, use_crf: bool) -> None:
    result = fit_planted(ner_splits, use_crf=use_crf)
    eval_corpus = ner_splits[2][1]
    assert result.task == "ner" and result.primary_metric == "f1"
    assert result.score > 0.6, result.scores  # chance-level tagging scores near 0
    assert result.score == result.scores["f1"]
    assert {"precision", "recall", "conlleval_f1", "f1_PER", "f1_LOC"} <= set(result.scores)
    assert len(result.predictions) == len(result.gold_probs) == len(eval_corpus)
    for pred, probs, gold in zip(result.predictions, result.gold_probs, eval_corpus.labels, strict=True):
        assert len(pred) == len(probs) == len(gold)
        assert all(0.0 <= p <= 1.0 for p in probs)
        if use_crf:  # the CRF only follows observed transitions; softmax predictions are scored raw (strict)
            _assert_valid_iob2(pred)
    assert "repaired_f1" in result.scores
    assert 1 <= result.steps <= FAST["max_steps"] and result.stopped_by in ("patience", "ceiling")
    assert result.dev_steps == sorted(result.dev_steps) and len(result.dev_steps) == len(result.dev_history)
    assert result.n_params > 0 and result.train_seconds > 0 and result.inference_ms_per_item > 0
    assert result.peak_memory_mb > 0 and result.device == "cpu"


@pytest.mark.parametrize("classifier", ["cnn", "bilstm"])
def test_classifiers_learn_planted_label(classify_splits, classifier: str) -> None:
    result = fit_planted(classify_splits, classifier=classifier)
    eval_corpus = classify_splits[2][1]
    assert result.primary_metric == "accuracy"
    assert result.score > 0.6, result.scores  # three classes: chance ~0.33-0.45
    assert set(result.scores) == {"accuracy", "macro_f1"}
    assert len(result.predictions) == len(result.gold_probs) == len(eval_corpus)
    assert set(result.predictions) <= {"neg", "mid", "pos"}
    assert all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in result.gold_probs)
    # p(gold) should be high where the prediction is right
    right = [
        p for p, y, g in zip(result.gold_probs, result.predictions, eval_corpus.labels, strict=True) if y == g
    ]
    assert np.mean(right) > 0.5


@pytest.mark.parametrize(
    ("task", "options"), [("ner", {"use_crf": True}), ("classify", {"classifier": "bilstm"})]
)
def test_same_seed_same_result(ner_splits, classify_splits, task: str, options: dict) -> None:
    splits = ner_splits if task == "ner" else classify_splits
    small = {**options, "max_steps": 45}
    first, second = fit_planted(splits, seed=7, **small), fit_planted(splits, seed=7, **small)
    assert first.predictions == second.predictions
    assert first.gold_probs == second.gold_probs
    assert first.dev_history == second.dev_history
    other = fit_planted(splits, seed=8, **small)
    assert other.gold_probs != first.gold_probs


def test_float16_memmap_features_and_labels_only_in_eval(tmp_path: Path, classify_splits) -> None:
    (tf, tc), (df, dc), (ef, ec) = classify_splits
    path = tmp_path / "train.f16"
    mm = np.memmap(path, dtype=np.float16, mode="w+", shape=tf.vectors.shape)
    mm[:] = tf.vectors
    mm.flush()
    memmapped = TokenFeatures(np.memmap(path, dtype=np.float16, mode="r", shape=tf.vectors.shape), tf.offsets)
    # an eval label never seen in training still gets an index (and simply is never predicted right)
    eval_labels = list(ec.labels)
    eval_labels[0] = "unseen"
    eval_corpus = LabelledCorpus(task="classify", tokens=ec.tokens, labels=eval_labels)
    config = TrainConfig(**{**FAST, "max_steps": 30})
    result = fit_and_evaluate(memmapped, tc, df, dc, ef, eval_corpus, config)
    assert "unseen" in result.labels
    assert len(result.predictions) == len(ec)


def test_empty_items_are_scored(classify_splits) -> None:
    (tf, tc), (df, dc), _ = classify_splits
    eval_feats = TokenFeatures.from_list(
        [np.zeros((0, PLANTED_DIM), np.float32), np.ones((3, PLANTED_DIM), np.float32)]
    )
    eval_corpus = LabelledCorpus(task="classify", tokens=[[], ["a", "b", "c"]], labels=["pos", "neg"])
    result = fit_and_evaluate(
        tf, tc, df, dc, eval_feats, eval_corpus, TrainConfig(**{**FAST, "max_steps": 15})
    )
    assert len(result.predictions) == 2


def test_mismatched_features_raise_input_error(ner_splits) -> None:
    (tf, tc), (df, dc), (ef, ec) = ner_splits
    with pytest.raises(InputError, match="items but the corpus"):
        fit_and_evaluate(tf, tc, df, dc, ef.subset(range(10)), ec, TrainConfig(**FAST))
    shorter = LabelledCorpus(
        task="ner", tokens=[t[:-1] for t in tc.tokens], labels=[t[:-1] for t in tc.labels]
    )
    with pytest.raises(InputError, match="feature rows"):
        fit_and_evaluate(tf, shorter, df, dc, ef, ec, TrainConfig(**FAST))


def test_bad_config_raises_config_error() -> None:
    with pytest.raises(ConfigError, match="classifier"):
        TrainConfig(classifier="transformer")
    with pytest.raises(ConfigError, match="dropout"):
        TrainConfig(dropout=1.5)


def test_to_dict_is_flat_scalars(classify_splits) -> None:
    result = fit_planted(classify_splits, max_steps=15)
    flat = result.to_dict()
    assert flat["score"] == result.score and flat["eval_macro_f1"] == result.scores["macro_f1"]
    assert all(isinstance(v, int | float | str) for v in flat.values())
    assert "predictions" not in flat


@pytest.mark.parametrize("stacked", [False, True])
def test_train_items_view_equals_a_copied_subset(ner_splits, stacked: bool) -> None:
    """Training on a view of the train items gives bit-for-bit what training on their copy gives."""
    (tf, tc), (df, dc), (ef, ec) = ner_splits
    if stacked:  # a 3-layer stack: the scalar mix's layer norms are sampled from the subset's rows
        tf, df, ef = (
            TokenFeatures(np.stack([f.vectors, 2 * f.vectors, -f.vectors], axis=1), f.offsets)
            for f in (tf, df, ef)
        )
    items = np.random.default_rng(3).permutation(len(tc))[:150]
    config = TrainConfig(**{**FAST, "max_steps": 45, "seed": 5})
    copied = fit_and_evaluate(tf.subset(items), tc.subset(items), df, dc, ef, ec, config)
    viewed = fit_and_evaluate(tf, tc.subset(items), df, dc, ef, ec, config, train_items=items)
    assert viewed.predictions == copied.predictions
    assert viewed.gold_probs == copied.gold_probs
    assert viewed.dev_history == copied.dev_history
    assert viewed.layer_weights == copied.layer_weights and (viewed.layer_weights != []) == stacked


def test_batches_of_a_float16_layer_stack_are_cast_exactly_into_one_reused_block() -> None:
    import torch

    from trainers._batches import Split as _Split

    rng = np.random.default_rng(0)
    lengths = [3, 5, 2, 4]
    stack = rng.standard_normal((sum(lengths), 3, 4)).astype(np.float16)  # (words, layers, dim)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    corpus = LabelledCorpus(
        task="ner", tokens=[["w"] * n for n in lengths], labels=[["O"] * n for n in lengths]
    )
    split = _Split(TokenFeatures(vectors=stack, offsets=offsets), corpus, {"O": 0}, casing=False)
    first = split.batch(np.array([1, 3]), torch.device("cpu"))
    expected = np.zeros((3, 2, 5, 4), dtype=np.float32)  # layer-first, padded with zeros
    for row, item in enumerate([1, 3]):
        words = stack[offsets[item] : offsets[item + 1]].astype(np.float32)
        expected[:, row, : lengths[item]] = words.transpose(1, 0, 2)
    np.testing.assert_array_equal(first.vectors.numpy(), expected)
    pointer = first.vectors.data_ptr()
    second = split.batch(np.array([0, 2]), torch.device("cpu"))  # smaller: the same block, no new one
    assert second.vectors.data_ptr() == pointer and second.vectors.shape == (3, 2, 3, 4)
    np.testing.assert_array_equal(
        second.vectors[:, 0].numpy(), stack[0:3].astype(np.float32).transpose(1, 0, 2)
    )


def test_observed_transitions_are_the_tag_bigrams_within_items() -> None:
    from trainers._batches import Split as _Split
    from trainers._model import _observed_transitions

    labels = ["B-LOC", "B-PER", "I-PER", "O"]
    tags = [["B-PER", "I-PER", "O"], [], ["O", "B-LOC"], ["I-PER"], []]  # empty items, also last
    lengths = [len(t) for t in tags]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    corpus = LabelledCorpus(task="ner", tokens=[["w"] * n for n in lengths], labels=tags)
    feats = TokenFeatures(vectors=np.zeros((sum(lengths), 2), dtype=np.float32), offsets=offsets)
    split = _Split(feats, corpus, {label: i for i, label in enumerate(labels)}, casing=False)
    expected = np.zeros((4, 4), dtype=bool)
    for a, b in [("B-PER", "I-PER"), ("I-PER", "O"), ("O", "B-LOC")]:  # never across items
        expected[labels.index(a), labels.index(b)] = True
    np.testing.assert_array_equal(_observed_transitions(split, labels), expected)
