"""Benchmark of ``--backend local`` vs ``--backend ray`` (issue 18) on the demo grid.

    python experiments/bench_backends.py [--task ner|classify] [--profile default] [--workers N]

The demo grid (``advisor demo``: 3 embeddings × 5 sizes × 3 seeds) runs once per backend, each in a
fresh temporary MLflow store, after an untimed warm-up that fills the contextual feature cache, so
both backends featurize from the same warm cache. Prints, side by side: wall time of the whole run,
wall time of the training stage (cells only; Ray's start-up and object-store puts included), and
whether the two backends' scores are identical. On 2 cores Ray's overhead shows; the point of the
Ray backend is the path to a cluster, with the same results.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import load_analysis

DEMO = Path(__file__).resolve().parent / "demo"


def _settings(task: str, profile: str, store: Path, cache: Path, workers: int | None) -> RunSettings:
    suffix = "conll" if task == "ner" else "csv"
    files = {part: str(DEMO / f"{task}_{part}.{suffix}") for part in ("train", "dev", "test")}
    return RunSettings(
        data=files["train"],
        task=task,
        dev=files["dev"],
        test=files["test"],
        profile=profile,
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        experiment="bench-backends",
        cache_dir=str(cache),
        workers=workers,
    )


def _scores(run_id: str, uri: str) -> dict[tuple[str, int, int], float]:
    curves = load_analysis(run_id, uri).curves
    return {(r.embedding, int(r.size), int(r.seed)): float(r.score) for r in curves.itertuples()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="ner", choices=("ner", "classify"))
    parser.add_argument("--profile", default="default")
    parser.add_argument("--workers", type=int, default=None, help="default: one per core")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        warm = _settings(args.task, args.profile, Path(tmp) / "warm", cache, args.workers)
        warm.embeddings, warm.seeds, warm.difficulty = ["contextual"], 1, False
        run_analysis(warm)  # fills the feature cache: both timed runs read the same warm cache
        rows = {}
        for backend in ("local", "ray"):
            settings = _settings(args.task, args.profile, Path(tmp) / backend, cache, args.workers)
            settings.backend = backend
            t0 = time.perf_counter()
            outcome = run_analysis(settings)
            wall = time.perf_counter() - t0
            rows[backend] = (wall, outcome, _scores(outcome.run_id, outcome.tracking_uri))
            print(f"{backend}: {wall:.1f} s, {len(outcome.computed)} cells", flush=True)
    table = Table(
        title=f"demo grid ({args.task}, profile {args.profile}) on {os.cpu_count()} cores",
        title_justify="left",
    )
    for column in ("backend", "cells", "run wall s", "training wall s", "cells/s"):
        table.add_column(column, justify="right" if column != "backend" else "left")
    for backend, (wall, outcome, _) in rows.items():
        train = outcome.timings.get("train_wall", float("nan"))
        table.add_row(
            backend,
            str(len(outcome.computed)),
            f"{wall:.1f}",
            f"{train:.1f}",
            f"{len(outcome.computed) / train:.2f}",
        )
    Console().print(table)
    local, ray = rows["local"][2], rows["ray"][2]
    differ = sorted(k for k in local.keys() | ray.keys() if local.get(k) != ray.get(k))
    print(f"scores identical across backends: {not differ} ({len(local)} cells)")
    for key in differ:
        print(f"  differs: {key}: local {local.get(key)} ray {ray.get(key)}")


if __name__ == "__main__":
    interruptible(main)
