"""Benchmark the contextual featurizer against a bare Hugging Face forward pass over the same batches.

Usage: python experiments/bench_features.py [CONLL_PATH] [--model DIR] [--batch-size N] [--limit N]

Prints words/s for (a) bare ``AutoModel`` forward on length-sorted, padded batches of the same
sentences (tokenization included, no pooling, nothing written), (b) our ``featurize`` without the
cache, (c) with a cold cache (compute + write), then the time of a pure cache write of the same
vectors, a cache-hit read (touching every row), and the peak RSS after each phase.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

DEFAULT_PATH = "/work/shared/data/wnut17/wnut17train.conll"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_tokens(path: str) -> list[list[str]]:
    """The project's reader when present, else a minimal 2-column CoNLL parser (words only)."""
    try:
        from advisor.data import read_corpus

        return read_corpus(path, task="ner")[0].tokens
    except ImportError:
        sentences, current = [], []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                current.append(line.split("\t")[0].split(" ")[0])
            elif current:
                sentences.append(current)
                current = []
        return [*sentences, current] if current else sentences


class Clock:
    """Wall and process-CPU seconds: on a shared machine CPU time is the steadier measure of work."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def bare_forward(model_dir: str, tokens: list[list[str]], batch_size: int, dtype: str = "float32") -> Clock:
    """Tokenizer + length-sorted batched forward, the floor any featurizer pays."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, dtype=getattr(torch, dtype)).eval()
    with Clock() as clock:
        enc = tokenizer([s for s in tokens if s], is_split_into_words=True, truncation=True)
        order = sorted(range(len(enc["input_ids"])), key=lambda i: len(enc["input_ids"][i]), reverse=True)
        with torch.inference_mode():
            for first in range(0, len(order), batch_size):
                batch = [enc["input_ids"][i] for i in order[first : first + batch_size]]
                padded = tokenizer.pad({"input_ids": batch}, return_tensors="pt")
                model(input_ids=padded["input_ids"], attention_mask=padded["attention_mask"])
    return clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=DEFAULT_PATH)
    parser.add_argument("--model", default=None, help="HF model dir or hub id (default: packaged MiniLM)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--limit", type=int, default=0, help="first N sentences only (0 = all)")
    args = parser.parse_args()

    import torch

    from advisor.data import Corpus
    from advisor.embeddings import FeatureCache, default_encoder, make_embedding

    tokens = read_tokens(args.path)
    if args.limit:
        tokens = tokens[: args.limit]
    corpus = Corpus(task="ner", tokens=tokens, labels=[["O"] * len(s) for s in tokens])
    n_words = corpus.n_tokens
    model_dir = args.model or default_encoder()
    options = {"model": model_dir, "batch_size": args.batch_size, "dtype": args.dtype}
    print(f"{args.path}: {len(corpus)} sentences, {n_words} words; model {model_dir}")
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch size {args.batch_size}, {args.dtype}"
    )

    rows: list[tuple[str, Clock, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        # Warm up both code paths (weights paged in, kernels chosen) on a few sentences.
        make_embedding("contextual", use_cache=False, **options).featurize(
            corpus.subset(range(min(64, len(corpus))))
        )
        bare_forward(model_dir, tokens[:64], args.batch_size, args.dtype)

        bare = bare_forward(model_dir, tokens, args.batch_size, args.dtype)
        rows.append(("bare HF tokenize + forward", bare, f"{n_words / bare.wall:,.0f} words/s"))
        rss_bare = peak_rss_mb()

        emb = make_embedding("contextual", use_cache=False, **options)
        emb.featurize(corpus.subset(range(min(8, len(corpus)))))  # load the model outside the timing
        with Clock() as ours:
            plain = emb.featurize(corpus)
        speed = f"{n_words / ours.wall:,.0f} words/s, {bare.wall / ours.wall:.2f}x bare (CPU {bare.cpu / ours.cpu:.2f}x)"
        rows.append(("ours, no cache", ours, speed))

        cached_emb = make_embedding("contextual", cache_dir=tmp, **options)
        cached_emb.featurize(corpus.subset(range(min(8, len(corpus)))))
        with Clock() as cold:
            cached_emb.featurize(corpus)
        speed = f"{n_words / cold.wall:,.0f} words/s, {bare.wall / cold.wall:.2f}x bare (CPU {bare.cpu / cold.cpu:.2f}x)"
        rows.append(("ours, cold cache (compute + write)", cold, speed))

        cache = FeatureCache(Path(tmp) / "write-only")
        with Clock() as write, cache.writer("bench", plain.offsets, plain.dim, {}) as writer:
            for first in range(0, len(plain.vectors), 8192):
                writer.vectors[first : first + 8192] = plain.vectors[first : first + 8192]
            writer.commit()
        rows.append(("cache write only", write, f"{plain.vectors.nbytes / 2**20:.1f} MB float16"))

        reader = make_embedding("contextual", cache_dir=tmp, **options)
        with Clock() as read:
            hit = reader.featurize(corpus)
            checksum = float(np.asarray(hit.vectors, dtype=np.float32).sum())  # touch every row
        assert reader.last_cache_hit and reader.forward_calls == 0
        rows.append(("cache read (hit, every row touched)", read, f"checksum {checksum:.1f}"))
        max_diff = float(
            np.abs(np.asarray(hit.vectors, np.float32) - np.asarray(plain.vectors, np.float32)).max()
        )

    width = max(len(r[0]) for r in rows)
    print(f"\n{'phase':<{width}}  {'wall s':>7}  {'CPU s':>7}  notes")
    for name, clock, note in rows:
        print(f"{name:<{width}}  {clock.wall:7.2f}  {clock.cpu:7.2f}  {note}")
    print(f"\npeak RSS after bare forward: {rss_bare:,.0f} MB; at the end: {peak_rss_mb():,.0f} MB")
    print(f"max |cached - uncached| = {max_diff:.4f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
