"""The run's measuring stages: serving cost from raw text, and how contextual the encoder is.

Each computes through its domain package (:mod:`advisor.costs`, a family's own serving hook,
:mod:`advisor.contextuality`) and records through :mod:`advisor.tracking`; both are measured once per
run and kept on resume (serving: only while every embedding was measured the same way).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from advisor.contextuality import contextuality_for
from advisor.costs import (
    SAMPLE_SIZE,
    ServingCost,
    ServingMeasurements,
    fixed_sample,
    machine_load,
    measure_serving,
    serving_conditions,
    serving_embedding,
    serving_provenance,
)
from advisor.pipeline._tune import known_settings
from advisor.tracking import has_contextuality, load_serving, log_contextuality, log_serving
from advisor.vocabulary import family

if TYPE_CHECKING:
    from advisor.pipeline._stages import StageContext

__all__ = ["SERVING_REPEATS", "contextuality", "measure_all_serving", "serving"]

SERVING_REPEATS = 3


def serving(ctx: StageContext) -> ServingMeasurements:
    """Every embedding's serving cost, unless the run already holds measurements taken the same way
    for all of them (a resume); the result goes to the stages after (the Analysis's cost columns)."""
    assert ctx.plan is not None
    started, tracker = time.perf_counter(), ctx.tracker
    embeddings = list(ctx.plan.options)
    sample = fixed_sample(ctx.splits.test, SAMPLE_SIZE)
    wanted = serving_provenance(ctx.plan.device, len(sample), SERVING_REPEATS)
    stored = load_serving(tracker.client, tracker.parent_id)
    if stored is not None and stored.covers(wanted, embeddings):
        measured = stored
    else:
        load = machine_load()  # before: the measurement itself adds to the load
        chosen = known_settings(tracker.tags)  # each family served with the width it trained at
        costs = measure_all_serving(
            ctx.plan.options, ctx.splits, sample, ctx.plan.train_config, ctx.plan.device, chosen
        )
        conditions = serving_conditions(costs, load)
        measured = ServingMeasurements(wanted, costs, time.strftime("%Y-%m-%dT%H:%M:%S"), conditions)
        log_serving(tracker, measured)
    ctx.serving = measured
    ctx.timings["serving"] = time.perf_counter() - started
    return measured


def measure_all_serving(
    options: dict[str, dict[str, Any]],
    splits: Any,
    sample: Any,
    config: Any,
    device: str,
    chosen: dict[str, dict[str, Any]] | None = None,
) -> dict[str, ServingCost]:
    """Time each embedding of ``options`` from raw text on ``sample``: a frozen embedding + head through
    :mod:`advisor.costs`, the head built with ``config`` and the family's ``chosen`` fields (its
    projection width chosen on dev: a 256-d head costs more than a 64-d one); a family with a serving
    hook of its own (the fine-tuned reference: no frozen embedding, its encoder + head) times itself
    the same way."""
    from trainers import label_set

    labels = label_set(splits.train, splits.dev, splits.test)
    measured = {}
    for name, opts in options.items():
        serve = family(name).serve
        if serve is not None:
            measured[name] = serve(opts, splits, sample, device, SERVING_REPEATS)
            continue
        embedding = serving_embedding(name, opts, splits)
        own = replace(config, **(chosen or {}).get(name, {}))
        measured[name] = measure_serving(
            name, embedding, splits.train.task, labels, sample, own, device, repeats=SERVING_REPEATS
        )
    return measured


def contextuality(ctx: StageContext) -> None:
    """How contextual the encoder is on the training data (Ethayarajh 2019): once per run, before the
    Analysis is assembled (its params feed the verdict's sentence); nothing without a contextual family."""
    assert ctx.plan is not None
    if "contextual" not in ctx.plan.grid.embeddings:
        return
    started, tracker = time.perf_counter(), ctx.tracker
    if not has_contextuality(tracker.client, tracker.parent_id):
        result = contextuality_for(ctx.plan.options["contextual"], ctx.splits.train)
        log_contextuality(tracker.client, tracker.parent_id, result, tracker.log_parent_params_once)
    ctx.timings["contextuality"] = time.perf_counter() - started
