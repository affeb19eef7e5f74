"""The downstream model's compute precision: bfloat16 autocast where the CPU does bf16 natively.

Why: the models are small BiLSTM/CNNs whose steps are mostly LSTM and linear kernels; with native
bf16 (AVX512-BF16 or AMX) oneDNN runs them in bf16 faster. Measured on a 2-core AMD EPYC with
AVX512-BF16, default profile on the CoNLL-size proxy (``experiments/bench_conll_size.py``): the 45
cells' summed training time 575 -> 463 s (-19 %), the cold run 445 -> 397 s. Weights, gradients, the
optimizer, the loss and the scalar mix stay float32 (autocast), so only activations round to bf16;
the features themselves are stored as float16 already. Without native bf16, oneDNN emulates bf16 by
conversion, which is not expected to pay off (not measured: no such CPU here), so "auto" keeps float32
there; on a GPU it keeps float32 too (not measured: no GPU was lent).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

__all__ = ["autocast", "native_bf16_cpu", "resolve_precision"]


def native_bf16_cpu() -> bool:
    """Whether this CPU computes bfloat16 natively (AVX512-BF16 or AMX tiles)."""
    return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


def resolve_precision(precision: str, device: str | torch.device | None) -> str:
    """``"float32"`` or ``"bfloat16"``: what ``precision`` ("auto" included) means on ``device``."""
    if precision != "auto":
        return precision
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    on_cpu = torch.device(device).type == "cpu"
    return "bfloat16" if on_cpu and native_bf16_cpu() else "float32"


@contextlib.contextmanager
def autocast(precision: str, device: torch.device) -> Iterator[None]:
    """Run the enclosed forward in ``precision`` (resolved: "float32" is a no-op)."""
    enabled = precision == "bfloat16"
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=enabled):
        yield
