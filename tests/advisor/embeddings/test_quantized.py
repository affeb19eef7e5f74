"""The int8 layer stack: its error bound, reads per gather, and training on it as on its float copy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from advisor.embeddings import QuantizedStack, quantize
from tests.helpers import FAST, LabelledCorpus, assert_within_int8_step, planted_ner
from trainers import TrainConfig, fit_and_evaluate
from trainers._features import TokenFeatures


def _wide_stack(rows: int = 60, layers: int = 4, dim: int = 24, seed: int = 0) -> np.ndarray:
    """Layers of very different magnitudes, one outlier dimension, a zero row and a tiny row."""
    rng = np.random.default_rng(seed)
    stack = rng.standard_normal((rows, layers, dim)).astype(np.float32)
    stack *= np.array([0.05, 1.0, 8.0, 300.0], dtype=np.float32)[:layers, None]
    stack[:, :, 5] *= 20  # an outlier dimension, as BERT-class encoders have
    stack[7] = 0.0
    stack[9] *= 1e-4
    return stack


def test_every_element_within_half_a_step_of_its_vectors_peak():
    stack = _wide_stack()
    codes, scales = quantize(stack)
    assert codes.dtype == np.int8 and scales.dtype == np.float16 and scales.shape == stack.shape[:2]
    assert np.abs(codes.astype(np.int16)).max() == 127 and codes.min() >= -127  # symmetric range used
    restored = codes.astype(np.float32) * scales.astype(np.float32)[..., None]
    peak = np.abs(stack).max(axis=-1, keepdims=True)
    # Half a step of peak / 127; float16 scales add an absolute floor of half a subnormal step x 127
    # (vectors whose largest component is below ~1e-5, like row 9).
    assert (np.abs(restored - stack) <= peak / 254 * 1.001 + 127 * 2.0**-25).all()
    normal = ~np.isin(np.arange(len(stack)), [7, 9])
    assert (np.abs(restored - stack)[normal] <= peak[normal] / 254 * 1.001).all()
    assert (codes[7] == 0).all() and (scales[7] == 0).all()  # zeros stay zeros, no division by zero
    # Each layer has its own scale: the small embedding-like layer keeps its precision.
    relative = np.linalg.norm(restored - stack, axis=-1) / np.linalg.norm(stack, axis=-1).clip(1e-30)
    assert relative[normal].max() < 0.02


def test_requantizing_a_read_gives_the_same_codes():
    """The encoder copies a repeated sentence's rows by reading and assigning them: nothing drifts."""
    codes, scales = quantize(_wide_stack())
    stack = QuantizedStack(codes.copy(), scales.copy())
    stack[30:40] = stack[0:10]
    np.testing.assert_array_equal(stack.codes[30:40], codes[0:10])
    np.testing.assert_array_equal(stack.scales[30:40], scales[0:10])


def test_gathers_dequantize_only_the_rows_asked_for():
    data = _wide_stack()
    codes, scales = quantize(data)
    stack = QuantizedStack(codes, scales)
    full = codes.astype(np.float32) * scales.astype(np.float32)[..., None]
    assert stack.shape == data.shape and stack.ndim == 3 and len(stack) == 60 and stack.dtype == np.float32
    assert stack.nbytes == codes.nbytes + scales.nbytes == 60 * 4 * (24 + 2)
    rows = np.array([[3, 59, 0], [3, 3, 0]])  # a padded batch: (items, steps)
    batch = stack[rows]
    assert batch.dtype == np.float32 and batch.shape == (2, 3, 4, 24)
    np.testing.assert_array_equal(batch, full[rows])
    np.testing.assert_array_equal(stack[5:9], full[5:9])
    np.testing.assert_array_equal(stack[rows, 2], full[rows, 2])
    np.testing.assert_array_equal(np.asarray(stack), full)
    layer = stack[:, 1, :]  # lazy, as on a memmap
    assert isinstance(layer, QuantizedStack) and layer.shape == (60, 24)
    np.testing.assert_array_equal(layer[rows], full[:, 1][rows])
    np.testing.assert_allclose(stack.layer_mean(2, 4)[rows], full[:, 2:4].mean(1)[rows], rtol=1e-6)
    with pytest.raises(TypeError):
        layer[0] = 1.0
    with pytest.raises(ValueError):
        stack.layer_mean(3, 5)


def test_assignment_accepts_rows_in_any_order_and_scalars():
    stack = QuantizedStack(np.zeros((5, 2, 3), np.int8), np.zeros((5, 2), np.float16))
    data = np.arange(30, dtype=np.float32).reshape(5, 2, 3) - 12
    stack[[4, 0, 2]] = data[[4, 0, 2]]
    stack[[1, 3]] = data[[1, 3]]
    assert_within_int8_step(stack, data)
    stack[0] = 1.5
    np.testing.assert_allclose(stack[0], np.full((2, 3), 1.5), rtol=1e-3)


def _stacked(features: TokenFeatures) -> TokenFeatures:
    """A 3-layer stack of planted features, each layer at its own scale."""
    vectors = features.vectors
    stack = np.stack([vectors, 0.1 * vectors + 0.3, -4 * vectors], axis=1)
    return TokenFeatures(stack, features.offsets)


def test_training_on_the_codes_equals_training_on_their_float_copy():
    """The reader dequantizes per batch exactly what a full float32 copy holds: the same model."""
    splits = [planted_ner(n, seed) for n, seed in ((150, 0), (40, 1), (40, 2))]
    stacks = [(_stacked(f), c) for f, c in splits]
    lazy, copied = [], []
    for feats, corpus in stacks:
        stack = QuantizedStack(*quantize(feats.vectors))
        lazy.append((TokenFeatures(stack, feats.offsets), corpus))  # type: ignore[arg-type]
        copied.append((TokenFeatures(np.asarray(stack), feats.offsets), corpus))
    config = TrainConfig(**{**FAST, "max_steps": 45, "seed": 3})
    items = np.random.default_rng(1).permutation(150)[:100]  # a cell's subset: a RowView over the codes

    def fit(parts: list[tuple[TokenFeatures, LabelledCorpus]]):
        (tf, tc), (df, dc), (ef, ec) = parts
        return fit_and_evaluate(tf, tc.subset(items), df, dc, ef, ec, config, train_items=items)

    on_codes, on_copy = fit(lazy), fit(copied)
    assert on_codes.predictions == on_copy.predictions
    # The same values; a batch laid out layer-first (no copy) may sum in another order: float noise.
    np.testing.assert_allclose(on_codes.dev_history, on_copy.dev_history, rtol=1e-5)
    np.testing.assert_allclose(on_codes.layer_weights, on_copy.layer_weights, rtol=1e-4)
    assert len(on_codes.layer_weights) == 3


def test_a_batch_of_the_stack_reaches_the_model_without_another_copy():
    """Rows come dequantized into a layer-first block: the downstream model reads that very block."""
    from trainers._batches import Split

    feats, corpus = planted_ner(12, 0)
    stacked = _stacked(feats)
    stack = QuantizedStack(*quantize(stacked.vectors))
    labels = {tag: i for i, tag in enumerate(sorted({t for tags in corpus.labels for t in tags}))}
    split = Split(TokenFeatures(stack, stacked.offsets), corpus, labels, casing=False)  # type: ignore[arg-type]
    items = np.array([3, 0, 7])
    batch = split.batch(items, torch.device("cpu"))
    lengths = stacked.lengths()[items]
    assert tuple(batch.vectors.shape) == (3, 3, int(lengths.max()), stacked.dim)  # layer-first
    for row, item in enumerate(items):
        words = np.asarray(stack[stacked.offsets[item] : stacked.offsets[item + 1]])
        np.testing.assert_array_equal(batch.vectors[:, row, : lengths[row]].numpy(), words.transpose(1, 0, 2))
        assert (batch.vectors[:, row, lengths[row] :] == 0).all()  # padding
    assert batch.vectors.is_contiguous() and split._input_buffer._flat is None  # no cast into a buffer
