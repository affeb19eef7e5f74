"""Featurize stage: each pending embedding fitted once, train/dev/test featurized once.

Why here and not in the runner: what differs per family (the order, one table per seed, an option
borrowed from a family fitted first) is read from its :class:`~advisor.vocabulary.Family`, so the
stage has no family names in it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from numbers import Real
from typing import Any

from advisor.data import DataSplits
from advisor.grid import Cell, GridPlan
from advisor.pipeline._memory import return_freed_memory
from advisor.tracking import AnalysisTracker
from advisor.vocabulary import family, featurize_order

__all__ = ["featurize_missing"]

#: Makes a progress event: ``(stage, message=...)`` (the runner's ``ProgressEvent``).
EventFactory = Callable[..., Any]


def _fit_embedding(
    name: str,
    opts: dict[str, Any],
    pending: list[Cell],
    splits: DataSplits,
    notify: Callable[[Any], None],
    event: EventFactory,
) -> tuple[Any, Any, float]:
    """(features, embedding, raw-text encode seconds): a per-seed family gets one fitted embedding per
    cell seed (random: drawn from the cell seed); the others featurize train/dev/test once."""
    from advisor.embeddings import make_embedding

    if family(name).per_seed:
        tables = {}
        for seed in sorted({c.seed for c in pending if c.embedding == name}):
            tables[seed] = embedding = make_embedding(name, **{**opts, "seed": seed})
            embedding.fit(splits.train)
        return tables, embedding, math.nan
    embedding = make_embedding(name, **opts)
    meter = None
    if hasattr(embedding, "on_progress"):  # the encoder reports batches: items/s and ETA
        from advisor.progress import FeaturizeMeter

        parts = [len(splits.train), len(splits.dev), len(splits.test)]
        embedding.on_progress = meter = FeaturizeMeter(name, parts, notify, event)
    embedding.fit(splits.train)
    features, encode_seconds = [], 0.0
    for part in (splits.train, splits.dev, splits.test):
        features.append(embedding.featurize(part))
        encode_seconds += embedding.last_encode_seconds  # NaN unless the family tracks it (the encoder does)
    if meter is not None and meter.rate:  # what the estimate before the next run reads
        _record_encoder(opts, splits, meter.rate)
    return tuple(features), embedding, encode_seconds


def _record_encoder(opts: dict[str, Any], splits: DataSplits, items_per_s: float) -> None:
    """The encoder's measured pace in words/s (texts differ in length, words travel between datasets)."""
    from advisor.pipeline._estimate import encoder_key
    from advisor.pipeline._plan import resolve_device
    from advisor.pipeline._speed import record_encoder_speed

    parts = (splits.train, splits.dev, splits.test)
    items = sum(len(part) for part in parts)
    words = sum(len(tokens) for part in parts for tokens in part.tokens)
    device = str(opts.get("device") or resolve_device(None))  # the plan's device, as the estimate keys it
    record_encoder_speed(encoder_key(opts), device, items_per_s * words / max(items, 1))


def _lent(name: str, embedding: Any, needed: list[str]) -> dict[tuple[str, str], Any]:
    """What the fitted ``embedding`` lends to the families of ``needed`` that borrow from it, read
    once it is fitted (a real number as a float: it becomes an option)."""
    lent: dict[tuple[str, str], Any] = {}
    for other in needed:
        for borrow in family(other).borrows:
            if borrow.family == name:
                value = getattr(embedding, borrow.attribute)
                lent[name, borrow.attribute] = float(value) if isinstance(value, Real) else value
    return lent


def _embedding_info(name: str, embedding: Any) -> dict[str, Any]:
    described = embedding.describe()
    return {
        "embedding": name,
        "model": str(described.get("model", described.get("path", name))),
        "dim": int(embedding.dim),
        "embedding_bytes": int(embedding.storage_bytes),
        "cache_hit": bool(getattr(embedding, "last_cache_hit", False)),
        **{f"info_{k}": v for k, v in described.items() if isinstance(v, int | float | str)},
    }


def featurize_missing(
    plan: GridPlan,
    pending: list[Cell],
    options: dict[str, dict[str, Any]],
    splits: DataSplits,
    tracker: AnalysisTracker,
    timings: dict[str, float],
    notify: Callable[[Any], None],
    event: EventFactory,
    cache: dict[str, Any] | None,
) -> dict[str, Any]:
    """Features for ``pending``: from ``cache`` where an earlier batch made them, featurized otherwise
    (featurizing again would overwrite the logged featurize times with cache-hit times)."""
    run = (plan, options, splits, tracker, timings, notify, event)
    if cache is None:
        return _featurize(pending, *run)

    def cached(cell: Cell) -> bool:
        entry = cache.get(cell.embedding)
        return entry is not None and (not isinstance(entry, dict) or cell.seed in entry)

    missing = [c for c in pending if not cached(c)]
    fresh = _featurize(missing, *run) if missing else {}
    for name, entry in fresh.items():  # per-seed families: one table per seed, merged
        cache[name] = {**cache[name], **entry} if isinstance(entry, dict) and name in cache else entry
    return cache


def _featurize(
    pending: list[Cell],
    plan: GridPlan,
    options: dict[str, dict[str, Any]],
    splits: DataSplits,
    tracker: AnalysisTracker,
    timings: dict[str, float],
    notify: Callable[[Any], None],
    event: EventFactory,
) -> dict[str, tuple[Any, Any, Any]]:
    """Featurize train/dev/test once per embedding that still has pending cells, each family after
    the ones it declares (``after``) and with what it borrows from them (random: static's norm)."""
    needed = [e for e in plan.embeddings if any(c.embedding == e for c in pending)]
    features: dict[str, Any] = {}
    info, metrics = [], {}
    lent: dict[tuple[str, str], Any] = {}
    n_items = len(splits.train) + len(splits.dev) + len(splits.test)
    for name in featurize_order(needed):
        notify(event("featurize", message=f"featurizing with {name}"))
        t0 = time.perf_counter()
        opts = dict(options[name])
        for borrow in family(name).borrows:
            if (borrow.family, borrow.attribute) in lent and borrow.option not in opts:
                opts[borrow.option] = lent[borrow.family, borrow.attribute]
        features[name], embedding, encode_seconds = _fit_embedding(name, opts, pending, splits, notify, event)
        seconds = time.perf_counter() - t0
        lent |= _lent(name, embedding, needed)
        timings[f"featurize.{name}"] = metrics[f"featurize_seconds.{name}"] = seconds
        if math.isfinite(encode_seconds):
            metrics[f"encode_seconds.{name}"] = encode_seconds
        metrics[f"featurize_items_per_s.{name}"] = n_items / max(seconds, 1e-9)
        info.append(_embedding_info(name, embedding))
        return_freed_memory()
    tracker.log_parent_metrics(metrics)
    tracker.log_parent_params_once({"embedding_info": json.dumps(info, default=str)})
    return features
