"""The downstream compute precision: what "auto" resolves to, and that bf16 trains the same models."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.helpers import fit_planted, planted_classify, planted_ner
from trainers import PRECISIONS, TrainConfig, _precision, resolve_precision
from trainers._errors import ConfigError
from trainers._mix import ScalarMix


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_an_explicit_precision_is_kept_on_every_device(precision: str) -> None:
    assert resolve_precision(precision, "cpu") == precision
    assert resolve_precision(precision, "cuda") == precision


@pytest.mark.parametrize(("native", "expected"), [(True, "bfloat16"), (False, "float32")])
def test_auto_is_bfloat16_only_on_a_cpu_with_native_bf16(
    monkeypatch: pytest.MonkeyPatch, native: bool, expected: str
) -> None:
    monkeypatch.setattr(_precision, "native_bf16_cpu", lambda: native)
    assert resolve_precision("auto", "cpu") == expected
    assert resolve_precision("auto", torch.device("cpu")) == expected
    assert resolve_precision("auto", "cuda:0") == "float32"


def test_an_unknown_precision_is_a_config_error() -> None:
    assert PRECISIONS == ("auto", "float32", "bfloat16")
    with pytest.raises(ConfigError, match="precision must be one of auto, float32, bfloat16, got half"):
        TrainConfig(precision="half")


def test_the_scalar_mix_stays_float32_under_bf16_autocast() -> None:
    """Only the model after the mix rounds to bf16: the layer weights see float32 sums."""
    mix = ScalarMix(3, np.array([1.0, 2.0, 4.0], dtype=np.float32))
    stack = torch.randn(3, 5, 7, 11)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed = mix(stack)
    assert mixed.dtype == torch.float32
    torch.testing.assert_close(mixed, mix(stack), rtol=0, atol=0)


@pytest.mark.parametrize("task", ["ner", "classify"])
def test_bfloat16_learns_what_float32_learns(task: str) -> None:
    """Same data and seed: both precisions learn the planted signal and score alike; each says which it was."""
    make = planted_ner if task == "ner" else planted_classify
    splits = [make(240, 0), make(60, 1), make(60, 2)]
    results = {p: fit_planted(splits, seed=3, precision=p) for p in ("float32", "bfloat16")}
    assert results["float32"].precision == "float32" and results["bfloat16"].precision == "bfloat16"
    assert results["float32"].to_dict()["precision"] == "float32"
    for result in results.values():
        assert result.score > 0.6, result.scores  # chance is near 0 (NER) or ~0.4 (3 classes)
        assert all(
            0.0 <= p <= 1.0 for p in np.ravel(np.concatenate([np.ravel(g) for g in result.gold_probs]))
        )
    assert abs(results["float32"].score - results["bfloat16"].score) < 0.1
    assert results["float32"].gold_probs != results["bfloat16"].gold_probs  # it did compute in bf16


def test_bfloat16_is_reproducible_for_a_seed() -> None:
    splits = [planted_ner(120, 0), planted_ner(40, 1), planted_ner(40, 2)]
    first, second = (fit_planted(splits, seed=5, max_steps=45, precision="bfloat16") for _ in range(2))
    assert first.gold_probs == second.gold_probs and first.dev_history == second.dev_history
