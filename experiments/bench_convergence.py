"""Benchmark (issue 26): does every cell converge under the default budget? A 4x budget must not move it.

    nice -n 5 python experiments/bench_convergence.py wnut17 trec subj [--profile default]
        [--embeddings random,static,contextual] [--out DIR] [--workers 2]

For each dataset two ``advisor run`` analyses of the profile's grid, same seeds, same feature cache:
the profile's budget, and a 4x budget (step ceiling x 4, patience x 2; the floor and the number of
learning-rate halvings unchanged). One row per (family, size): both scores (mean ± seed std over
seeds, primary metric x 100), their difference, the pooled seed std, the steps taken (median over
seeds) and the cells that hit the ceiling while dev still improved ("under-trained"), then the line ``max |default − 4x|: N pts``. A cell converged when
``|default − 4x| <= max(1.0 pt, pooled seed std)``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table

from advisor.grid import profiles
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import load_analysis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_layers import DATA, DATASETS  # the datasets table, kept once

#: Datasets beyond bench_layers' table (SUBJ has no test split: the tool's seeded 10 % split).
EXTRA = {"subj": {"task": "classify", "data": "subj/subj.all", "dev": None, "test": None}}
TOLERANCE_PTS = 1.0


def settings_for(name: str, args: argparse.Namespace, budget: str) -> RunSettings:
    spec = {**DATASETS, **EXTRA}[name]
    store = args.out / name / budget
    store.mkdir(parents=True, exist_ok=True)
    profile = profiles.get(args.profile)
    scale = 4 if budget == "4x" else 1
    return RunSettings(
        data=str(args.data / str(spec["data"])),
        task=str(spec["task"]),
        dev=str(args.data / str(spec["dev"])) if spec["dev"] else None,
        test=str(args.data / str(spec["test"])) if spec["test"] else None,
        embeddings=args.embeddings,
        profile=args.profile,
        max_steps=profile.max_steps * scale,
        patience=profile.patience * (2 if scale > 1 else 1),
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        experiment=f"convergence-{name}-{budget}",
        cache_dir=str(args.out / "cache"),
        difficulty=False,
        workers=args.workers,
    )


def run_curves(settings: RunSettings) -> tuple[pd.DataFrame, float]:
    """The cells of one analysis (score, steps, under_trained per embedding/size/seed) and its wall time."""
    started = time.perf_counter()
    outcome = run_analysis(settings)
    seconds = time.perf_counter() - started
    curves = load_analysis(outcome.run_id, outcome.tracking_uri).curves
    return curves, seconds


def _summary(curves: pd.DataFrame) -> pd.DataFrame:
    grouped = curves.groupby(["embedding", "size"])
    return pd.DataFrame(
        {
            "mean": grouped["score"].mean() * 100,
            "std": grouped["score"].std(ddof=1).fillna(0.0) * 100,
            "steps": grouped["steps"].median(),
            "under": grouped["under_trained"].sum(),
            "seeds": grouped["score"].size(),
        }
    )


def compare(default: pd.DataFrame, larger: pd.DataFrame) -> pd.DataFrame:
    """One row per (family, size): both budgets, the difference, the pooled seed std, converged or not."""
    a, b = _summary(default), _summary(larger)
    rows = a.add_suffix("_default").join(b.add_suffix("_4x"), how="inner")
    rows["diff"] = rows["mean_default"] - rows["mean_4x"]
    rows["pooled_std"] = ((rows["std_default"] ** 2 + rows["std_4x"] ** 2) / 2) ** 0.5
    rows["converged"] = rows["diff"].abs() <= rows["pooled_std"].clip(lower=TOLERANCE_PTS)
    return rows.reset_index()


def _table(name: str, rows: pd.DataFrame, seconds: dict[str, float]) -> Table:
    title = f"{name}: default budget vs 4x (ceiling x 4, patience x 2); score x 100, mean ± seed std"
    table = Table(title=title)
    for column in (
        "family",
        "size",
        "default",
        "4x",
        "diff",
        "seed std",
        "steps def/4x",
        "under-trained",
        "ok",
    ):
        table.add_column(column, justify="left" if column == "family" else "right")
    for r in rows.itertuples():
        table.add_row(
            r.embedding,
            f"{r.size:,}",
            f"{r.mean_default:.1f} ± {r.std_default:.1f}",
            f"{r.mean_4x:.1f} ± {r.std_4x:.1f}",
            f"{r.diff:+.1f}",
            f"{r.pooled_std:.1f}",
            f"{r.steps_default:,.0f} / {r.steps_4x:,.0f}",
            f"{r.under_default:.0f} / {r.under_4x:.0f}",
            "yes" if r.converged else "NO",
        )
    table.caption = f"wall: default {seconds['default']:.0f} s, 4x {seconds['4x']:.0f} s"
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", choices=sorted({*DATASETS, *EXTRA}))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--profile", default="default")
    parser.add_argument(
        "--embeddings", type=lambda s: s.split(","), default=["random", "static", "contextual"]
    )
    parser.add_argument("--out", type=Path, default=Path(".bench/convergence"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    console = Console(width=140)
    worst = 0.0
    for name in args.datasets:
        curves, seconds = {}, {}
        for budget in ("default", "4x"):
            curves[budget], seconds[budget] = run_curves(settings_for(name, args, budget))
        rows = compare(curves["default"], curves["4x"])
        console.print(_table(name, rows, seconds))
        worst = max(worst, float(rows["diff"].abs().max()))
        failing = rows[~rows["converged"]]
        console.print(f"{name}: {len(rows) - len(failing)} of {len(rows)} (family, size) converged")
    load = os.getloadavg()[0]
    console.print(f"max |default − 4x|: {worst:.1f} pts  (load average {load:.2f}, {os.cpu_count()} cores)")
    if not math.isfinite(worst):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
