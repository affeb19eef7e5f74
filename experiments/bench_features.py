"""Benchmark the contextual featurizer against a bare Hugging Face forward pass over the same batches.

Usage: python experiments/bench_features.py [CONLL_PATH] [--model DIR] [--batch-size N] [--limit N]
       python experiments/bench_features.py --memory 10000,30000,100000   # peak memory vs input size

Prints words/s for (a) bare ``AutoModel`` forward on length-sorted, padded batches of the same
sentences (tokenization included, no pooling, nothing written), (b) our ``featurize`` of one layer
without the cache (the single-layer forward), (c) the all-layer cold cache (compute every hidden
layer, pool, write the fp16 stack: what ``advisor run`` does), with its CPU cost relative to (b),
then a pure cache write, a cache-hit read (touching every row), and the peak RSS after each phase.

``--memory`` featurizes N distinct sentences (the input cycled, each made unique) into the
all-layer cache, each N in a fresh process, and prints the peak resident memory the featurize call
added, anonymous (Python and numpy objects, activations) and file-backed (cache pages mapped into the
process) apart: both should stay flat as N grows (sentences are encoded in chunks whose bookkeeping
is freed before the next; vectors stream to disk and written pages are released every 64 MB).
A tiny random BERT with the packaged tokenizer is used there by default, so 100k sentences take
minutes on a CPU: the memory behaviour under test is the featurizer's, not the encoder's
(activations are per batch whatever N is); pass ``--model`` to use a real encoder.
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
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs

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
    parser.add_argument("--memory", default="", help="comma-separated sentence counts: peak-memory mode")
    parser.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--cache", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child, args.path, args.model, args.cache, args.batch_size)
        return
    if args.memory:
        memory_main(args)
        return

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

        emb = make_embedding("contextual", use_cache=False, layer="last", **options)
        emb.featurize(corpus.subset(range(min(8, len(corpus)))))  # load the model outside the timing
        with Clock() as ours:
            plain = emb.featurize(corpus)
        speed = f"{n_words / ours.wall:,.0f} words/s, {bare.wall / ours.wall:.2f}x bare (CPU {bare.cpu / ours.cpu:.2f}x)"
        rows.append(("ours, one layer, no cache (single-layer forward)", ours, speed))

        cached_emb = make_embedding("contextual", cache_dir=tmp, layer="last", **options)
        cached_emb.featurize(corpus.subset(range(min(8, len(corpus)))))
        with Clock() as cold:
            stack = cached_emb.featurize_layers(corpus)
        speed = (
            f"{n_words / cold.wall:,.0f} words/s, {stack.n_layers} layers, "
            f"{stack.vectors.nbytes / 2**20:.1f} MB fp16; CPU {cold.cpu / ours.cpu:.2f}x the single-layer forward"
        )
        rows.append(("ours, all layers, cold cache (compute + write)", cold, speed))
        calls = cached_emb.forward_calls
        with Clock() as view:
            last = cached_emb.featurize(corpus)  # --layer last: a view of the cached stack
        note = f"forward calls during this read: {cached_emb.forward_calls - calls}"
        rows.append(("--layer last from the cached stack", view, note))

        cache = FeatureCache(Path(tmp) / "write-only")
        with Clock() as write, cache.writer("bench", plain.offsets, plain.dim, {}) as writer:
            for first in range(0, len(plain.vectors), 8192):
                writer.vectors[first : first + 8192] = plain.vectors[first : first + 8192]
            writer.commit()
        rows.append(("cache write only", write, f"{plain.vectors.nbytes / 2**20:.1f} MB float16"))

        reader = make_embedding("contextual", cache_dir=tmp, layer="last", **options)
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
    print(
        f"max |cached - uncached| = {max_diff:.4f}; last layer of the stack == --layer last: "
        f"{bool(np.array_equal(np.asarray(last.vectors), np.asarray(stack.vectors[:, -1])))}"
    )
    sys.stdout.flush()


def tiny_encoder(directory: Path) -> str:
    """A 2-layer 64-d random BERT with the packaged MiniLM tokenizer (real word pieces, cheap forward)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from advisor.embeddings import default_encoder

    tokenizer = AutoTokenizer.from_pretrained(default_encoder())
    tokenizer.save_pretrained(directory)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=512,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(directory)
    return str(directory)


def memory_child(n: int, path: str, model: str, cache: str, batch_size: int) -> None:
    """Featurize n distinct sentences into the all-layer cache; print JSON with the memory it added.

    Resident memory has two parts: anonymous (Python objects, arrays, activations: what must stay
    flat) and file-backed (pages of the memory-mapped cache file being written: page cache that the
    kernel writes back and evicts under pressure, and that grows with the file by nature). Both are
    sampled every 50 ms during the call; the high-water mark of the total (VmHWM) is printed too.
    """
    import json
    import threading

    from advisor.data import Corpus
    from advisor.embeddings import make_embedding

    base = read_tokens(path)
    tokens = [[*base[i % len(base)], str(i)] for i in range(n)]  # distinct: nothing is deduplicated
    corpus = Corpus(task="ner", tokens=tokens, labels=[["O"] * len(s) for s in tokens])
    emb = make_embedding("contextual", model=model, cache_dir=cache, batch_size=batch_size)
    emb.featurize_layers(corpus.subset(range(8)))  # model and tokenizer loaded outside the window
    Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark (Linux)
    baseline = {field: _status_mb(field) for field in ("VmRSS", "RssAnon", "RssFile")}
    peaks = dict(baseline)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            for field in peaks:
                peaks[field] = max(peaks[field], _status_mb(field))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with Clock() as clock:
        stack = emb.featurize_layers(corpus)
    done.set()
    sampler.join()
    print(
        json.dumps(
            {
                "sentences": n,
                "words": corpus.n_tokens,
                "layers": stack.n_layers,
                "dim": stack.dim,
                "cache_mb": stack.vectors.nbytes / 2**20,
                "baseline_mb": baseline["VmRSS"],
                "added_peak_mb": _status_mb("VmHWM") - baseline["VmRSS"],
                "added_anon_mb": peaks["RssAnon"] - baseline["RssAnon"],
                "added_file_mb": peaks["RssFile"] - baseline["RssFile"],
                "wall_s": clock.wall,
                "cpu_s": clock.cpu,
            }
        )
    )


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory_main(args: argparse.Namespace) -> None:
    """Peak memory added by featurize at each input size, each in a fresh process."""
    import json
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or tiny_encoder(Path(tmp) / "tiny")
        print(f"model {model}; input {args.path} cycled, each sentence made distinct")
        print(
            f"{'sentences':>10} {'words':>10} {'cache MB':>9} {'RSS before MB':>14} {'peak added MB':>14} "
            f"{'anon added MB':>14} {'file-backed MB':>15} {'wall s':>7} {'CPU s':>7}"
        )
        for n in [int(x) for x in args.memory.split(",")]:
            cache = Path(tmp) / f"cache-{n}"
            out = (
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        args.path,
                        "--memory-child",
                        str(n),
                        "--model",
                        model,
                        "--cache",
                        str(cache),
                        "--batch-size",
                        str(args.batch_size),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            r = json.loads(out)
            print(
                f"{r['sentences']:>10,} {r['words']:>10,} {r['cache_mb']:>9,.0f} {r['baseline_mb']:>14,.0f} "
                f"{r['added_peak_mb']:>14,.0f} {r['added_anon_mb']:>14,.0f} {r['added_file_mb']:>15,.0f} "
                f"{r['wall_s']:>7.0f} {r['cpu_s']:>7.0f}",
                flush=True,
            )
            subprocess.run(["rm", "-rf", str(cache)], check=False)


if __name__ == "__main__":
    interruptible(main)
