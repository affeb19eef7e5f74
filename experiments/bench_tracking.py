"""Time reading a finished 45-cell analysis from a sqlite store: the old reader vs the cells table.

The old way is ``load_analysis`` of commit 91532ad (a metric history per child and cell metric);
the new way reads the parent's ``analysis/cells.json``. One store serves both: it is written with
the current tracker, which logs the metric histories *and* the cells table. Each reader runs in its
own process (the two ``advisor`` packages cannot share one), reads once to warm up, then ``--repeats``
times; the script prints the median wall and CPU time per read, their ratio, and whether both
readers returned the same curves, embeddings, slices and items.

    python experiments/bench_tracking.py --old-tree /tmp/ref-91532ad
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs

ROOT = Path(__file__).resolve().parents[1]
EMBEDDINGS = ("random", "static", "contextual")
SIZES = (38, 75, 150, 300, 600)  # the demo grid: 3 embeddings x 5 sizes x 3 seeds = 45 cells
SEEDS = (0, 1, 2)
N_TEST = 200

READER = """
import pickle, statistics, sys, time
from advisor.tracking import load_analysis
uri, run_id, repeats, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
analysis = load_analysis(run_id, uri)  # warm-up: imports, first connection
walls, cpus = [], []
for _ in range(repeats):
    w, c = time.perf_counter(), time.process_time()
    analysis = load_analysis(run_id, uri)
    walls.append(time.perf_counter() - w)
    cpus.append(time.process_time() - c)
frames = {k: getattr(analysis, k) for k in ("curves", "embeddings", "slices", "items")}
with open(out, "wb") as handle:
    pickle.dump({"wall": statistics.median(walls), "cpu": statistics.median(cpus), "frames": frames}, handle)
"""


def write_store(uri: str) -> str:
    """One finished analysis with the demo grid's 45 cells, logged by the current tracker."""
    from advisor.tracking import AnalysisTracker

    rng = np.random.default_rng(0)
    tracker = AnalysisTracker(uri, "bench")
    info = [{"embedding": e, "model": e, "dim": 50, "embedding_bytes": 10**6} for e in EMBEDDINGS]
    params = {
        "task": "ner",
        "dataset": "bench.conll",
        "n_train": max(SIZES),
        "primary_metric": "f1",
        "sizes": list(SIZES),
        "seeds": len(SEEDS),
        "embedding_info": json.dumps(info),
    }
    tracker.open("bench-45", "bench", params, {"advisor.task": "ner"})
    for embedding in EMBEDDINGS:
        for seed in SEEDS:
            tracker.child(embedding, seed, {"embedding": embedding})
            for size in SIZES:
                tracker.log_cell(embedding, size, seed, _metrics(embedding, size, seed), _predictions(rng))
    items = pd.DataFrame({"item": range(N_TEST), "ner_unseen": rng.random(N_TEST)})
    tracker.log_table(items, "analysis/items.json")
    gaps = pd.DataFrame({"metric": ["ner_unseen"], "pair": ["contextual-static"], "gap": [0.1]})
    tracker.log_table(gaps, "analysis/gaps.json")
    tracker.close("FINISHED")
    return tracker.parent_id


def _metrics(embedding: str, size: int, seed: int) -> dict[str, float]:
    score = 0.3 + 0.1 * EMBEDDINGS.index(embedding) + size / 3000 + (zlib.crc32(f"{seed}".encode()) % 7) / 100
    return {
        "score": score,
        "f1": score,
        "dev_score": score - 0.01,
        "train_seconds": size / 100,
        "inference_ms_per_item": 0.5,
        "peak_memory_mb": 90.0,
        "n_params": 95953.0,
        "epochs": 6.0,
        "eval_precision": score,
        "eval_recall": score,
    }


def _predictions(rng: np.random.Generator) -> pd.DataFrame:
    gold = ["B-PER O O B-LOC"] * N_TEST
    return pd.DataFrame(
        {"item": range(N_TEST), "gold": gold, "prediction": gold, "correct": rng.integers(0, 2, N_TEST)}
    )


def time_reader(tree: Path, uri: str, run_id: str, repeats: int, tmp: Path) -> dict:
    """Median seconds per read of the ``advisor`` package in ``tree``, in a fresh process."""
    out = tmp / f"{tree.name}.pkl"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-c", READER, uri, run_id, str(repeats), str(out)]
    subprocess.run(cmd, check=True, env=env, cwd=tmp)
    with open(out, "rb") as handle:
        return pickle.load(handle)


def same_frames(old: dict, new: dict) -> bool:
    """Whether both readers returned equal tables (values, columns, dtypes)."""
    for name, frame in old.items():
        other = new[name]
        if frame is None or other is None:
            if frame is not other:
                return False
            continue
        try:
            pd.testing.assert_frame_equal(frame, other)
        except AssertionError as error:
            print(f"{name} differs: {error}")
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-tree", type=Path, default=Path("/tmp/ref-91532ad"))
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        uri = f"sqlite:///{tmp}/mlflow.db"
        run_id = write_store(uri)
        old = time_reader(args.old_tree, uri, run_id, args.repeats, tmp)
        new = time_reader(ROOT, uri, run_id, args.repeats, tmp)
    print(
        f"reading a finished 45-cell analysis (sqlite), median of {args.repeats} reads, load {os.getloadavg()}"
    )
    print(f"{'reader':<28} {'wall s':>8} {'cpu s':>8}")
    print(f"{'old (91532ad, histories)':<28} {old['wall']:>8.3f} {old['cpu']:>8.3f}")
    print(f"{'new (cells table)':<28} {new['wall']:>8.3f} {new['cpu']:>8.3f}")
    print(f"ratio old/new: wall {old['wall'] / new['wall']:.1f}x, cpu {old['cpu'] / new['cpu']:.1f}x")
    print(f"same curves, embeddings, slices, items: {same_frames(old['frames'], new['frames'])}")


if __name__ == "__main__":
    interruptible(main)
