"""The scalar mix: layer stacks go through the same models, and the weights find the useful layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.helpers import LabelledCorpus
from trainers import TrainConfig, fit_and_evaluate
from trainers._errors import InputError
from trainers._features import TokenFeatures
from trainers._mix import ScalarMix, layer_norms

DIM, LAYERS, SIGNAL = 8, 4, 2
FAST = {
    "max_steps": 180,
    "min_steps": 0,
    "eval_every": 15,
    "patience": 12,
    "batch_size": 16,
    "lr": 1e-2,
    "hidden": 16,
    "projection": 16,
}


def _stack(x: np.ndarray, rng: np.random.Generator, scale: np.ndarray) -> np.ndarray:
    """A (words, LAYERS, DIM) stack whose layer SIGNAL is ``x``; the others are noise of the same spread."""
    layers = [rng.normal(size=x.shape).astype(np.float32) for _ in range(LAYERS)]
    layers[SIGNAL] = x
    return np.stack(layers, axis=1) * scale[None, :, None]


# Layers differ in norm as a real encoder's do; the signal layer is not the largest.
SCALE = np.array([0.5, 4.0, 1.0, 2.0], dtype=np.float32)


def _ner_data(n: int, seed: int) -> tuple[TokenFeatures, LabelledCorpus]:
    """Feature 0 of the signal layer > 0.5 marks a PER token; every other layer is unrelated noise."""
    rng = np.random.default_rng(seed)
    arrays, tokens, tags = [], [], []
    for _ in range(n):
        length = int(rng.integers(3, 10))
        x = rng.normal(size=(length, DIM)).astype(np.float32)
        sent = []
        for t in range(length):
            if x[t, 0] <= 0.5:
                sent.append("O")
            else:
                sent.append("I-PER" if sent and sent[-1] != "O" else "B-PER")
        arrays.append(_stack(x, rng, SCALE))
        tokens.append([f"w{i}" for i in range(length)])
        tags.append(sent)
    return TokenFeatures.from_list(arrays), LabelledCorpus(task="ner", tokens=tokens, labels=tags)


def _classify_data(n: int, seed: int) -> tuple[TokenFeatures, LabelledCorpus]:
    rng = np.random.default_rng(seed)
    arrays, tokens, labels = [], [], []
    for _ in range(n):
        length = int(rng.integers(2, 10))
        x = rng.normal(size=(length, DIM)).astype(np.float32)
        labels.append("pos" if x[:, 0].mean() > 0 else "neg")
        arrays.append(_stack(x, rng, SCALE))
        tokens.append(["tok"] * length)
    return TokenFeatures.from_list(arrays), LabelledCorpus(task="classify", tokens=tokens, labels=labels)


def test_mix_maps_a_stack_to_one_vector_and_starts_uniform():
    mix = ScalarMix(3, norms=np.array([1.0, 2.0, 4.0]))
    stack = torch.ones(3, 2, 5, 6) * torch.tensor([1.0, 10.0, 100.0]).reshape(3, 1, 1, 1)  # layer-first
    out = mix(stack)
    assert out.shape == (2, 5, 6)
    np.testing.assert_allclose(mix.weights(), [1 / 3] * 3, rtol=1e-6)
    # layer l holds 10**l; each is brought to the layers' mean norm 7/3 (÷ 1, 2, 4), then averaged
    np.testing.assert_allclose(out.detach().numpy(), (7 / 3) * (1 + 10 / 2 + 100 / 4) / 3, rtol=1e-6)


def test_layer_norms_are_mean_norms_per_layer():
    stack = np.zeros((4, 2, 3), dtype=np.float16)
    stack[:, 0, 0] = 3.0
    stack[:, 1, :] = 2.0
    np.testing.assert_allclose(layer_norms(stack), [3.0, np.sqrt(12.0)], rtol=1e-3)


@pytest.mark.parametrize("task", ["ner", "classify"])
def test_mix_puts_most_weight_on_the_only_layer_with_signal(task):
    make = _ner_data if task == "ner" else _classify_data
    (train, train_c), (dev, dev_c), (test, test_c) = make(300, 0), make(60, 1), make(60, 2)
    result = fit_and_evaluate(train, train_c, dev, dev_c, test, test_c, TrainConfig(**FAST))
    weights = np.asarray(result.layer_weights)
    assert len(weights) == LAYERS and weights.sum() == pytest.approx(1.0, abs=1e-5)
    assert int(weights.argmax()) == SIGNAL and weights[SIGNAL] > 0.5, weights
    assert result.score > 0.8
    flat = result.to_dict()
    assert flat[f"mix_weight.{SIGNAL}"] == pytest.approx(weights[SIGNAL]) and np.isfinite(flat["mix_gamma"])


def test_two_dimensional_features_have_no_mix():
    (train, train_c), (dev, dev_c), (test, test_c) = (_classify_data(40, s) for s in (0, 1, 2))
    one = train.layer(SIGNAL)
    result = fit_and_evaluate(
        one,
        train_c,
        dev.layer(SIGNAL),
        dev_c,
        test.layer(SIGNAL),
        test_c,
        TrainConfig(**{**FAST, "max_steps": 15}),
    )
    assert result.layer_weights == [] and "mix_gamma" not in result.to_dict()


def test_stack_and_plain_splits_cannot_be_mixed():
    (train, train_c), (dev, dev_c) = _classify_data(20, 0), _classify_data(10, 1)
    with pytest.raises(InputError, match="layers, dim"):
        fit_and_evaluate(
            train, train_c, dev.layer(0), dev_c, dev, dev_c, TrainConfig(max_steps=15, min_steps=0)
        )
