"""Benchmark (issue 30): the contextual encoder pass by device, precision and batch size.

    python experiments/bench_encoder_device.py [--data-dir ../shared/data/wnut17] [--device cuda]
        [--dtypes float32,bfloat16,float16] [--batch-sizes 64,256] [--limit 0]

Featurizes the training split of the CoNLL-size proxy (14,041 sentences, ``bench_conll_size.py``) the
way ``advisor run`` does (every layer, mean pooling, into a fresh cache), once per (precision, batch
size), and prints seconds, words/s and how far each precision's cached rows are from float32's at
the same batch size (relative L2 distance per word and layer: mean and 99th percentile). A
precision that is faster but moves the rows beyond the int8 cache's own rounding changes what the
contextual curve measures: the table says by how much before anyone makes it a default.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from bench_conll_size import DEFAULT_DATA, write_proxy


def featurize(train: Path, device: str, dtype: str, batch_size: int, cache: Path, limit: int) -> tuple:
    """(seconds, words, rows) of one cold all-layer pass over ``train``."""
    from advisor.data._ner import read_conll
    from advisor.embeddings import make_embedding

    corpus, _ = read_conll(train)
    if limit:
        corpus = corpus.subset(range(limit))
    embedding = make_embedding(
        "contextual", device=device, dtype=dtype, batch_size=batch_size, cache_dir=cache
    )
    _ = embedding.model  # load the weights before the clock starts: a run loads them once too
    start = time.perf_counter()
    stack = embedding.featurize_layers(corpus)
    _synchronize(device)
    seconds = time.perf_counter() - start
    rows = np.asarray(stack.vectors, np.float32)
    return seconds, rows.shape[0], rows


def _synchronize(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def deviation(reference: np.ndarray, rows: np.ndarray) -> tuple[float, float]:
    """Mean and 99th percentile of the relative L2 distance per (word, layer) vector."""
    norms = np.linalg.norm(reference, axis=-1)
    relative = np.linalg.norm(reference - rows, axis=-1)[norms > 0] / norms[norms > 0]
    return float(relative.mean()), float(np.quantile(relative, 0.99))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N")
    parser.add_argument("--dtypes", default="float32,bfloat16,float16")
    parser.add_argument("--batch-sizes", default="64,256")
    parser.add_argument("--limit", type=int, default=0, help="first N training sentences only (0 = all)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from advisor.embeddings._encoder import resolve_device

    device = resolve_device(args.device)
    table = Table(title=f"encoder pass, CoNLL-size proxy train split, device {_device_name(device)}")
    for column in ("precision", "batch", "words", "seconds", "words/s", "rel. dev. mean", "rel. dev. p99"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        train = write_proxy(args.data_dir, Path(tmp))["train"]
        for batch_size in (int(b) for b in args.batch_sizes.split(",")):
            reference = None
            for dtype in args.dtypes.split(","):
                cache = Path(tmp) / f"cache-{dtype}-{batch_size}"
                seconds, words, rows = featurize(train, device, dtype, batch_size, cache, args.limit)
                if reference is None:
                    reference = rows
                mean, p99 = deviation(reference, rows) if dtype != "float32" else (0.0, 0.0)
                table.add_row(
                    dtype,
                    str(batch_size),
                    f"{words:,}",
                    f"{seconds:.1f}",
                    f"{words / seconds:,.0f}",
                    f"{mean:.4f}",
                    f"{p99:.4f}",
                )
                print(f"{dtype} batch {batch_size}: {seconds:.1f} s", flush=True)
    Console().print(table)
    print("rel. dev.: against the first precision listed at the same batch size (float32 by default)")


def _device_name(device: str) -> str:
    import torch

    if device.startswith("cuda"):
        return f"{device} ({torch.cuda.get_device_name(torch.device(device))})"
    return f"cpu ({torch.get_num_threads()} threads)"


if __name__ == "__main__":
    interruptible(main)
