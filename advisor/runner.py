"""``advisor run``: data-size curves over embeddings × subset sizes × seeds, logged to MLflow, resumable.

Compute only: progress goes out through a callback, so the CLI (Rich) and the app (MLflow polling)
show the same run. The order of work is what makes resume cheap and honest:

1. read the data and plan the grid; the parent run is looked up by a key of data + settings;
2. cells already finished in that parent are skipped (nothing is featurized if nothing is pending);
3. each pending embedding is featurized once for train/dev/test (the contextual features through the
   on-disk cache), and every subset reuses those rows;
4. cells run sizes-ascending, so an interrupted run leaves whole curve prefixes behind;
5. the difficulty analysis, figures and verdict are recomputed from *all* finished cells.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from advisor.data import DataSplits, read_splits
from advisor.errors import ConfigError
from advisor.grid import Cell, GridPlan, plan_grid, profiles, subset_indices, subset_order
from advisor.tracking import DEFAULT_EXPERIMENT, AnalysisTracker, environment_info, resolve_tracking_uri
from advisor.vocabulary import PAPER_FAMILIES, embedding_choices, primary_metric

__all__ = ["EMBEDDING_CHOICES", "ProgressEvent", "RunOutcome", "RunSettings", "run_analysis"]

#: Registered embeddings, cheapest first (the CLI and the app offer these); a run defaults to the paper's three.
EMBEDDING_CHOICES: tuple[str, ...] = tuple(embedding_choices())


@dataclass
class RunSettings:
    """Everything that defines an analysis; the resume key is derived from the parts that change results."""

    data: str
    task: str
    dev: str | None = None
    test: str | None = None
    text_col: str | None = None
    label_col: str | None = None
    split_seed: int = 0
    embeddings: list[str] = field(default_factory=lambda: list(PAPER_FAMILIES))
    sizes: list[int] | None = None
    fractions: list[float] | None = None
    seeds: int | None = None
    profile: str = "default"
    contextual: str | None = None
    layer: str = "mix"
    pooling: str = "first"
    distill_layer: str | None = None  # the distilled family's layer; None = its default (advisor.embeddings._distilled)
    static: str | None = None
    random_dim: int | None = None
    max_epochs: int | None = None
    workers: int | None = None
    tracking_uri: str | None = None
    experiment: str = DEFAULT_EXPERIMENT
    force: bool = False
    device: str | None = None
    cache_dir: str | None = None
    difficulty: bool = True
    spacy_model: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    price_per_hour: float | None = None  # serving machine price: the verdict prices 1M items
    strict: bool = False  # items with a label but no text are an error instead of skipped
    backend: str = "local"  # where cells train: local worker processes or Ray (advisor.backends)
    ray_address: str | None = None  # a running Ray cluster; default: start a local runtime
    finetune_sizes: str | None = None  # fine-tuned reference sizes ("full", N, "off"); None: profile
    finetune_epochs: int | None = None  # its epochs (default 3)
    finetune_seeds: int | None = None  # its seeds: the grid's first N (default all)

    def __post_init__(self) -> None:
        unknown = [e for e in self.embeddings if e not in EMBEDDING_CHOICES]
        if unknown or not self.embeddings:
            raise ConfigError(
                f"unknown embedding(s) {', '.join(unknown) or '(none given)'}",
                hint=f"choose from: {', '.join(EMBEDDING_CHOICES)}",
                code="E201",
            )
        profiles.get(self.profile)
        from advisor.finetune import parse_finetune_sizes

        parse_finetune_sizes(self.finetune_sizes)  # a bad size list fails before anything runs


@dataclass
class ProgressEvent:
    """What a progress display needs: cells done / total, the current cell, its result."""

    stage: str  # "read" | "plan" | "featurize" | "cell" | "analysis" | "done" (see advisor.progress)
    done: int = 0
    total: int = 0
    message: str = ""
    cell: Cell | None = None
    score: float | None = None
    seconds: float = 0.0
    rate: float | None = None  # featurize: items per second so far
    eta: float | None = None  # featurize: seconds left for this embedding
    run_id: str = ""  # plan: the MLflow parent run


@dataclass
class RunOutcome:
    run_id: str
    experiment: str
    tracking_uri: str
    computed: list[Cell]
    reused: list[Cell]
    timings: dict[str, float]
    device: str
    resumed: bool


def _device(requested: str | None) -> str:
    if requested:
        return requested
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _embedding_options(settings: RunSettings, name: str, random_dim: int, device: str) -> dict[str, Any]:
    if name == "contextual":
        options: dict[str, Any] = {"layer": settings.layer, "pooling": settings.pooling, "device": device}
        if settings.contextual:
            options["model"] = settings.contextual
        if settings.cache_dir:
            options["cache_dir"] = settings.cache_dir
        return options
    if name == "distilled":  # same encoder and pooling as contextual: it reads contextual's feature cache
        options = {"pooling": settings.pooling, "device": device}
        for option, value in (
            ("model", settings.contextual),
            ("cache_dir", settings.cache_dir),
            ("layer", settings.distill_layer),
        ):
            if value is not None:
                options[option] = value
        return options
    if name == "static":
        return {"path": settings.static} if settings.static else {}
    options = {"dim": random_dim}
    if settings.static:
        options["static_path"] = settings.static
    return options


def _key(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _predictions_frame(task: str, corpus: Any, result: Any) -> pd.DataFrame:
    """Per-item predictions as a table; NER tags are space-joined strings (one row per sentence)."""
    if task == "ner":
        return pd.DataFrame(
            {
                "item": np.arange(len(corpus)),
                "line": corpus.line_numbers,
                "gold": [" ".join(t) for t in corpus.labels],
                "prediction": [" ".join(p) for p in result.predictions],
                "correct": [float(g == p) for g, p in zip(corpus.labels, result.predictions, strict=True)],
                "gold_prob": [float(np.mean(p)) if len(p) else float("nan") for p in result.gold_probs],
            }
        )
    return pd.DataFrame(
        {
            "item": np.arange(len(corpus)),
            "line": corpus.line_numbers,
            "gold": corpus.labels,
            "prediction": result.predictions,
            "correct": [float(g == p) for g, p in zip(corpus.labels, result.predictions, strict=True)],
            "gold_prob": [float(p) for p in result.gold_probs],
        }
    )


def _predictions_from_frame(task: str, frame: pd.DataFrame) -> list[Any]:
    values = frame.sort_values("item")["prediction"].tolist()
    return [str(v).split() for v in values] if task == "ner" else [str(v) for v in values]


def run_analysis(
    settings: RunSettings,
    progress: Callable[[ProgressEvent], None] | None = None,
    splits: DataSplits | None = None,
    fail_after: int | None = None,
) -> RunOutcome:
    """Run (or resume) one analysis and return what was computed; see the module docstring.

    ``fail_after`` raises after that many computed cells: used by tests to prove a failed run ends
    FAILED and a re-run computes only the missing cells.
    """
    from advisor.validate import validate_settings
    from trainers import TrainConfig

    validate_settings(settings)  # before any MLflow run exists or any model is loaded
    notify = progress or (lambda event: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    notify(ProgressEvent("read", message=Path(str(settings.data)).name))
    splits = splits or read_splits(
        settings.data,
        settings.task,
        dev=settings.dev,
        test=settings.test,
        text_col=settings.text_col,
        label_col=settings.label_col,
        seed=settings.split_seed,
        strict=settings.strict,
    )
    timings["read"] = time.perf_counter() - started
    profile = profiles.get(settings.profile)
    plan: GridPlan = plan_grid(
        len(splits.train), settings.embeddings, profile, settings.sizes, settings.fractions, settings.seeds
    )
    device = _device(settings.device)
    random_dim = settings.random_dim or profile.random_dim
    options = {e: _embedding_options(settings, e, random_dim, device) for e in plan.embeddings}
    plan = _with_finetune(settings, profile, plan, options, device)
    train_config = TrainConfig(
        max_epochs=settings.max_epochs or profile.max_epochs, patience=profile.patience, device=device
    )
    config_for_key = {
        k: v for k, v in train_config.to_dict().items() if k not in ("seed", "device", "num_threads")
    }
    key_options = {
        e: {k: v for k, v in o.items() if k not in ("device", "cache_dir")} for e, o in options.items()
    }
    key = _key(
        {
            "task": settings.task,
            "data": splits.content_hash(),
            "embeddings": key_options,
            "train": config_for_key,
            "split_seed": settings.split_seed,
            "random_table": "per seed",
        }
    )
    name = Path(str(settings.data)).name
    primary = primary_metric(settings.task)
    dataset_info = {
        "name": name,
        "path": str(settings.data),
        "content_hash": splits.content_hash(),
        "n_train": len(splits.train),
        "n_dev": len(splits.dev),
        "n_test": len(splits.test),
        "labels": splits.train.label_set(),
        "scheme": splits.train.scheme,
        "split_method": splits.split_method,
    }
    params = {
        "task": settings.task,
        "dataset": name,
        "dataset_hash": splits.content_hash(),
        "n_train": len(splits.train),
        "n_dev": len(splits.dev),
        "n_test": len(splits.test),
        "primary_metric": primary,
        "profile": settings.profile,
        "sizes": plan.sizes,
        "seeds": len(plan.seeds),
        "embeddings": plan.embeddings,
        "contextual_model": settings.contextual or "packaged all-MiniLM-L6-v2",
        "static_vectors": settings.static or "packaged GloVe 6B 50d",
        "random_dim": random_dim,
        "layer": settings.layer,
        "pooling": settings.pooling,
        "device": device,
        "train_config": json.dumps(config_for_key),
        "dataset_info": json.dumps(dataset_info),
        "environment": json.dumps(environment_info()),
    }
    tags = {
        **settings.tags,
        "advisor.task": settings.task,
        "advisor.dataset": name,
        "advisor.profile": settings.profile,
    }
    if settings.price_per_hour is not None:
        tags["advisor.price_per_hour"] = str(settings.price_per_hour)
    tracker = AnalysisTracker(settings.tracking_uri or resolve_tracking_uri(None), settings.experiment)
    tracker.open(
        key,
        f"{name}-{settings.task}",
        params,
        tags,
        force=settings.force,
        on_wait=lambda message: notify(ProgressEvent("waiting", message=message)),
    )
    if not tracker.resumed:
        from advisor.mlflow_views import log_dataset_inputs, log_test_tokens

        log_dataset_inputs(tracker.client, tracker.parent_id, splits, name)  # MLflow's "Datasets" column
        log_test_tokens(tracker.client, tracker.parent_id, splits)  # the app's item explorer, even if killed
    tracker.log_parent_tags({"advisor.total_cells": str(len(plan.cells)), "advisor.device": device})
    pending = [
        c for c in plan.cells if settings.force or not tracker.is_finished(c.embedding, c.size, c.seed)
    ]
    reused = [c for c in plan.cells if c not in pending]
    notify(
        ProgressEvent(
            "plan",
            done=len(reused),
            total=len(plan.cells),
            message=f"{len(pending)} cells to compute",
            run_id=tracker.parent_id,
        )
    )
    status = "FAILED"
    analysed = False
    computed: list[Cell] = []
    cells_done: Iterator[tuple[Cell, Any, float]] | None = None
    try:
        predictions: dict[tuple[str, int, int], list[Any]] = {}
        if pending:
            features = _featurize(plan, pending, options, splits, tracker, timings, notify)
            orders = {seed: subset_order(splits.train, seed) for seed in plan.seeds}
            _WORKER_STATE.update(
                features=features, splits=splits, orders=orders, config=train_config.to_dict()
            )
            for cell in pending:
                tracker.child(
                    cell.embedding, cell.seed, {"embedding": cell.embedding, **options[cell.embedding]}
                )
            n_workers = _worker_count(settings.workers, device, len(pending))
            t_train = time.perf_counter()
            frozen = [c for c in pending if c.embedding in plan.embeddings]
            if settings.backend == "ray":  # same cells, seeds and results; the driver logs them
                from advisor.backends import ray_train_cells

                cells_done = ray_train_cells(
                    frozen, dict(_WORKER_STATE), settings.workers, settings.ray_address, device
                )
            else:
                cells_done = _train_cells(frozen, n_workers)
            if len(frozen) < len(pending):  # the fine-tuned reference: in this process, after the rest
                from advisor.finetune import then_finetune

                cells_done = then_finetune(cells_done, pending, options, splits)
            for cell, result, seconds in cells_done:
                timings[f"train.{cell.embedding}"] = (
                    timings.get(f"train.{cell.embedding}", 0.0) + result.train_seconds
                )
                timings["evaluate"] = (
                    timings.get("evaluate", 0.0) + result.inference_ms_per_item * len(splits.test) / 1000
                )
                t1 = time.perf_counter()
                metrics = {
                    "score": result.score,
                    primary: result.score,
                    "dev_score": result.dev_score,
                    "train_seconds": result.train_seconds,
                    "inference_ms_per_item": result.inference_ms_per_item,
                    "peak_memory_mb": result.peak_memory_mb,
                    "n_params": result.n_params,
                    "epochs": result.epochs,
                    **{f"eval_{k}": v for k, v in result.scores.items() if k != primary},
                    **{k: v for k, v in result.to_dict().items() if k.startswith("mix_")},
                }
                tracker.log_cell(
                    cell.embedding,
                    cell.size,
                    cell.seed,
                    metrics,
                    _predictions_frame(settings.task, splits.test, result),
                )
                timings["logging"] = timings.get("logging", 0.0) + time.perf_counter() - t1
                predictions[(cell.embedding, cell.size, cell.seed)] = result.predictions
                computed.append(cell)
                notify(
                    ProgressEvent(
                        "cell",
                        done=len(reused) + len(computed),
                        total=len(plan.cells),
                        cell=cell,
                        score=result.score,
                        seconds=seconds,
                    )
                )
                if fail_after is not None and len(computed) >= fail_after:
                    raise RuntimeError(f"injected failure after {fail_after} cells")
            timings["train_wall"] = time.perf_counter() - t_train
            timings["workers"] = float(n_workers)
        if computed or not _has_analysis(tracker):
            t2 = time.perf_counter()
            notify(
                ProgressEvent(
                    "analysis", done=len(plan.cells), total=len(plan.cells), message="difficulty and verdict"
                )
            )
            for cell in reused:
                frame = tracker.load_predictions(cell.embedding, cell.seed, cell.size)
                predictions[(cell.embedding, cell.size, cell.seed)] = _predictions_from_frame(
                    settings.task, frame
                )
            from advisor.costs import serving_stage

            t_serve = time.perf_counter()  # raw text -> prediction per embedding; kept on resume
            serving_stage(tracker, dict(options), splits, train_config, device)  # + fine-tuned reference
            timings["serving"] = time.perf_counter() - t_serve
            _analyse(settings, splits, tracker, predictions, timings)
            timings["analysis"] = time.perf_counter() - t2
            analysed = True
        status = "FINISHED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        timings["total"] = time.perf_counter() - started
        if cells_done is not None:  # stop workers / Ray tasks now, not when the traceback is collected
            cells_done.close()
        tracker.close(status)
    if analysed:  # after close: the report states the run's final status, not RUNNING
        from advisor.report import log_final_report

        timings["report"] = log_final_report(tracker.client, tracker.parent_id, tracker.tracking_uri)
    notify(ProgressEvent("done", done=len(plan.cells), total=len(plan.cells)))
    return RunOutcome(
        run_id=tracker.parent_id,
        experiment=settings.experiment,
        tracking_uri=tracker.tracking_uri,
        computed=computed,
        reused=reused,
        timings=timings,
        device=device,
        resumed=tracker.resumed,
    )


def _with_finetune(
    settings: RunSettings, profile: Any, plan: GridPlan, options: dict[str, Any], device: str
) -> GridPlan:
    """The plan with the fine-tuned reference's cells after the frozen ones (validated before any run opens)."""
    from dataclasses import replace

    from advisor.finetune import FINETUNED, finetune_options, parse_finetune_sizes, plan_finetune

    tokens = parse_finetune_sizes(settings.finetune_sizes)
    cells = plan_finetune(profile.finetune if tokens is None else tokens, plan, settings.finetune_seeds)
    if not cells:
        return plan
    options[FINETUNED] = finetune_options(settings.contextual, settings.finetune_epochs, device)
    return replace(plan, cells=[*plan.cells, *cells])


# Read by training workers. Set before the pool forks, so every worker shares the (read-only)
# feature matrices copy-on-write instead of receiving them through a pipe.
_WORKER_STATE: dict[str, Any] = {}


def _worker_count(requested: int | None, device: str, n_cells: int) -> int:
    """Parallel CPU workers (one torch thread each); CUDA cannot be used from forked workers."""
    if requested is not None:
        if requested < 1:
            raise ConfigError("--workers must be at least 1", code="E210")
        return 1 if device.startswith("cuda") else min(requested, n_cells)
    if device.startswith("cuda") or sys.platform != "linux":
        return 1
    return max(1, min(os.cpu_count() or 1, 8, n_cells))


def _worker_init() -> None:
    import torch

    torch.set_num_threads(1)  # before any op: keeps OpenMP from spawning threads after the fork
    # Ctrl-C and the app's Stop reach the whole process group; only the parent decides what they
    # mean (runs end KILLED). Workers ignore both and are killed by the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _train_one(cell: Cell, state: dict[str, Any] | None = None) -> tuple[Cell, Any, float]:
    """Train one cell from ``state`` (default: the forked workers' module global; Ray passes its own)."""
    from trainers import TrainConfig, fit_and_evaluate

    t0 = time.perf_counter()
    state = _WORKER_STATE if state is None else state
    splits: DataSplits = state["splits"]
    idx = subset_indices(state["orders"][cell.seed], cell.size)
    entry = state["features"][cell.embedding]
    if isinstance(entry, dict):  # random: one table per seed, looked up here (cheap; memory per cell)
        table = entry[cell.seed]
        train_feats = table.featurize(splits.train.subset(idx))
        dev_feats, test_feats = table.featurize(splits.dev), table.featurize(splits.test)
    else:
        train_feats, dev_feats, test_feats = entry
        train_feats = train_feats.subset(idx)
    config = TrainConfig(**{**state["config"], "seed": cell.seed})
    result = fit_and_evaluate(
        train_feats,
        splits.train.subset(idx),
        dev_feats,
        splits.dev,
        test_feats,
        splits.test,
        config,
    )
    return cell, result, time.perf_counter() - t0


def _train_cells(cells: list[Cell], n_workers: int) -> Iterator[tuple[Cell, Any, float]]:
    """Yield (cell, result, seconds) as cells finish; results are identical whatever the worker count."""
    if n_workers <= 1:
        for cell in cells:
            yield _train_one(cell)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(
        n_workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init
    )
    finished_cleanly = False
    try:
        queue = list(cells)
        running = {pool.submit(_train_one, queue.pop(0)) for _ in range(min(n_workers, len(queue)))}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                # Keep exactly n_workers cells in flight, in grid order (sizes ascending).
                if queue:
                    running.add(pool.submit(_train_one, queue.pop(0)))
                yield future.result()
        finished_cleanly = True
    finally:
        if not finished_cleanly:  # error or Ctrl-C: stop the workers now, not after their current cell
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()  # SIGKILL: workers ignore SIGINT/SIGTERM
        pool.shutdown(wait=True, cancel_futures=True)


def _featurize(
    plan: GridPlan,
    pending: list[Cell],
    options: dict[str, dict[str, Any]],
    splits: DataSplits,
    tracker: AnalysisTracker,
    timings: dict[str, float],
    notify: Callable[[ProgressEvent], None],
) -> dict[str, tuple[Any, Any, Any]]:
    """Featurize train/dev/test once per embedding that still has pending cells."""
    from advisor.embeddings import make_embedding

    needed = [e for e in plan.embeddings if any(c.embedding == e for c in pending)]
    features: dict[str, tuple[Any, Any, Any]] = {}
    info = []
    metrics: dict[str, float] = {}
    static_norm = None
    for name in sorted(needed, key=lambda e: ("static", "random", "contextual", "distilled").index(e)):
        notify(ProgressEvent("featurize", message=f"featurizing with {name}"))
        t0 = time.perf_counter()
        opts = dict(options[name])
        if name == "random" and static_norm is not None and "target_norm" not in opts:
            opts["target_norm"] = static_norm
        if name == "random":  # one table per seed, drawn from the cell seed (see advisor.embeddings._random)
            tables = {}
            for seed in sorted({c.seed for c in pending if c.embedding == "random"}):
                tables[seed] = embedding = make_embedding(name, **{**opts, "seed": seed})
                embedding.fit(splits.train)
            features[name] = tables
        else:
            embedding = make_embedding(name, **opts)
            if hasattr(embedding, "on_progress"):  # the encoder reports batches: items/s and ETA
                from advisor.progress import FeaturizeMeter

                parts = [len(splits.train), len(splits.dev), len(splits.test)]
                embedding.on_progress = FeaturizeMeter(name, parts, notify, ProgressEvent)
            embedding.fit(splits.train)
            features[name] = tuple(
                embedding.featurize(part) for part in (splits.train, splits.dev, splits.test)
            )
        seconds = time.perf_counter() - t0
        if name == "static":
            static_norm = float(embedding.mean_norm)
        timings[f"featurize.{name}"] = seconds
        n_items = len(splits.train) + len(splits.dev) + len(splits.test)
        metrics[f"featurize_seconds.{name}"] = seconds
        metrics[f"featurize_items_per_s.{name}"] = n_items / max(seconds, 1e-9)
        described = embedding.describe()
        info.append(
            {
                "embedding": name,
                "model": str(described.get("model", described.get("path", name))),
                "dim": int(embedding.dim),
                "embedding_bytes": int(embedding.storage_bytes),
                "cache_hit": bool(getattr(embedding, "last_cache_hit", False)),
                **{f"info_{k}": v for k, v in described.items() if isinstance(v, int | float | str)},
            }
        )
    tracker.log_parent_metrics(metrics)
    tracker.log_parent_params_once({"embedding_info": json.dumps(info, default=str)})
    if "contextual" in features:  # how contextual the encoder is on this data (advisor.contextuality)
        from advisor.contextuality import run_contextuality_stage

        timings["contextuality"] = run_contextuality_stage(
            options["contextual"], splits.train, tracker.client, tracker.parent_id
        )
    return features


def _has_analysis(tracker: AnalysisTracker) -> bool:
    return any(
        a.path == "analysis/curves.json" for a in tracker.client.list_artifacts(tracker.parent_id, "analysis")
    )


def _analyse(
    settings: RunSettings,
    splits: DataSplits,
    tracker: AnalysisTracker,
    predictions: dict[tuple[str, int, int], list[Any]],
    timings: dict[str, float],
) -> None:
    """Difficulty gaps, learning-curve figure and verdict, from every finished cell."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from advisor.tracking import load_analysis

    if settings.difficulty:
        from advisor.difficulty import gap_analysis, item_metrics, plot_gaps

        t0 = time.perf_counter()
        items = item_metrics(splits.train, splits.test, spacy_model=settings.spacy_model)
        # Difficulty values come from the full training set: only full-data cells match them (a smaller
        # subset saw other words), so smaller sizes get no slice rows (an interrupted run keeps them all).
        at_full = {k: v for k, v in predictions.items() if k[1] == len(splits.train)} or predictions
        gaps = gap_analysis(settings.task, splits.train, splits.test, at_full, table=items)
        tracker.log_table(items, "analysis/items.json")
        tracker.log_table(gaps, "analysis/gaps.json")
        if len(gaps) and gaps["n_items"].gt(0).any():  # one embedding, or no splittable metric: no figure
            figure = plot_gaps(gaps)
            tracker.log_figure(figure, "figures/difficulty_gaps.png")
            plt.close(figure)
        largest = gaps[gaps["size"] == gaps["size"].max()] if len(gaps) else gaps
        slice_metrics = {}
        for row in largest.itertuples():
            slice_metrics[f"gap.{row.metric}.{row.pair}.{row.slice}"] = row.gap
        if slice_metrics:
            tracker.log_parent_metrics(slice_metrics)
        timings["difficulty"] = time.perf_counter() - t0
    from advisor.verdict._resample import log_item_scores

    log_item_scores(tracker, settings.task, splits.test.labels, predictions)  # what the bootstrap resamples
    from advisor.contextuality import log_mix_weights

    log_mix_weights(tracker.client, tracker.parent_id, tracker.experiment_id)  # which layers the task used
    analysis = load_analysis(tracker.parent_id, tracker.tracking_uri)
    tracker.log_table(analysis.curves, "analysis/curves.json")
    from advisor.plots import plot_learning_curves

    figure = plot_learning_curves(analysis)
    tracker.log_figure(figure, "figures/learning_curves.png")
    plt.close(figure)
    from advisor.verdict import recommend

    recommendation = recommend(analysis)
    verdict = recommendation.to_dict()
    tracker.log_parent_tags({"advisor.verdict": str(verdict.get("verdict", ""))})
    tracker.client.log_dict(tracker.parent_id, verdict, "analysis/verdict.json")
    # -- gain model (advisor.gain, issue 8): where does context help? ----------------------------------
    if settings.difficulty:
        _fit_and_log_gain_model(settings, splits, tracker, predictions, timings)


def _fit_and_log_gain_model(
    settings: RunSettings,
    splits: DataSplits,
    tracker: AnalysisTracker,
    predictions: dict[tuple[str, int, int], list[Any]],
    timings: dict[str, float],
) -> None:
    """Fit and log the gain model; a grid it cannot use (no baseline, tiny test split) is noted, not fatal."""
    from advisor.errors import AdvisorError
    from advisor.gain import fit_gain_model, log_gain_model

    t0 = time.perf_counter()
    try:
        result = fit_gain_model(
            settings.task, splits.train, splits.test, predictions, spacy_model=settings.spacy_model
        )
    except AdvisorError as error:
        tracker.log_parent_tags({"advisor.gain_skipped": error.message})
        return
    log_gain_model(result, tracker)
    timings["gain_model"] = time.perf_counter() - t0
