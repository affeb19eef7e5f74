"""Seconds per epoch and full-data scores of every downstream head on WNUT-17 and TREC.

Featurizes each split once per embedding (random, static, contextual: the packaged defaults), then
trains each head (NER: tagger with and without CRF; classification: CNN and BiLSTM) with the
default :class:`~trainers.TrainConfig` (or overrides) and prints one row per run. Wall time on a
shared machine is noisy, so the process CPU time per epoch is printed beside it (with one torch
thread, CPU time ~ wall time on an idle core).

    python experiments/bench_trainers.py                       # both datasets, all embeddings
    python experiments/bench_trainers.py --datasets wnut17 --embeddings random --set hidden=32
"""

from __future__ import annotations

import argparse
import ast
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs

from advisor.data import read_splits
from advisor.embeddings import make_embedding
from trainers import TrainConfig, fit_and_evaluate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DATASETS = {
    "wnut17": {
        "task": "ner",
        "path": "wnut17/wnut17train.conll",
        "dev": "wnut17/emerging.dev.conll",
        "test": "wnut17/emerging.test.annotated",
        "heads": {"bilstm": {"use_crf": False}, "bilstm-crf": {"use_crf": True}},
    },
    "trec": {
        "task": "classify",
        "path": "trec/TREC.train.all",
        "dev": None,  # 10 % stratified dev split of the training file
        "test": "trec/TREC.test.all",
        "heads": {"cnn": {"classifier": "cnn"}, "bilstm": {"classifier": "bilstm"}},
    },
}


def _parse_overrides(items: list[str]) -> dict[str, object]:
    overrides: dict[str, object] = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            overrides[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            overrides[key] = value
    return overrides


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--embeddings", nargs="+", default=["random", "static", "contextual"])
    parser.add_argument("--heads", nargs="+", default=None, help="subset of heads (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--random-dim", type=int, default=800)
    parser.add_argument("--set", nargs="*", default=[], help="TrainConfig overrides, e.g. hidden=32 lr=5e-3")
    args = parser.parse_args()
    overrides = _parse_overrides(args.set)

    header = (
        f"{'dataset':8} {'embedding':10} {'dim':>4} {'head':11} {'seed':>4} {'steps':>5} {'ms/st':>6} "
        f"{'cpu/st':>6} {'train_s':>7} {'ms/item':>7} {'params':>7} {'dev':>6} {'test':>6} metric"
    )
    print(header)
    for name in args.datasets:
        spec = DATASETS[name]
        splits = read_splits(
            args.data / spec["path"],
            spec["task"],
            dev=args.data / spec["dev"] if spec["dev"] else None,
            test=args.data / spec["test"],
        )
        for embedding_name in args.embeddings:
            options = {"dim": args.random_dim} if embedding_name == "random" else {}
            embedding = make_embedding(embedding_name, **options)
            started = time.perf_counter()
            embedding.fit(splits.train)
            feats = [embedding.featurize(c) for c in (splits.train, splits.dev, splits.test)]
            featurize_s = time.perf_counter() - started
            print(f"# {name} {embedding_name}: featurized in {featurize_s:.1f} s, dim {feats[0].dim}")
            for head, head_options in spec["heads"].items():
                if args.heads and head not in args.heads:
                    continue
                for seed in args.seeds:
                    config = TrainConfig(**{**head_options, **overrides, "seed": seed})
                    cpu_started = time.process_time()
                    result = fit_and_evaluate(
                        feats[0], splits.train, feats[1], splits.dev, feats[2], splits.test, config
                    )
                    cpu = time.process_time() - cpu_started
                    print(
                        f"{name:8} {embedding_name:10} {feats[0].dim:>4} {head:11} {seed:>4} "
                        f"{result.steps:>5} {1000 * result.train_seconds / result.steps:>6.1f} "
                        f"{1000 * cpu / result.steps:>6.1f} {result.train_seconds:>7.1f} "
                        f"{result.inference_ms_per_item:>7.2f} {result.n_params:>7} "
                        f"{result.dev_score:>6.3f} {result.score:>6.3f} {result.primary_metric}",
                        flush=True,
                    )


if __name__ == "__main__":
    interruptible(main)
