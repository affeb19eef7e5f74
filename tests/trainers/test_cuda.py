"""The downstream models on a CUDA device: they learn what they learn on the CPU, reproducibly.

Runs only where CUDA is visible (``-m cuda`` selects these tests); elsewhere it is skipped.
"""

from __future__ import annotations

import pytest
import torch

from tests.helpers import fit_planted, planted_classify, planted_ner

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.mark.parametrize("task", ["ner", "classify"])
def test_a_cuda_model_learns_what_the_cpu_model_learns(task: str) -> None:
    make = planted_ner if task == "ner" else planted_classify
    splits = [make(240, 0), make(60, 1), make(60, 2)]
    cpu = fit_planted(splits, seed=3, device="cpu")
    gpu = fit_planted(splits, seed=3, device="cuda")
    assert cpu.device == "cpu" and gpu.device.startswith("cuda")
    assert gpu.score > 0.6, gpu.scores  # chance is near 0 (NER) or ~0.4 (3 classes)
    assert abs(cpu.score - gpu.score) < 0.1
    assert gpu.peak_memory_mb > 0  # measured on the device, not the host's RSS


def test_cuda_training_is_reproducible_for_a_seed() -> None:
    splits = [planted_ner(120, 0), planted_ner(40, 1), planted_ner(40, 2)]
    first, second = (fit_planted(splits, seed=5, max_steps=45, device="cuda") for _ in range(2))
    assert first.gold_probs == second.gold_probs and first.dev_history == second.dev_history


def test_bfloat16_autocast_learns_on_cuda() -> None:
    splits = [planted_ner(240, 0), planted_ner(60, 1), planted_ner(60, 2)]
    result = fit_planted(splits, seed=3, device="cuda", precision="bfloat16")
    assert result.precision == "bfloat16" and result.score > 0.6, result.scores
