"""Benchmark (issue 31): does ``--until decided`` give the verdict of the whole grid, and how much sooner?

    nice -n 5 python experiments/bench_sequential.py wnut17 trec subj mrpc [--profile default]
        [--embeddings random,static,contextual] [--out DIR] [--workers 2]

For each dataset two ``advisor run`` analyses of the profile's grid: ``--until complete`` and
``--until decided``. They share nothing: each has its own MLflow store and its own cache root (features,
recorded speeds), so ``decided`` reuses no feature, learning rate or cell of ``complete`` and pays
its encoder pass too. The order alternates (the first dataset runs ``complete`` first, the second
``decided`` first, …) so a warming machine (page cache, CPU clocks, other jobs) does not favour one
mode; the table states the order of each row.

One row per dataset: the ``complete`` verdict, its cells and wall time; the ``decided`` verdict, the
cells it ran of those planned and its wall time, its share of ``complete``'s wall time, and the time
from the start of the run to its first early verdict (``RunOutcome.timings["first_early_verdict"]``,
recorded when the verdict is printed) and where it went (the encoder pass, the learning-rate trials,
the rest: reading and the first round); whether both verdicts agree. The issue's targets: the same
verdict on every dataset; ``decided`` at most 40 % of ``complete``'s wall time where the decision is
clear; the first early verdict within 2 minutes on the classification sets on 2 cores.

A dataset that the checks ``advisor run`` makes first refuse (a missing file, say: point ``--data`` at
the shared data) is skipped with a line saying why, before any run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table

from advisor.data import read_splits
from advisor.errors import AdvisorError
from advisor.runner import RunOutcome, run_analysis
from advisor.settings import RunSettings
from advisor.validate import validate_settings
from advisor.verdict import recommend, render

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from bench_conll_size import featurize_seconds  # the featurize.* timings summed, kept once
from bench_layers import DATA  # the shared data folder, kept once
from bench_layers import DATASETS as LAYER_DATASETS

#: Train / dev / test files and task of each dataset (no dev: a seeded split of train; MRPC's GLUE test
#: has no labels, so its dev file is the test set).
DATASETS: dict[str, dict[str, str | None]] = {
    **LAYER_DATASETS,
    "subj": {"task": "classify", "data": "subj/subj.all", "dev": None, "test": None},
    "mrpc": {"task": "pair", "data": "mrpc/train.tsv", "dev": None, "test": "mrpc/dev.tsv"},
}
MODES = ("complete", "decided")
COLUMNS = [
    "dataset",
    "order",
    "complete verdict",
    "complete cells",
    "complete s",
    "decided verdict",
    "decided cells",
    "decided s",
    "decided / complete",
    "first early verdict s",
    "before it: featurize / tune / rest s",
    "same verdict",
]


@dataclass
class Mode:
    """One analysis of a dataset: its verdict, the cells it trained of those planned, its wall time."""

    verdict: str
    cells: int
    planned: int
    seconds: float
    first_early: float
    before_first: str  # where the time to the first early verdict went


def settings_for(name: str, until: str, args: argparse.Namespace) -> RunSettings:
    """The dataset's run in mode ``until``, with a store and a cache root of its own."""
    spec, folder = DATASETS[name], args.out / name / until

    def path(key: str) -> str | None:
        return str(args.data / str(spec[key])) if spec[key] else None

    return RunSettings(
        data=str(path("data")),
        task=str(spec["task"]),
        dev=path("dev"),
        test=path("test"),
        embeddings=args.embeddings,
        profile=args.profile,
        until=until,
        tracking_uri=f"sqlite:///{folder}/mlflow.db",
        experiment=f"sequential-{name}-{until}",
        cache_dir=str(folder / "cache"),
        difficulty=False,
        workers=args.workers,
        contextual=args.contextual,
        static=args.static,
        max_steps=args.max_steps,
        lr=args.lr,
        device="cpu",
    )


def unsupported(name: str, args: argparse.Namespace) -> str | None:
    """Why ``name`` cannot run in this checkout (its task, options or files refused), or None."""
    settings = settings_for(name, MODES[0], args)
    try:
        validate_settings(settings)
        s = settings
        read_splits(s.data, s.task, dev=s.dev, test=s.test, seed=s.split_seed)
    except (AdvisorError, NotImplementedError) as error:
        return f"{getattr(error, 'message', None) or error}"
    return None


def run_mode(name: str, until: str, args: argparse.Namespace) -> Mode:
    """Run one mode from an empty store and read its verdict off the analysis it returns."""
    settings = settings_for(name, until, args)
    (args.out / name / until).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    outcome: RunOutcome = run_analysis(settings)
    seconds = time.perf_counter() - started
    assert outcome.analysis is not None, "a run from an empty store analyses what it trained"
    verdict = render(recommend(outcome.analysis)).verdict
    planned = len(outcome.computed) + _not_run(outcome)  # an empty store: every cell was computed
    first = outcome.timings.get("first_early_verdict", math.nan)
    return Mode(verdict, len(outcome.computed), planned, seconds, first, before_first(outcome.timings))


def before_first(timings: dict[str, float]) -> str:
    """ "featurize / tune / rest" seconds of the time to the first early verdict: the encoder pass (every
    family's features), the learning-rate trials, and the rest (reading, the first round, the look).
    Empty when no early verdict was printed."""
    first = timings.get("first_early_verdict")
    if first is None:
        return ""
    featurize = featurize_seconds(timings)
    tune = timings.get("tune", 0.0)
    return f"{featurize:.0f} / {tune:.0f} / {first - featurize - tune:.0f}"


def _not_run(outcome: RunOutcome) -> int:
    """The cells a settled stop left out (``params["early_stop"]``, JSON), 0 for a complete run."""
    assert outcome.analysis is not None
    stop = outcome.analysis.params.get("early_stop")
    return len(json.loads(stop)["not_run"]) if stop else 0


def bench(name: str, index: int, args: argparse.Namespace) -> dict[str, object]:
    """Both modes of one dataset, in the order its position gives; the table's row."""
    order = MODES if index % 2 == 0 else MODES[::-1]
    done = {until: run_mode(name, until, args) for until in order}
    full, early = done["complete"], done["decided"]
    return {
        "dataset": name,
        "order": " then ".join(order),
        "complete verdict": full.verdict,
        "complete cells": full.cells,
        "complete s": round(full.seconds, 1),
        "decided verdict": early.verdict,
        "decided cells": f"{early.cells} of {early.planned}",
        "decided s": round(early.seconds, 1),
        "decided / complete": round(early.seconds / full.seconds, 2) if full.seconds else math.nan,
        "first early verdict s": round(early.first_early, 1),
        "before it: featurize / tune / rest s": early.before_first,
        "same verdict": "yes" if full.verdict == early.verdict else "NO",
    }


def table(rows: pd.DataFrame) -> Table:
    """The rows as a Rich table, one column per :data:`COLUMNS`."""
    shown = Table(title="--until decided against --until complete (separate stores, order per row)")
    for column in COLUMNS:
        shown.add_column(
            column, justify="left" if "verdict" in column or column in ("dataset", "order") else "right"
        )
    for row in rows.itertuples(index=False):
        shown.add_row(*(str(v) for v in row))
    return shown


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", help=f"any of: {', '.join(DATASETS)}")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--profile", default="default")
    parser.add_argument(
        "--embeddings", type=lambda text: text.split(","), default=["random", "static", "contextual"]
    )
    parser.add_argument("--out", type=Path, default=Path(".bench/sequential"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--contextual", default=None, help="encoder (default: the packaged one)")
    parser.add_argument("--static", default=None, help="vectors file (default: the packaged one)")
    parser.add_argument("--max-steps", type=int, default=None, help="default: the profile's")
    parser.add_argument("--lr", type=float, default=None, help="default: chosen on dev per family")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, console: Console | None = None) -> pd.DataFrame:
    """Run the benchmark; print and return the table (also written to ``--out``/sequential.csv)."""
    args = parse_args(argv)
    console = console or Console(width=200)
    rows = []
    for name in args.datasets:
        if name not in DATASETS:
            console.print(f"skip {name}: not a known dataset (known: {', '.join(DATASETS)})")
            continue
        why = unsupported(name, args)
        if why is not None:
            console.print(f"skip {name} (task {DATASETS[name]['task']}): refused before any run: {why}")
            continue
        rows.append(bench(name, len(rows), args))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    console.print(table(frame))
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "sequential.csv", index=False)
    return frame


if __name__ == "__main__":
    interruptible(main)
