"""Benchmark (issue 30): where a cell's time goes on a device, and how cells scale as parallel processes.

    python experiments/bench_gpu_workers.py [--device cuda] [--processes 1,4,8,12] [--steps 600] [--crf]

A NER cell of CoNLL-size shape (3,510 training and 3,250 dev sentences of 3-30 words, planted
50-d features as the static family's, BiLSTM-CRF as ``advisor run`` trains it) is trained for a fixed
number of steps, so every row does the same work:

1. one process, dev evaluated once at the end vs. every 100 steps: the training steps' and the dev
   passes' share of a cell;
2. P processes started at once (spawned: CUDA cannot be forked), each training one such cell with
   one torch thread: the wall time of the batch and the steps per second summed over processes,
   against one process. On a GPU this says whether "many cells at once" pays for a grid whose
   small models leave the device idle between kernel launches.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DIM = 50
TYPES = ("PER", "LOC", "ORG")


def planted(n: int, seed: int) -> tuple:
    """``n`` sentences of 3-30 words; feature k > 1 marks an entity of type k (runs are one entity)."""
    from tests.helpers import LabelledCorpus
    from trainers import TokenFeatures

    rng = np.random.default_rng(seed)
    arrays, tokens, tags = [], [], []
    for _ in range(n):
        x = rng.normal(size=(int(rng.integers(3, 31)), DIM)).astype(np.float32)
        sentence: list[str] = []
        for row in x:
            k = int(np.argmax(row[: len(TYPES)]))
            entity = TYPES[k] if row[k] > 1.0 else None
            inside = entity is not None and sentence and sentence[-1][2:] == entity
            sentence.append("O" if entity is None else f"{'I' if inside else 'B'}-{entity}")
        arrays.append(x)
        tokens.append([f"w{i}" for i in range(len(x))])
        tags.append(sentence)
    return TokenFeatures.from_list(arrays), LabelledCorpus(task="ner", tokens=tokens, labels=tags)


def one_cell(
    device: str, steps: int, eval_every: int, seed: int = 0, crf: bool = False
) -> tuple[float, float, int]:
    """(start, end, steps) of one fixed-length cell (``steps`` steps, dev every ``eval_every``), the
    clock read after its data is made: the data is not what is measured."""
    from trainers import TrainConfig, fit_and_evaluate

    train, dev = planted(3_510, 1), planted(3_250, 2)
    config = TrainConfig(
        max_steps=steps, min_steps=steps, eval_every=eval_every, use_crf=crf, device=device, seed=seed
    )
    start = time.time()
    result = fit_and_evaluate(*train, *dev, *dev, config)
    return start, time.time(), result.steps


def _child(args: tuple[str, int, int, int, bool]) -> tuple[float, float, int]:
    return one_cell(*args)


def parallel(device: str, steps: int, processes: int, crf: bool) -> tuple[float, int]:
    """Wall seconds and summed steps of ``processes`` cells trained at once in spawned processes."""
    with mp.get_context("spawn").Pool(processes) as pool:
        pool.map(_child, [(device, 1, 1, 0, crf)] * processes)  # warm: imports and CUDA contexts
        results = pool.map(_child, [(device, steps, steps, seed, crf) for seed in range(processes)])
    wall = max(end for _, end, _ in results) - min(start for start, _, _ in results)
    return wall, sum(steps for _, _, steps in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--processes", default="1,4,8,12")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--crf", action="store_true", help="add the CRF layer (advisor run trains without)")
    args = parser.parse_args()
    one_cell(args.device, 5, 5, crf=args.crf)  # warm-up: imports, CUDA context, cuDNN plans
    for eval_every in (args.steps, 100):
        start, end, steps = one_cell(args.device, args.steps, eval_every, crf=args.crf)
        seconds = end - start
        evals = args.steps // eval_every
        print(
            f"one process, dev every {eval_every} steps ({evals} passes): {seconds:.1f} s for {steps} steps"
        )
    base = None
    print(f"{'processes':>9} {'wall s':>7} {'steps/s':>8} {'x one':>6}")
    for processes in (int(p) for p in args.processes.split(",")):
        wall, steps = parallel(args.device, args.steps, processes, args.crf)
        rate = steps / wall
        base = base or rate
        print(f"{processes:>9} {wall:>7.1f} {rate:>8.1f} {rate / base:>6.2f}", flush=True)


if __name__ == "__main__":
    interruptible(main)
