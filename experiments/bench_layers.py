"""Benchmark (issue 11): how the contextual layer reading changes the full-data score and the verdict.

    nice -n 5 python experiments/bench_layers.py [--datasets wnut17,trec] [--layers last,mean-last-4,mix]
        [--embeddings random,static,contextual] [--profile default] [--out DIR]

For each dataset and each ``--layer`` it runs ``advisor run`` (default profile, the packaged MiniLM,
GloVe 50-d and random) in its own MLflow store under ``--out`` (the feature cache is shared, so
the encoder runs once per dataset: every layer choice reads the same all-layer cache) and prints
the full-data score of contextual (mean over seeds with its t-interval), its gap to static with the
verdict's interval, the verdict, and for ``mix`` the largest learned layer weights.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from advisor.runner import RunSettings, run_analysis

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

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
    contextual: str
    static: str
    gap: str
    verdict: str
    weights: str
    minutes: float


def _interval(mean: float, lo: float, hi: float) -> str:
    return f"{100 * mean:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _one(name: str, layer: str, args: argparse.Namespace) -> Row:
    """One ``advisor run`` and the numbers the table shows."""
    from advisor.contextuality import mix_weight_summary
    from advisor.tracking import load_analysis
    from advisor.verdict import curve_summary, recommend

    spec = DATASETS[name]
    started = time.perf_counter()
    store = args.out / f"{name}-{layer}"
    store.mkdir(parents=True, exist_ok=True)
    settings = RunSettings(
        data=str(args.data / str(spec["data"])),
        task=str(spec["task"]),
        dev=str(args.data / str(spec["dev"])) if spec["dev"] else None,
        test=str(args.data / str(spec["test"])),
        embeddings=args.embeddings,
        profile=args.profile,
        layer=layer,
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        cache_dir=str(args.out / "cache"),
        difficulty=args.difficulty,
        workers=args.workers,
    )
    outcome = run_analysis(settings)
    analysis = load_analysis(outcome.run_id, outcome.tracking_uri)
    rec = recommend(analysis)
    summary = curve_summary(analysis)
    full = summary[summary["size"] == analysis.full_size].set_index("embedding")

    def score(embedding: str) -> str:
        if embedding not in full.index:
            return "–"
        row = full.loc[embedding]
        return _interval(row["mean"], row["lo"], row["hi"])

    gap = rec.gap("contextual-static")
    weights = mix_weight_summary(analysis)
    top = "" if weights is None else ", ".join(f"L{k}:{v:.2f}" for k, v in weights.nlargest(3).items())
    return Row(
        dataset=name,
        layer=layer,
        contextual=score("contextual"),
        static=score("static"),
        gap="–" if gap is None else f"{100 * gap.gap:+.1f} [{100 * gap.lo:+.1f}, {100 * gap.hi:+.1f}]",
        verdict=rec.verdict,
        weights=top,
        minutes=(time.perf_counter() - started) / 60,
    )


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
        "--difficulty", action="store_true", help="also run the difficulty analysis and gain model"
    )
    args = parser.parse_args()
    args.embeddings = args.embeddings.split(",")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    console = Console(width=200)
    rows = []
    for name in args.datasets.split(","):
        for layer in args.layers.split(","):
            rows.append(_one(name, layer, args))
            r = rows[-1]
            console.print(
                f"{r.dataset} --layer {r.layer}: contextual {r.contextual}, static {r.static}, "
                f"gap {r.gap}, verdict {r.verdict} {r.weights} ({r.minutes:.1f} min)"
            )
    table = Table(title=f"full-data scores × 100, mean [95 % t-interval over seeds]; profile {args.profile}")
    for column in (
        "dataset",
        "--layer",
        "contextual",
        "static",
        "contextual − static [CI]",
        "verdict",
        "top mix weights",
        "min",
    ):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r.dataset, r.layer, r.contextual, r.static, r.gap, r.verdict, r.weights, f"{r.minutes:.1f}"
        )
    console.print(table)


if __name__ == "__main__":
    main()
