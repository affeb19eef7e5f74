"""Benchmark (issue 17): advisor vs flair 0.15 on the same grid, same data, same vectors, one invocation.

    python experiments/bench_peers.py [--data-dir ../shared/data/wnut17] [--profile default]
                                      [--layer last] [--flair-python PATH]

flair is the closest peer (swap embeddings on a CoNLL file, train a BiLSTM tagger). It pins
transformers < 5, so it runs in its own virtualenv (created on first use under ``.bench/flair-venv``
with ``torch==2.13.0`` and ``flair==0.15.1``; never a dependency of the project) through
``experiments/flair_peer.py``.

Both sides get the same grid (the profile's sizes and seeds, advisor's nested subsets written out as
CoNLL files), the same frozen vectors (advisor's GloVe rows and random tables written as word2vec
text, the same local encoder read at the same layers, first sub-word), the same hidden size,
batch size, dropout, no CRF. The training budgets differ by design: advisor trains every cell to
convergence in optimizer steps with each family's learning rate chosen on dev (issue 26); flair runs
its own recipe, Adam at advisor's default rate with ``--flair-epochs`` (10) epochs, annealing on a
dev plateau after ``--flair-patience`` (3) epochs, the budget of the earlier measurements (a flair
budget matched in steps would train a 212-sentence cell for ~1,000 epochs). Differences that remain are
flair's own design: its re-projection is dim → dim (advisor: dim → 64), it re-embeds the
sentences of every cell (advisor featurizes once per embedding and reuses the rows), and it trains
one cell at a time with all cores (advisor: one single-threaded worker per core).

Prints both score tables (F1 × 100, mean ± std over seeds), both wall times and the line
``advisor/flair wall-time ratio: X``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "wnut17"
FLAIR_VENV = ROOT / ".bench" / "flair-venv"
FLAIR_LAYERS = {"last": "-1", "mean-last-4": "-1,-2,-3,-4", "mix": "all"}


def flair_python(explicit: str | None) -> str:
    """A python with flair 0.15.1: the given one, or a venv built once under .bench/ (CPU torch first)."""
    if explicit:
        return explicit
    python = FLAIR_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(FLAIR_VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "torch==2.13.0"], check=True)
        subprocess.run([*pip, "flair==0.15.1", "gensim"], check=True)
    return str(python)


def write_conll(path: Path, tokens: list[list[str]], tags: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for words, labels in zip(tokens, tags, strict=True):
            handle.write("\n".join(f"{w}\t{t}" for w, t in zip(words, labels, strict=True)) + "\n\n")


def write_vectors(path: Path, words: list[str], vectors: np.ndarray) -> None:
    """word2vec text format (header line), the format flair's WordEmbeddings reads through gensim."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write(f"{len(words)} {vectors.shape[1]}\n")
        for word, row in zip(words, vectors, strict=True):
            handle.write(word + " " + " ".join(f"{v:.6g}" for v in row) + "\n")


def word_vectors(embedding: Any, words: list[str]) -> np.ndarray:
    """Rows of a word-level (non-contextual) advisor embedding for ``words``, through its public API."""
    from advisor.data import Corpus

    corpus = Corpus(task="ner", tokens=[[w] for w in words], labels=[["O"] for _ in words])
    return np.asarray(embedding.featurize(corpus).vectors, dtype=np.float32)


def vocabulary(splits: Any) -> list[str]:
    """Every distinct token of train/dev/test without whitespace (word2vec text cannot hold it)."""
    seen = {w for part in (splits.train, splits.dev, splits.test) for s in part.tokens for w in s}
    return sorted(w for w in seen if w and not any(c.isspace() for c in w))


def prepare_flair(splits: Any, plan: Any, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Subset files, vector files and the spec flair_peer.py reads; the same cells as advisor's grid."""
    from advisor.embeddings import make_embedding
    from advisor.embeddings._contextual import default_encoder
    from advisor.grid import profiles, subset_indices, subset_order

    write_conll(folder / "dev.conll", splits.dev.tokens, splits.dev.labels)
    write_conll(folder / "test.conll", splits.test.tokens, splits.test.labels)
    words = vocabulary(splits)
    static = make_embedding("static")
    static.fit(splits.train)
    write_vectors(folder / "static.txt", words, word_vectors(static, words))
    random_files = {}
    for seed in plan.seeds:
        random = make_embedding("random", dim=profiles.get(args.profile).random_dim, seed=seed)
        random.fit(splits.train)
        random_files[str(seed)] = str(folder / f"random_{seed}.txt")
        write_vectors(Path(random_files[str(seed)]), words, word_vectors(random, words))
    cells = []
    for cell in plan.cells:
        name = f"train_{cell.size}_{cell.seed}.conll"
        if not (folder / name).exists():
            idx = subset_indices(subset_order(splits.train, cell.seed), cell.size)
            subset = splits.train.subset(idx)
            write_conll(folder / name, subset.tokens, subset.labels)
        cells.append({"embedding": cell.embedding, "size": cell.size, "seed": cell.seed, "train_file": name})
    return {
        "folder": str(folder),
        "dev_file": "dev.conll",
        "test_file": "test.conll",
        "cells": cells,
        "encoder": default_encoder(),
        "flair_layers": FLAIR_LAYERS.get(args.layer, args.layer),
        "vectors": {"static": str(folder / "static.txt"), "random": random_files},
        "train": args.train_config,
        "threads": os.cpu_count() or 1,
    }


def run_advisor(args: argparse.Namespace, tmp: Path) -> tuple[pd.DataFrame, float]:
    """advisor run with a fresh store and an empty feature cache; per-cell scores read back from MLflow."""
    from advisor.runner import run_analysis
    from advisor.settings import RunSettings
    from advisor.tracking import load_analysis

    settings = RunSettings(
        data=str(args.data_dir / args.train),
        task="ner",
        dev=str(args.data_dir / args.dev),
        test=str(args.data_dir / args.test),
        profile=args.profile,
        sizes=args.sizes,
        seeds=args.seeds,
        layer=args.layer,
        tracking_uri=f"sqlite:///{tmp}/mlflow.db",
        cache_dir=str(tmp / "cache"),
    )
    started = time.perf_counter()
    outcome = run_analysis(settings)
    wall = time.perf_counter() - started
    curves = load_analysis(outcome.run_id, outcome.tracking_uri).curves
    return curves[["embedding", "size", "seed", "score"]], wall


def run_flair(spec: dict[str, Any], python: str, tmp: Path) -> tuple[pd.DataFrame, float]:
    spec_path, results = tmp / "spec.json", tmp / "flair_results.jsonl"
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    script = str(ROOT / "experiments" / "flair_peer.py")
    with (tmp / "flair.log").open("w") as log:  # flair's own per-batch logging: kept out of the table
        done = subprocess.run([python, script, str(spec_path), str(results)], env=env, stdout=log, stderr=log)
    wall = time.perf_counter() - started
    if done.returncode:
        sys.exit(
            f"flair failed (exit {done.returncode}); its log ends:\n{(tmp / 'flair.log').read_text()[-3000:]}"
        )
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return pd.DataFrame(rows)[["embedding", "size", "seed", "score"]], wall


def score_table(title: str, frame: pd.DataFrame) -> Table:
    """F1 × 100 by embedding (rows) and size (columns), mean ± std over seeds."""
    table = Table(title=title)
    sizes = sorted(frame["size"].unique())
    table.add_column("embedding")
    for size in sizes:
        table.add_column(f"{size:,}", justify="right")
    for embedding in [e for e in ("random", "static", "contextual") if e in set(frame["embedding"])]:
        rows = frame[frame["embedding"] == embedding]
        stats = rows.groupby("size")["score"].agg(["mean", "std"])
        cells = [
            f"{100 * stats.loc[s, 'mean']:.1f}±{100 * np.nan_to_num(stats.loc[s, 'std']):.1f}" for s in sizes
        ]
        table.add_row(str(embedding), *cells)
    return table


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--train", default="wnut17train.conll")
    parser.add_argument("--dev", default="emerging.dev.conll")
    parser.add_argument("--test", default="emerging.test.annotated")
    parser.add_argument("--profile", default="default")
    parser.add_argument("--layer", default="last", help="contextual layer(s), the same on both sides")
    parser.add_argument("--flair-python", default=None, help="python of a venv with flair 0.15.1")
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",")], default=None)
    parser.add_argument("--seeds", type=int, default=None, help="seeds per cell (default: the profile's)")
    parser.add_argument("--flair-epochs", type=int, default=10, help="flair's max_epochs (its own recipe)")
    parser.add_argument("--flair-patience", type=int, default=3, help="flair's patience in epochs")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from advisor.data import read_splits
    from advisor.grid import plan_grid, profiles
    from trainers import TrainConfig

    profile = profiles.get(args.profile)
    defaults = TrainConfig()
    args.train_config = {k: getattr(defaults, k) for k in ("hidden", "dropout", "lr", "batch_size")}
    args.train_config |= {"max_epochs": args.flair_epochs, "patience": args.flair_patience}
    data = args.data_dir
    splits = read_splits(str(data / args.train), "ner", dev=str(data / args.dev), test=str(data / args.test))
    plan = plan_grid(
        len(splits.train), ["random", "static", "contextual"], profile, sizes=args.sizes, seeds=args.seeds
    )
    args.sizes = plan.sizes  # both sides train exactly this grid (no downward extension on one side)
    python = flair_python(args.flair_python)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "advisor").mkdir()
        (tmp / "flair").mkdir()
        ours, ours_wall = run_advisor(args, tmp / "advisor")
        spec = prepare_flair(splits, plan, args, tmp / "flair")
        theirs, theirs_wall = run_flair(spec, python, tmp / "flair")
    console = Console()
    console.print(score_table(f"advisor: F1 × 100 ({args.profile}, layer {args.layer})", ours))
    console.print(
        score_table(f"flair 0.15.1: F1 × 100 ({args.profile}, layers {spec['flair_layers']})", theirs)
    )
    print(f"advisor wall: {ours_wall:.0f} s; flair wall: {theirs_wall:.0f} s ({len(plan.cells)} cells each)")
    print(
        f"advisor/flair wall-time ratio: {ours_wall / theirs_wall:.3f} (advisor {theirs_wall / ours_wall:.1f}x faster)"
    )
    print(f"machine: {os.cpu_count()} CPUs; load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    interruptible(main)
