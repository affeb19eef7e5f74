"""Device, reproducibility and memory bookkeeping around one model's training."""

from __future__ import annotations

import contextlib
import resource
import sys
from collections.abc import Iterator

import torch

__all__ = ["peak_memory_mb", "reproducible", "resolve_device", "start_memory_window"]


def resolve_device(requested: str | None) -> torch.device:
    if requested is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)


@contextlib.contextmanager
def reproducible(seed: int, device: torch.device, num_threads: int | None) -> Iterator[None]:
    """Seed torch on a forked RNG (the caller's stream is untouched); pin threads; restore after.

    On CPU the kernels used here (LSTM, conv, linear, Adam) are deterministic already; the global
    deterministic-algorithms switch is only flipped on CUDA, where it matters (on CPU its first
    call imports torch's compiler stack, seconds per process, for no gain).
    """
    devices = [device.index or 0] if device.type == "cuda" else []
    previous_threads = torch.get_num_threads()
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        if device.type == "cuda":
            was_deterministic = torch.are_deterministic_algorithms_enabled()
            was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
            torch.use_deterministic_algorithms(True, warn_only=True)
        if num_threads is not None:
            torch.set_num_threads(num_threads)
        try:
            yield
        finally:
            if device.type == "cuda":
                torch.use_deterministic_algorithms(was_deterministic, warn_only=was_warn_only)
            torch.set_num_threads(previous_threads)


def _proc_status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 2**10  # kB
    except OSError:
        return None
    return None


def start_memory_window(device: torch.device) -> float:
    """Open a per-model memory window; returns the resident baseline (MB) on CPU.

    Linux lets a process reset its resident high-water mark (``5`` to ``/proc/self/clear_refs``),
    so each model's peak is its own and not the process's peak so far (which would make every
    embedding look equally expensive once the encoder has been loaded).
    """
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        return 0.0
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return 0.0
    return _proc_status_mb("VmRSS") or 0.0


def peak_memory_mb(device: torch.device, baseline: float) -> float:
    """GPU: peak allocated by torch; CPU: resident high-water mark above the window's baseline.

    Where the high-water mark cannot be reset (not Linux), this is the process's peak RSS.
    """
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    hwm = _proc_status_mb("VmHWM")
    if hwm is not None and baseline > 0:
        return max(hwm - baseline, 0.0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10
