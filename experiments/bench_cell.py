"""Benchmark (issue 17): the CPU cost of one full-size cell of the CoNLL-size proxy, optionally profiled.

    python experiments/bench_cell.py [--embedding contextual] [--size 14041] [--seed 0] [--profile-html out.html]

Builds the proxy of ``bench_conll_size.py`` (14,041 / 3,250 / 3,453 WNUT-17 sentences made distinct),
featurizes it with one embedding exactly as ``advisor run`` does (default-profile options; contextual
features go through the on-disk cache, so a second call skips the encoder), then trains one cell with
the default profile's training settings and one torch thread, as a worker does (train rows are read
from the shared features per batch; ``--copy`` copies the subset first, as cells did before). Prints the cell's
process CPU time (user + sys, robust to a shared machine), wall time with the load average, epochs,
seconds per epoch, dev and test score. With ``--profile-html`` the cell runs under pyinstrument, sampling on
CPU time, and the text summary is printed too.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from bench_conll_size import DEFAULT_DATA, write_proxy


def featurize(name: str, splits, cache_dir: str, random_dim: int, seed: int):
    """Train / dev / test features of ``name`` with ``advisor run``'s default options."""
    from advisor.embeddings import make_embedding

    options: dict = {}
    if name == "contextual":
        options = {"layer": "mix", "pooling": "first", "device": "cpu", "cache_dir": cache_dir}
    elif name == "random":
        options = {"dim": random_dim, "seed": seed}
    embedding = make_embedding(name, **options)
    embedding.fit(splits.train)
    return [embedding.featurize(part) for part in (splits.train, splits.dev, splits.test)]


def train_cell(feats, splits, size: int, seed: int, profile_html: str | None, copy: bool = False):
    """One cell as a worker trains it: subset of the train split in the grid's seeded order."""
    import torch

    from advisor.grid import profiles, subset_indices, subset_order
    from trainers import TrainConfig, fit_and_evaluate

    torch.set_num_threads(1)
    profile = profiles.get("default")
    config = TrainConfig(
        max_steps=profile.max_steps,
        min_steps=profile.min_steps,
        patience=profile.patience,
        device="cpu",
        seed=seed,
    )
    idx = subset_indices(subset_order(splits.train, seed), size)
    train = feats[0].subset(idx) if copy else feats[0]
    args = (train, splits.train.subset(idx), feats[1], splits.dev, feats[2], splits.test, config)
    options = {} if copy else {"train_items": idx}
    profiler = None
    if profile_html:
        from pyinstrument import Profiler
        from pyinstrument.stack_sampler import get_stack_sampler

        # Sample on CPU time (one torch thread: thread CPU = process CPU), so a loaded machine does not
        # inflate whatever was waiting for a core.
        get_stack_sampler().timer_func = time.thread_time
        profiler = Profiler(interval=0.005)
        profiler.start()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = fit_and_evaluate(*args, **options)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if profiler is not None:
        profiler.stop()
        Path(profile_html).write_text(profiler.output_html(), encoding="utf-8")
        print(profiler.output_text(unicode=False, color=False, show_all=False))
    return result, cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedding", default="contextual", choices=["random", "static", "contextual"])
    parser.add_argument("--size", type=int, default=14_041)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-dim", type=int, default=800)
    parser.add_argument(
        "--cache-dir", default=os.environ.get("ADVISOR_CACHE_DIR", "/tmp/advisor-bench-cache")
    )
    parser.add_argument("--profile-html", default=None)
    parser.add_argument("--copy", action="store_true", help="copy the subset's rows (as before issue 17)")
    args = parser.parse_args()
    from advisor.data import read_splits

    with tempfile.TemporaryDirectory() as tmp:
        paths = write_proxy(args.data_dir, Path(tmp))
        splits = read_splits(paths["train"], "ner", dev=paths["dev"], test=paths["test"])
        t0 = time.perf_counter()
        feats = featurize(args.embedding, splits, args.cache_dir, args.random_dim, args.seed)
        print(
            f"featurized {args.embedding} in {time.perf_counter() - t0:.1f} s; shape {feats[0].vectors.shape}"
        )
        result, cpu, wall = train_cell(feats, splits, args.size, args.seed, args.profile_html, args.copy)
    print(
        f"cell {args.embedding}/{args.size}/{args.seed}: CPU {cpu:.1f} s, wall {wall:.1f} s "
        f"(load {os.getloadavg()[0]:.2f}), steps {result.steps} (best {result.best_step}, stopped by "
        f"{result.stopped_by}), train {result.train_seconds:.1f} s "
        f"({1000 * result.train_seconds / result.steps:.1f} ms/step), dev {result.dev_score:.4f}, "
        f"test {result.score:.6f}"
    )


if __name__ == "__main__":
    interruptible(main)
