"""Serving cost, measured the way a deployment pays it: raw text in, prediction out, never the cache.

Why a dedicated pass: the featurization time logged while training depends on the feature cache
(a warm cache made contextual look 10x cheaper after a resume) and the trainers' peak memory is a
process-wide high-water mark. Here, once per embedding and run:

- a fixed sample of test items (``sample_size``, drawn with a fixed seed, same for every embedding)
  goes from its raw text (a pair item: its two raw texts) through tokenization, the embedding (the
  encoder forward pass for contextual, with the feature cache switched off; a pair read as the run
  reads it, ``pair_encoding``) and a downstream model of the run's architecture (freshly
  initialised: serving time does not depend on the weight values) to predictions;
- at batch 1 and at batch 64 on the same items (the whole sample: an encoder's cost per item grows
  with the item's length, so timing the two batch sizes on different items compares lengths, not
  batching), after one warm-up batch, timed again and again until the last ``repeats`` timings agree within
  :data:`STABLE_WITHIN` (at most :data:`MAX_RUNS` timings or :data:`MAX_TIMING_SECONDS`); their median
  ms per item is kept with their relative spread, so a busy machine shows as a spread, not as a
  2-3x cost that is not the embedding's; with ``threads`` torch threads
  (default 1: one request per core, as servers scale out, and the only setting that stays
  comparable on a shared machine, where multi-threaded kernels wait on each other);
- serving memory = the weights a server holds (embedding table or encoder weights + downstream
  parameters) + the features of one batch of 64 items, counted from the arrays themselves.

Each measurement carries its provenance (device, torch threads, batch sizes, sample size, repeats) and
the conditions it ran under (the machine's load average, the encoder's precision, the spreads);
a resume keeps stored measurements whose provenance matches and re-measures *all* embeddings
otherwise (:meth:`ServingMeasurements.covers`), so the ratios in the verdict never mix measurements
taken in different conditions. Measuring only: the run's serving stage (``advisor.pipeline``) measures
and records, the record layer (``advisor.tracking``) saves and loads :class:`ServingMeasurements`.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from advisor.data import Corpus
from advisor.vocabulary import family

__all__ = [
    "BATCH_SIZES",
    "MAX_RUNS",
    "MAX_TIMING_SECONDS",
    "SAMPLE_SIZE",
    "STABLE_WITHIN",
    "ServingCost",
    "ServingMeasurements",
    "Timing",
    "fixed_sample",
    "machine_load",
    "measure_serving",
    "price_per_million",
    "raw_corpus",
    "serving_columns",
    "serving_conditions",
    "serving_embedding",
    "serving_provenance",
    "serving_timings",
    "time_serving",
]

SAMPLE_SIZE = 128  # test items every embedding is timed on
BATCH_SIZES = (1, 64)
#: Timing repeats until the last ``repeats`` timings agree within this relative spread (max - min) / median...
STABLE_WITHIN = 0.10
#: ... or this many timings were taken, or this many seconds went into timing one batch size.
MAX_RUNS = 12
MAX_TIMING_SECONDS = 30.0


@dataclass
class ServingCost:
    """One embedding's serving cost, with how it was measured."""

    embedding: str
    ms_per_item_b1: float  # median over repeats, batch 1
    ms_per_item_b64: float  # median over repeats, batch 64
    memory_mb: float  # weights held for serving + features of one batch of 64
    weights_mb: float
    batch_features_mb: float
    provenance: dict[str, Any]
    spread_b1: float = math.nan  # relative spread (max - min) / median of the timings the median is of
    spread_b64: float = math.nan
    precision: str = "float32"  # what the embedding computes in (the encoder's dtype; tables: float32)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServingCost:
        """As :meth:`to_dict` wrote it (a number the store lacks, or holds as null, reads as NaN)."""
        number = {k: math.nan if data.get(k) is None else float(data[k]) for k in _NUMBERS}
        provenance, precision = dict(data.get("provenance", {})), str(data.get("precision", "float32"))
        return cls(str(data.get("embedding", "")), **number, provenance=provenance, precision=precision)


_NUMBERS = (
    "ms_per_item_b1", "ms_per_item_b64", "memory_mb", "weights_mb", "batch_features_mb", "spread_b1", "spread_b64",
)  # fmt: skip


@dataclass
class ServingMeasurements:
    """One serving pass of a run: every embedding's cost, measured under one ``provenance``."""

    provenance: dict[str, Any]
    costs: dict[str, ServingCost] = field(default_factory=dict)
    measured_at: str = ""
    conditions: dict[str, Any] = field(default_factory=dict)  # load, precision, spread (serving_conditions)

    def covers(self, provenance: dict[str, Any], embeddings: Iterable[str]) -> bool:
        """Measured the same way as ``provenance`` asks, for every one of ``embeddings``: reusable."""
        return self.provenance == provenance and all(e in self.costs for e in embeddings)

    def to_dict(self) -> dict[str, Any]:
        costs = {name: cost.to_dict() for name, cost in self.costs.items()}
        return {
            "provenance": self.provenance,
            "costs": costs,
            "measured_at": self.measured_at,
            "conditions": self.conditions,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServingMeasurements:
        costs = {name: ServingCost.from_dict(cost) for name, cost in data.get("costs", {}).items()}
        conditions = dict(data.get("conditions") or {})
        return cls(dict(data.get("provenance", {})), costs, str(data.get("measured_at", "")), conditions)

    def metrics(self) -> dict[str, float]:
        """The parent's serving metrics: ms per item per batch size and memory, per embedding."""
        times = {
            f"serving_ms_per_item_b{b}.{n}": getattr(c, f"ms_per_item_b{b}")
            for n, c in self.costs.items()
            for b in BATCH_SIZES
        }
        return times | {f"serving_memory_mb.{n}": c.memory_mb for n, c in self.costs.items()}


def serving_provenance(device: str, sample_size: int, repeats: int, threads: int = 1) -> dict[str, Any]:
    """What a measurement depends on besides the embedding: equal provenance = comparable numbers."""
    import platform

    return {
        "device": device,
        "torch_threads": int(threads),
        "batch_sizes": list(BATCH_SIZES),
        "sample_size": int(sample_size),
        "repeats": int(repeats),
        "stable_within": STABLE_WITHIN,
        "max_runs": MAX_RUNS,
        "warmup_batches": 1,
        "cpu": platform.processor() or platform.machine(),
        "source": "raw text -> tokenize -> embedding (no feature cache) -> downstream model",
    }


def fixed_sample(corpus: Corpus, size: int, seed: int = 0) -> Corpus:
    """The same items for every embedding: a seeded draw of ``size`` test items, in corpus order."""
    n = len(corpus)
    if n <= size:
        return corpus
    picked = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
    return corpus.subset(picked)


def raw_corpus(task: str, batch: Corpus) -> Corpus:
    """``batch`` re-read from its raw text as a server would (CoNLL text is its tokens joined by spaces;
    a pair item is its two raw texts, each tokenized, the first text's words then the second's)."""
    texts = list(batch.texts)
    if task == "ner":
        tokens = [text.split(" ") if text else [] for text in texts]
        return Corpus(task, tokens, list(batch.labels), texts=texts)
    from advisor.data import tokenize

    if task != "pair":
        return Corpus(task, [tokenize(text) for text in texts], list(batch.labels), texts=texts)
    first, second = [tokenize(text) for text in texts], [tokenize(text) for text in batch.texts_b]
    return Corpus(
        task,
        [a + b for a, b in zip(first, second, strict=True)],
        list(batch.labels),
        texts=texts,
        texts_b=list(batch.texts_b),
        pair_split=[len(a) for a in first],
    )


def _predictor(
    task: str, labels: list[str], embedding: Any, config: Any, device: str, probe: Corpus
) -> Callable:
    """A function batch -> predictions: tokenize, featurize (no cache), run the downstream model."""
    from trainers import ServingModel

    model = ServingModel(labels, embedding.dim, config, (embedding.featurize(probe), probe), device)

    def predict(batch: Corpus) -> list:
        corpus = raw_corpus(task, batch)
        feats = embedding.featurize(corpus)
        predict.last_features_bytes = int(np.asarray(feats.vectors).nbytes)  # type: ignore[attr-defined]
        return model.predict(feats, corpus)

    predict.params_bytes = model.param_bytes  # type: ignore[attr-defined]
    return predict


@dataclass(frozen=True)
class Timing:
    """One batch size's timing: the median ms per item of the last ``repeats`` timings, their relative
    spread ((max - min) / median) and how many timings were taken to get there."""

    ms_per_item: float
    spread: float
    runs: int


def _timed(
    predict: Callable, batches: list[Any], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> Timing:
    """After one warm-up batch, time ``batches`` until the last ``repeats`` timings agree within
    :data:`STABLE_WITHIN`, or :data:`MAX_RUNS` timings or :data:`MAX_TIMING_SECONDS` are spent."""
    predict(batches[0])
    n_items, repeats = sum(len(b) for b in batches), max(int(repeats), 1)
    timings: list[float] = []
    started = clock()
    while True:
        start = clock()
        for batch in batches:
            predict(batch)
        timings.append(1000.0 * (clock() - start) / max(n_items, 1))
        if len(timings) < repeats:
            continue
        last = timings[-repeats:]
        median = float(statistics.median(last))
        spread = (max(last) - min(last)) / median if median > 0 else 0.0
        spent = clock() - started
        if spread <= STABLE_WITHIN or len(timings) >= max(MAX_RUNS, repeats) or spent > MAX_TIMING_SECONDS:
            return Timing(median, spread, len(timings))


def serving_timings(predict: Callable, sample: Corpus, repeats: int, threads: int) -> tuple[Timing, Timing]:
    """Timings at batch 1 and at batch 64, both over every item of ``sample``, at ``threads`` threads,
    each repeated until stable (:func:`_timed`).

    The one timing loop for every family, the fine-tuned reference included; ends with a batch-64
    call so a caller can read what that batch held.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.inference_mode():
            singles = [sample.subset([i]) for i in range(len(sample))]
            b1 = _timed(predict, singles, repeats)
            big = [sample.subset(range(i, min(i + 64, len(sample)))) for i in range(0, len(sample), 64)]
            b64 = _timed(predict, big, repeats)
            predict(big[0])
    finally:
        torch.set_num_threads(before)
    return b1, b64


def time_serving(predict: Callable, sample: Corpus, repeats: int, threads: int) -> tuple[float, float]:
    """ms per item at batch 1 and at batch 64 (:func:`serving_timings`, medians only)."""
    b1, b64 = serving_timings(predict, sample, repeats, threads)
    return b1.ms_per_item, b64.ms_per_item


def machine_load() -> float:
    """The 1-minute load average (NaN where the system has none): a busy machine slows every timing."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return math.nan


def serving_conditions(costs: dict[str, ServingCost], load: float) -> dict[str, Any]:
    """What the measurements ran under, for the provenance sentence: the load average at the start, each
    embedding's precision, and the largest spread of the timings kept."""
    spreads = [v for c in costs.values() for v in (c.spread_b1, c.spread_b64) if math.isfinite(v)]
    return {
        "load_average": load if math.isfinite(load) else None,
        "cpu_count": os.cpu_count(),
        "precision": {name: cost.precision for name, cost in costs.items()},
        "max_spread": max(spreads) if spreads else None,
    }


def measure_serving(
    name: str,
    embedding: Any,
    task: str,
    labels: list[str],
    sample: Corpus,
    config: Any,
    device: str = "cpu",
    *,
    repeats: int = 3,
    threads: int = 1,
) -> ServingCost:
    """Time ``embedding`` (fitted, cache off) + a fresh downstream model on ``sample``; see the module docstring."""
    import torch

    provenance = serving_provenance(device, len(sample), repeats, threads)
    with torch.inference_mode():
        predict = _predictor(task, labels, embedding, config, device, sample.subset([0]))
    b1, b64 = serving_timings(predict, sample, repeats, threads)
    features_bytes = int(predict.last_features_bytes)
    weights = int(getattr(embedding, "storage_bytes", 0)) + int(predict.params_bytes)
    return ServingCost(
        embedding=name,
        ms_per_item_b1=b1.ms_per_item,
        ms_per_item_b64=b64.ms_per_item,
        memory_mb=(weights + features_bytes) / 1e6,
        weights_mb=weights / 1e6,
        batch_features_mb=features_bytes / 1e6,
        provenance=provenance,
        spread_b1=b1.spread,
        spread_b64=b64.spread,
        precision=str(getattr(embedding, "dtype", "float32")),
    )


def price_per_million(ms_per_item: float, price_per_hour: float) -> float:
    """Money per 1M items at ``price_per_hour`` for the machine, from the batch-64 time per item."""
    if not (math.isfinite(ms_per_item) and price_per_hour >= 0):
        return math.nan
    return price_per_hour * ms_per_item * 1e6 / 1000.0 / 3600.0


def serving_embedding(name: str, options: dict[str, Any], splits: Any) -> Any:
    """A fitted embedding as a server would load it: the contextual feature cache switched off."""
    from advisor.embeddings import make_embedding

    opts = {**options, **dict(family(name).serving_options)}
    embedding = make_embedding(name, **opts)
    embedding.fit(splits.train)
    return embedding


def serving_columns(embeddings: Any, measured: ServingMeasurements | None) -> Any:
    """The run's embedding table with the serving measurements as columns (unchanged without them)."""
    import pandas as pd

    if not measured or embeddings is None or not len(embeddings) or "embedding" not in embeddings.columns:
        return embeddings
    costs = {name: cost.to_dict() for name, cost in measured.costs.items()}
    # measured but never featurized (the fine-tuned reference): a row of its own
    missing = pd.DataFrame({"embedding": [e for e in costs if e not in set(embeddings["embedding"])]})
    table = pd.concat([embeddings, missing], ignore_index=True) if len(missing) else embeddings.copy()
    for column in ("ms_per_item_b1", "ms_per_item_b64", "memory_mb"):
        table[f"serving_{column}"] = [costs.get(e, {}).get(column, math.nan) for e in table["embedding"]]
    table["serving_provenance"] = json.dumps(measured.provenance, sort_keys=True)
    table["serving_conditions"] = json.dumps(measured.conditions, sort_keys=True)
    return table
