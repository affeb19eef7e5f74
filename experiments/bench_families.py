"""Benchmark (issue 16): the frozen encoder bracketed, below by static families, above by fine-tuning.

    nice -n 5 python experiments/bench_families.py [--datasets wnut17,trec]
        [--embeddings random,static,distilled,contextual] [--profile default]
        [--finetune-sizes full] [--finetune-epochs 3] [--out DIR] [--difficulty]
        [--contextual MODEL] [--static VECTORS]

For each dataset one ``advisor run`` (its own MLflow store under ``--out``, the feature cache shared)
with the frozen families of ``--embeddings`` over the profile's grid and the fine-tuned reference at
``--finetune-sizes``, then a table of every family at full data: score (mean over seeds with its
t-interval), its gap to frozen contextual with the verdict's hierarchical-bootstrap interval, the
serving pass (raw text to prediction, batch 1 and 64, memory) and the training time of one model
(median over seeds at full data). Below the table: the verdict, its headline and the fine-tuning
headroom line, with the run's wall and CPU time and the machine's load average.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from advisor.analysis import Analysis
from advisor.runner import run_analysis
from advisor.settings import RunSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from bench_layers import DATA, DATASETS  # the datasets table, kept once

BASELINE = "contextual"


def _settings(name: str, args: argparse.Namespace) -> RunSettings:
    spec = DATASETS[name]
    store = args.out / name
    store.mkdir(parents=True, exist_ok=True)
    return RunSettings(
        data=str(args.data / str(spec["data"])),
        task=str(spec["task"]),
        dev=str(args.data / str(spec["dev"])) if spec["dev"] else None,
        test=str(args.data / str(spec["test"])),
        embeddings=args.embeddings,
        profile=args.profile,
        contextual=args.contextual,
        static=args.static,
        finetune_sizes=args.finetune_sizes,
        finetune_epochs=args.finetune_epochs,
        finetune_seeds=args.finetune_seeds,
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        cache_dir=str(args.out / "cache"),
        difficulty=args.difficulty,
        workers=args.workers,
    )


def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (the training workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _num(value: float, spec: str = ".1f") -> str:
    return "–" if value is None or not math.isfinite(value) else format(value, spec)


def family_rows(analysis: Analysis, rec: Any) -> list[dict[str, str]]:
    """One row per family at its largest size: score, gap to contextual, serving and training costs."""
    from advisor.verdict import curve_summary
    from advisor.verdict._efficiency import analysis_replicates, score_gap

    summary = curve_summary(analysis)
    replicates = analysis_replicates(analysis, rec.thresholds.n_boot)
    costs = rec.costs.table if rec.costs is not None else None
    rows = []
    for family in analysis.embedding_names:
        own = summary[summary["embedding"] == family]
        at = own[own["size"] == own["size"].max()].iloc[0]
        gap = "–"
        if family != BASELINE and BASELINE in analysis.embedding_names:
            g = score_gap(analysis, family, BASELINE, int(at["size"]), replicates=replicates)
            gap = f"{100 * g.gap:+.1f} [{100 * g.lo:+.1f}, {100 * g.hi:+.1f}]" if g.has_interval else "–"

        def cost(column: str, spec: str = ".2f", name: str = family) -> str:
            if costs is None or name not in costs.index:
                return "–"
            return _num(float(costs.loc[name, column]), spec)

        rows.append(
            {
                "family": family,
                "size": str(int(at["size"])),
                "score": f"{100 * at['mean']:.1f} [{_num(100 * at['lo'])}, {_num(100 * at['hi'])}]",
                "gap": gap,
                "b1": cost("latency_ms_per_item"),
                "b64": cost("batch_ms_per_item"),
                "memory": cost("serving_memory_mb", ".0f"),
                "train": cost("train_seconds", ".0f"),
                "epochs": cost("epochs", ".0f"),
            }
        )
    return rows


def bench_dataset(name: str, args: argparse.Namespace, console: Console) -> None:
    from advisor.tracking import load_analysis
    from advisor.verdict import recommend

    started, cpu = time.perf_counter(), _cpu_seconds()
    outcome = run_analysis(_settings(name, args))
    wall, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    load = os.getloadavg()
    analysis = load_analysis(outcome.run_id, outcome.tracking_uri)
    rec = recommend(analysis)
    metric = "strict entity F1" if analysis.task == "ner" else "accuracy"
    table = Table(
        title=f"{name} ({metric} × 100, {analysis.full_size} training items, profile {args.profile}): mean "
        "[95 % t-interval over seeds]; gap to frozen contextual [hierarchical bootstrap 95 % CI]"
    )
    columns = ("family", "size", "score", "minus contextual", "serve b1 ms/item", "serve b64 ms/item")
    for column in (*columns, "serve MB", "train s/model", "epochs"):
        table.add_column(column)
    for row in family_rows(analysis, rec):
        table.add_row(*row.values())
    console.print(table)
    console.print(f"verdict: {rec.verdict.upper()} — {rec.headline}")
    if rec.headroom is not None:
        console.print(f"headroom: {rec.headroom.describe()}")
    console.print(
        f"{name}: {len(outcome.computed)} cells computed, {len(outcome.reused)} reused; wall {wall:.0f} s, "
        f"CPU (user+sys, incl. workers) {cpu:.0f} s; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; "
        f"fine-tuning {args.finetune_sizes} x {args.finetune_epochs or 3} epochs max x "
        f"{args.finetune_seeds or 'all'} seeds; run {outcome.run_id}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="wnut17,trec")
    parser.add_argument("--embeddings", default="random,static,distilled,contextual")
    parser.add_argument("--profile", default="default")
    parser.add_argument("--finetune-sizes", default="full")
    parser.add_argument("--finetune-epochs", type=int, default=3)
    parser.add_argument("--finetune-seeds", type=int, default=None, help="default: the grid's seeds")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_families"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--contextual", default=None, help="encoder (default: the packaged MiniLM)")
    parser.add_argument("--static", default=None, help="word-vectors file (default: the packaged GloVe 50-d)")
    parser.add_argument(
        "--difficulty", action="store_true", help="also run the difficulty analysis and gain model"
    )
    args = parser.parse_args()
    args.embeddings = args.embeddings.split(",")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    console = Console(width=200)
    for name in args.datasets.split(","):
        bench_dataset(name, args, console)


if __name__ == "__main__":
    interruptible(main)
