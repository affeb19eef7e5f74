"""Benchmark of ``advisor run`` (issue 4): wall time split by stage, cold, warm-cache and identical re-run.

    python experiments/bench_run.py [--data-dir ../shared/data/wnut17] [--profile default] [--task ner]

Three runs, each in a fresh temporary MLflow store unless noted:
1. cold: empty feature cache, empty store;
2. warm cache: same feature cache, empty store (contextual features read from disk);
3. identical re-run: same cache and same store as run 2 (every cell resumes; nothing recomputed).
Prints a table of seconds per stage: read, featurize per embedding, train per embedding,
evaluation, logging, difficulty/verdict analysis, total.
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

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wnut17"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--train", default="wnut17train.conll")
    parser.add_argument("--dev", default="emerging.dev.conll")
    parser.add_argument("--test", default="emerging.test.annotated")
    parser.add_argument("--task", default="ner")
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"

        def settings(store: str) -> RunSettings:
            return RunSettings(
                data=str(args.data_dir / args.train),
                task=args.task,
                dev=str(args.data_dir / args.dev) if args.dev else None,
                test=str(args.data_dir / args.test) if args.test else None,
                profile=args.profile,
                tracking_uri=f"sqlite:///{tmp}/{store}/mlflow.db",
                cache_dir=str(cache),
            )

        results = {}
        for label, store in (("cold", "a"), ("warm cache", "b"), ("identical re-run", "b")):
            t0 = time.perf_counter()
            outcome = run_analysis(settings(store))
            wall = time.perf_counter() - t0
            results[label] = (outcome, wall)
            print(
                f"{label}: {wall:.1f}s, {len(outcome.computed)} cells computed, {len(outcome.reused)} reused"
            )
    stages = sorted({k for outcome, _ in results.values() for k in outcome.timings if k != "total"})
    table = Table(title=f"advisor run --profile {args.profile} on {args.data_dir.name} ({outcome.device})")
    table.add_column("stage")
    for label in results:
        table.add_column(f"{label} (s)", justify="right")
    for stage in stages:
        table.add_row(stage, *(f"{o.timings.get(stage, 0.0):.1f}" for o, _ in results.values()))
    table.add_row("[bold]wall", *(f"[bold]{wall:.1f}" for _, wall in results.values()))
    table.add_row("cells computed", *(str(len(o.computed)) for o, _ in results.values()))
    cold, rerun = results["cold"][1], results["identical re-run"][1]
    Console().print(table)
    print(f"identical re-run / cold = {rerun / cold:.1%} (goal <= 5 %)")


if __name__ == "__main__":
    interruptible(main)
