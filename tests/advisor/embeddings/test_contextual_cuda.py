"""The contextual featurizer on a CUDA device: the rows it caches are the CPU's rows.

Runs only where CUDA is visible (``-m cuda`` selects these tests); elsewhere it is skipped.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from advisor.data import Corpus
from advisor.embeddings import make_embedding

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

SENTENCES = [
    ["John", "visited", "Paris", "yesterday"],
    ["the", "bank", "of", "the", "river", "."],
    ["Mary", "likes", "zqx", "film"] * 20,  # longer than the tiny BERT's window: overlapping windows
    ["a"],
]


def _vectors(tiny_bert_dir, cache, **options) -> np.ndarray:
    corpus = Corpus(task="ner", tokens=SENTENCES, labels=[["O"] * len(s) for s in SENTENCES])
    embedding = make_embedding("contextual", model=tiny_bert_dir, layer="last", cache_dir=cache, **options)
    return np.asarray(embedding.featurize(corpus).vectors, np.float32)


def _relative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.norm(a - b, axis=1) / np.linalg.norm(a, axis=1)


def test_cuda_float32_rows_equal_the_cpu_rows(tiny_bert_dir, tmp_path) -> None:
    cpu = _vectors(tiny_bert_dir, tmp_path / "cpu", device="cpu")
    gpu = _vectors(tiny_bert_dir, tmp_path / "gpu", device="cuda")
    assert gpu.shape == cpu.shape
    assert _relative(cpu, gpu).max() < 0.02  # the int8 cache's rounding, not a different model


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cuda_half_precision_rows_are_close_to_float32(tiny_bert_dir, tmp_path, dtype: str) -> None:
    exact = _vectors(tiny_bert_dir, tmp_path / "exact", device="cuda")
    half = _vectors(tiny_bert_dir, tmp_path / dtype, device="cuda", dtype=dtype)
    relative = _relative(exact, half)
    assert 0 < relative.mean() < 0.05 and np.isfinite(half).all()
