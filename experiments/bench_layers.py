"""Benchmark (issue 11): how the contextual layer reading changes the full-data score and the verdict.

    nice -n 5 python experiments/bench_layers.py [--datasets wnut17,trec] [--layers last,mean-last-4,mix]
        [--embeddings random,static,contextual] [--profile default] [--out DIR] [--retrain-baselines]

For each dataset and each ``--layer`` it runs ``advisor run`` (default profile, the packaged MiniLM,
GloVe 50-d and random) in its own MLflow store under ``--out`` (the feature cache is shared, so the
encoder runs once per dataset: every layer choice reads the same all-layer cache) and prints the
full-data score of every family (mean over seeds with its t-interval), contextual's gap to static
with the verdict's interval, the verdict, and for ``mix`` the largest learned layer weights.

Random and static do not read the encoder's layers, but ``--layer`` is part of a run's resume key,
so a separate ``advisor run`` per layer would train them again, identically (same seeds, subsets,
random tables and training settings). Instead they are trained once per dataset, in the first
layer's run; the other layers' runs train contextual only, and their verdict is computed on that
run's contextual cells joined with the first run's random and static cells (curves, costs and the
per-item counts the bootstrap resamples): the same inputs a full run would give the verdict.
``--retrain-baselines`` runs every layer with every family instead (and ``--difficulty`` implies
it, since the difficulty slices are computed inside a run).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

from advisor.analysis import Analysis
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.stats import ItemScores

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
LAYERED = "contextual"  # the only family whose features depend on --layer

#: train / dev / test files and task of each benchmark dataset (TREC has no dev: a seeded 10 % split).
DATASETS: dict[str, dict[str, str | None]] = {
    "wnut17": {
        "task": "ner",
        "data": "wnut17/wnut17train.conll",
        "dev": "wnut17/emerging.dev.conll",
        "test": "wnut17/emerging.test.annotated",
    },
    "trec": {"task": "classify", "data": "trec/TREC.train.all", "dev": None, "test": "trec/TREC.test.all"},
}


@dataclass
class Row:
    dataset: str
    layer: str
    scores: dict[str, str]
    gap: str
    verdict: str
    weights: str
    baselines: str
    minutes: float


def _interval(mean: float, lo: float, hi: float) -> str:
    return f"{100 * mean:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _select_item_scores(scores: ItemScores | None, keep: bool) -> tuple[list, np.ndarray] | None:
    """The keys and counts of the contextual cells (``keep``) or of the others."""
    if scores is None:
        return None
    chosen = [c for c, key in enumerate(scores.keys) if (key[0] == LAYERED) == keep]
    return [scores.keys[c] for c in chosen], scores.counts[chosen]


def with_baselines(analysis: Analysis, reference: Analysis) -> Analysis:
    """``analysis``'s contextual cells joined with ``reference``'s other cells: one analysis to judge.

    Both runs must share the data, sizes and seeds (only ``--layer`` and the family list differ);
    the difficulty tables are dropped, since they are computed per run.
    """
    for what in ("content_hash", "n_train", "n_test"):
        if analysis.dataset.get(what) != reference.dataset.get(what):
            raise ValueError(f"the runs differ in {what}: their cells cannot be joined")
    for what in ("sizes", "seeds", "train_config"):
        if str(analysis.params.get(what)) != str(reference.params.get(what)):
            raise ValueError(f"the runs differ in {what}: their cells cannot be joined")
    curves = pd.concat(
        [
            analysis.curves[analysis.curves["embedding"] == LAYERED],
            reference.curves[reference.curves["embedding"] != LAYERED],
        ],
        ignore_index=True,
    )
    embeddings = pd.concat(
        [
            analysis.embeddings[analysis.embeddings["embedding"] == LAYERED],
            reference.embeddings[reference.embeddings["embedding"] != LAYERED],
        ],
        ignore_index=True,
    )
    item_scores = None
    own, other = (
        _select_item_scores(analysis.item_scores, True),
        _select_item_scores(reference.item_scores, False),
    )
    if own is not None and other is not None:
        item_scores = ItemScores(
            analysis.item_scores.measure, own[0] + other[0], np.concatenate([own[1], other[1]])
        )
    return dataclasses.replace(
        analysis, curves=curves, embeddings=embeddings, item_scores=item_scores, slices=None, items=None
    )


def _settings(name: str, layer: str, embeddings: list[str], args: argparse.Namespace) -> RunSettings:
    spec = DATASETS[name]
    store = args.out / f"{name}-{layer}"
    store.mkdir(parents=True, exist_ok=True)
    return RunSettings(
        data=str(args.data / str(spec["data"])),
        task=str(spec["task"]),
        dev=str(args.data / str(spec["dev"])) if spec["dev"] else None,
        test=str(args.data / str(spec["test"])),
        embeddings=embeddings,
        profile=args.profile,
        layer=layer,
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        cache_dir=str(args.out / "cache"),
        difficulty=args.difficulty,
        workers=args.workers,
    )


def _run(name: str, layer: str, embeddings: list[str], args: argparse.Namespace) -> Analysis:
    from advisor.tracking import load_analysis

    outcome = run_analysis(_settings(name, layer, embeddings, args))
    return load_analysis(outcome.run_id, outcome.tracking_uri)


def _row(name: str, layer: str, analysis: Analysis, baselines: str, minutes: float) -> Row:
    """The numbers the table shows, from one (possibly joined) analysis."""
    from advisor.contextuality import mix_weight_summary
    from advisor.verdict import curve_summary, recommend

    rec = recommend(analysis)
    summary = curve_summary(analysis)
    full = summary[summary["size"] == analysis.full_size].set_index("embedding")
    scores = {
        e: _interval(full.loc[e, "mean"], full.loc[e, "lo"], full.loc[e, "hi"]) if e in full.index else "–"
        for e in ("contextual", "static", "random")
    }
    gap = rec.gap("contextual-static")
    weights = mix_weight_summary(analysis)
    top = "" if weights is None else ", ".join(f"L{k}:{v:.2f}" for k, v in weights.nlargest(3).items())
    return Row(
        dataset=name,
        layer=layer,
        scores=scores,
        gap="–" if gap is None else f"{100 * gap.gap:+.1f} [{100 * gap.lo:+.1f}, {100 * gap.hi:+.1f}]",
        verdict=rec.verdict,
        weights=top,
        baselines=baselines,
        minutes=minutes,
    )


def bench_dataset(name: str, args: argparse.Namespace, console: Console) -> list[Row]:
    """Every layer on one dataset; random and static trained in the first layer's run only (unless asked)."""
    share = LAYERED in args.embeddings and not (args.retrain_baselines or args.difficulty)
    only_layered = [LAYERED] if share else args.embeddings
    rows, reference = [], None
    for i, layer in enumerate(args.layers):
        started = time.perf_counter()
        analysis = _run(name, layer, args.embeddings if i == 0 else only_layered, args)
        baselines = "trained in this run"
        if i == 0:
            reference = analysis
        elif share and reference is not None:
            analysis = with_baselines(analysis, reference)
            baselines = f"from the --layer {args.layers[0]} run"
        rows.append(_row(name, layer, analysis, baselines, (time.perf_counter() - started) / 60))
        r = rows[-1]
        console.print(
            f"{r.dataset} --layer {r.layer}: contextual {r.scores['contextual']}, static {r.scores['static']}, "
            f"random {r.scores['random']}, gap {r.gap}, verdict {r.verdict} {r.weights} "
            f"(baselines {r.baselines}; {r.minutes:.1f} min; load {os.getloadavg()[0]:.1f})"
        )
    return rows


def print_table(rows: list[Row], profile: str, console: Console) -> None:
    table = Table(
        title=f"full-data scores × 100, mean [95 % t-interval over seeds]; gap with the verdict's "
        f"bootstrap interval; profile {profile}"
    )
    columns = ("dataset", "--layer", "contextual", "static", "random", "contextual − static [CI]")
    for column in (*columns, "verdict", "top mix weights", "random/static", "min"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r.dataset,
            r.layer,
            r.scores["contextual"],
            r.scores["static"],
            r.scores["random"],
            r.gap,
            r.verdict,
            r.weights,
            r.baselines,
            f"{r.minutes:.1f}",
        )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="wnut17,trec")
    parser.add_argument("--layers", default="last,mean-last-4,mix")
    parser.add_argument("--embeddings", default="random,static,contextual")
    parser.add_argument("--profile", default="default")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_layers"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument(
        "--retrain-baselines",
        action="store_true",
        help="train random and static in every layer's run (default: once per dataset, joined to the others)",
    )
    parser.add_argument(
        "--difficulty", action="store_true", help="also run the difficulty analysis and gain model"
    )
    args = parser.parse_args()
    args.embeddings = args.embeddings.split(",")
    args.layers = args.layers.split(",")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    console = Console(width=220)
    rows = [row for name in args.datasets.split(",") for row in bench_dataset(name, args, console)]
    print_table(rows, args.profile, console)


if __name__ == "__main__":
    interruptible(main)
