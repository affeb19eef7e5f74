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

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from numbers import Integral
from pathlib import Path
from typing import Any

from advisor.analysis import Analysis
from advisor.cache import using_cache_root
from advisor.data import DataSplits, read_splits
from advisor.grid import Cell, expected_steps, profiles, subset_order, tuned_widths, tuning_seeds
from advisor.pipeline import (
    LR_TAG,
    PROJECTION_TAG,
    TUNING_TABLE,
    CellOutcome,
    CellSink,
    Extension,
    RunPlan,
    StageContext,
    TimeBudget,
    choose_learning_rates,
    estimate_run,
    extension_floor,
    featurize_missing,
    final_report,
    frozen_heap,
    known_rates,
    known_settings,
    plan_budget,
    plan_run,
    record_training_speed,
    recorded_seconds_per_step,
    reusing,
    run_cells,
    run_stages,
    step_from_rows,
    then_own_trainers,
    timed_trials,
    train_until_decided,
    trains_itself,
    trial_cells,
    tuning_size,
    with_size,
    worker_count,
)
from advisor.progress import CellClock
from advisor.settings import RunSettings
from advisor.tracking import (
    ANALYSIS_COMPLETE,
    BUDGET_STOP_TAG,
    AnalysisTracker,
    child_params,
    resolve_tracking_uri,
)
from advisor.validate import validate_settings

__all__ = ["ProgressEvent", "RunOutcome", "run_analysis"]


@dataclass
class ProgressEvent:
    """What a progress display needs: cells done / total, the current cell, its result."""

    stage: str  # one of advisor.progress.STAGES ("read", "plan", "estimate", ..., "early", "done")
    done: int = 0
    total: int = 0
    message: str = ""
    cell: Cell | None = None
    score: float | None = None
    seconds: float = 0.0
    rate: float | None = None  # featurize: items per second so far
    eta: float | None = None  # featurize: seconds left for this embedding; tune, cell: for all training
    steps: int = 0  # tune, cell: optimizer steps the cell took
    run_id: str = ""  # plan: the MLflow parent run


@dataclass
class RunOutcome:
    """What one run did, and its :class:`~advisor.analysis.Analysis` as the stages assembled it (with the
    run's final status): a caller judges it without reading the run back. None when this process
    analysed nothing (every cell reused, the analysis already logged): ``load_analysis`` reads it."""

    run_id: str
    experiment: str
    tracking_uri: str
    computed: list[Cell]
    reused: list[Cell]
    timings: dict[str, float]
    device: str
    resumed: bool
    analysis: Analysis | None = None
    experiment_id: str = ""  # where the MLflow UI shows the run


def _read(
    settings: RunSettings, splits: DataSplits | None, notify: Callable[[ProgressEvent], None]
) -> DataSplits:
    """The splits, and every warning the readers raised, shown as a ``warning`` event each (as
    ``advisor inspect`` shows them): a skipped row or an unseen label must not pass silently."""
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
    for warning in dict.fromkeys(splits.warnings):
        notify(ProgressEvent("warning", message=warning))
    return splits


def _open(
    settings: RunSettings, plan: RunPlan, splits: DataSplits, notify: Callable[[ProgressEvent], None]
) -> AnalysisTracker:
    """Open or resume the parent run; a new one also gets its datasets and test tokens."""
    tracker = AnalysisTracker(settings.tracking_uri or resolve_tracking_uri(None), settings.experiment)
    tracker.open(
        plan.key,
        f"{plan.name}-{settings.task}",
        plan.params,
        plan.tags,
        force=settings.force,
        on_wait=lambda message: notify(ProgressEvent("waiting", message=message)),
        planned=[(c.embedding, c.size, c.seed) for c in plan.grid.cells],
    )
    if tracker.idle:  # a finished analysis with nothing to do: left exactly as its creator wrote it
        return tracker
    if not tracker.resumed:
        from advisor.tracking import log_dataset_inputs, log_test_tokens

        log_dataset_inputs(tracker.client, tracker.parent_id, splits, plan.name)  # MLflow's "Datasets" column
        log_test_tokens(tracker.client, tracker.parent_id, splits)  # the app's item explorer, even if killed
    tracker.log_parent_tags({"advisor.total_cells": str(len(plan.grid.cells)), "advisor.device": plan.device})
    tracker.log_reader_warnings(list(dict.fromkeys(splits.warnings)))
    return tracker


def run_analysis(
    settings: RunSettings,
    progress: Callable[[ProgressEvent], None] | None = None,
    splits: DataSplits | None = None,
    fail_after: int | None = None,
) -> RunOutcome:
    """Run (or resume) one analysis and return what was computed; see the module docstring.

    ``fail_after`` raises after that many computed cells: used by tests to prove a failed run ends
    FAILED and a re-run computes only the missing cells. ``settings.cache_dir`` is the cache root of
    every cache the run fills (features, parses, vectors, distilled models).
    """
    with using_cache_root(settings.cache_dir), frozen_heap():
        return _run_analysis(settings, progress, splits, fail_after)


def _run_analysis(
    settings: RunSettings,
    progress: Callable[[ProgressEvent], None] | None,
    splits: DataSplits | None,
    fail_after: int | None,
) -> RunOutcome:
    validate_settings(settings)  # the run's one check: before any MLflow run exists or any model is loaded
    notify = progress or (lambda event: None)
    started = time.perf_counter()
    splits = _read(settings, splits, notify)
    timings: dict[str, float] = {"read": time.perf_counter() - started}
    plan = plan_run(settings, splits)
    tracker = _open(settings, plan, splits, notify)
    pending, reused = _pending(settings, plan, tracker, notify)
    sink = CellSink(tracker, settings.task, plan.primary, splits.test, timings)
    training = _Training(settings, splits, sink, notify, fail_after)
    status, analysis, stop = "FAILED", None, None
    try:  # from here on the open run is closed whatever happens (timing training takes seconds)
        if pending and not reused:  # the app's line before Run (no encoder timing: it would load twice)
            estimate = estimate_run(settings, splits, calibrate=False)
            notify(ProgressEvent("estimate", message=estimate.text()))
        budget = plan_budget(settings, splits, plan, pending, started, known_rates(tracker.tags))
        training.budget, older = budget, tracker.tags.get(BUDGET_STOP_TAG)  # an older budget's stop: cleared
        if settings.until == "decided" or budget or older:  # round by round (advisor.pipeline._rounds)
            training.clock, batch = _clock(settings, plan), partial(training.train, plan, reused=reused)
            rounds = (training.clock, budget, settings.until == "decided", started)
            stop = train_until_decided(plan, pending, sink, batch, notify, ProgressEvent, *rounds)
        elif pending:
            training.train(plan, pending, reused)
        if stop is None:  # a settled or budget stop trains no smaller size
            plan, reused = _extend(plan, training, reused)
        training.features.clear()  # the analysis needs the memory more
        if sink.computed or not tracker.analysis_complete():
            analysis = _analyse(settings, plan, splits, sink, reused, notify)
        status = "FINISHED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        timings["total"] = time.perf_counter() - started
        tracker.close(status)
    if analysis is not None:  # after close: the report states the run's final status, not RUNNING
        analysis = replace(analysis, status=status)  # as a reader of the closed run gets it back
        timings["report"] = final_report(tracker, analysis)
        tracker.mark_analysis(ANALYSIS_COMPLETE)  # last: a run killed before this re-analyses
    total = len(plan.grid.cells)
    notify(ProgressEvent("done", done=total, total=total))
    return RunOutcome(
        run_id=tracker.parent_id,
        experiment=settings.experiment,
        tracking_uri=tracker.tracking_uri,
        computed=sink.computed,
        reused=reused,
        timings=timings,
        device=plan.device,
        resumed=tracker.resumed,
        analysis=analysis,
        experiment_id=tracker.experiment_id,
    )


def _pending(
    settings: RunSettings, plan: RunPlan, tracker: AnalysisTracker, notify: Callable[[ProgressEvent], None]
) -> tuple[list[Cell], list[Cell]]:
    """(cells to compute, cells an earlier run finished); ``--force`` recomputes every cell."""
    cells = plan.grid.cells
    pending = [c for c in cells if settings.force or not tracker.is_finished(c.embedding, c.size, c.seed)]
    reused = [c for c in cells if c not in pending]
    message = f"{len(pending)} cells to compute"
    notify(ProgressEvent("plan", len(reused), len(cells), message, run_id=tracker.parent_id))
    return pending, reused


@dataclass
class _Training:
    """What training a batch of cells needs, shared by the planned grid and its extension."""

    settings: RunSettings
    splits: DataSplits
    sink: CellSink
    notify: Callable[[ProgressEvent], None]
    fail_after: int | None
    features: dict[str, Any] = field(default_factory=dict)  # made once, reused by the extension
    trials: dict[Cell, CellOutcome] = field(default_factory=dict)  # rate trials that are grid cells
    clock: CellClock | None = None  # the training ETA, measured as cells finish (made by ``train``)
    budget: TimeBudget | None = None  # --budget: the extension's sizes are added only while they fit

    def train(self, plan: RunPlan, pending: list[Cell], reused: list[Cell]) -> None:
        """Train and log ``pending``; the workers stop on any error, not when the traceback is collected."""
        timings, tracker = self.sink.timings, self.sink.tracker
        self.clock = self.clock or _clock(self.settings, plan)
        self.clock.plan((c.embedding, c.size) for c in pending)
        run = (self.settings, plan, pending, self.splits, tracker, timings, self.notify, self.clock)
        cells, n_workers = _start_cells(*run, self.features, self.trials)
        try:
            t_train = time.perf_counter()
            _train(cells, self.sink, len(plan.grid.cells), reused, self.notify, self.fail_after, self.clock)
            timings["train_wall"] = timings.get("train_wall", 0.0) + time.perf_counter() - t_train
            timings["workers"] = max(timings.get("workers", 0.0), float(n_workers))
            record_training_speed(self.settings.task, plan.device, self.clock)
        finally:
            cells.close()


def _clock(settings: RunSettings, plan: RunPlan) -> CellClock:
    """The training ETA's clock: the profile's step rule, and what earlier runs measured on this machine."""
    profile = profiles.get(settings.profile)
    prior = recorded_seconds_per_step(settings.task, plan.device)
    return CellClock(lambda size: expected_steps(size, profile, settings.max_steps), prior=prior)


def _extend(plan: RunPlan, training: _Training, reused: list[Cell]) -> tuple[RunPlan, list[Cell]]:
    """Halve the grid's smallest size while contextual still matches a converged cheaper family at
    every size (:mod:`advisor.pipeline._extend`); an explicit ``--sizes`` / ``--fractions`` grid is kept as given.

    Decided from the finished cells alone (scores, under-trained flags), so a resumed run re-derives
    the same sizes and trains only their missing cells."""
    settings, tracker = training.settings, training.sink.tracker
    if settings.sizes or settings.fractions:
        return plan, reused
    floor = extension_floor(training.splits.train)
    while (step := step_from_rows(plan.grid, tracker.cells, floor)) is not None:
        if step.size is None:  # floor, or only under-trained matches: reported censored, not chased
            _log_extension(plan, training, step, len(plan.grid.cells))
            break
        grid, budget = with_size(plan.grid, step.size), training.budget
        new = [c for c in grid.cells if c.size == step.size]
        pending = [c for c in new if not tracker.is_finished(c.embedding, c.size, c.seed)]
        if budget is not None and pending and not budget.admits(pending):
            break  # --budget: a smaller size is added only while its cells fit (advisor.pipeline._budget)
        plan, reused = replace(plan, grid=grid), [*reused, *(c for c in new if c not in pending)]
        _log_extension(plan, training, step, len(plan.grid.cells) - len(pending))
        if pending and budget is not None:
            budget.train(pending, partial(training.train, plan, reused=reused))
        elif pending:
            training.train(plan, pending, reused)
    return plan, reused


def _log_extension(plan: RunPlan, training: _Training, step: Extension, done: int) -> None:
    """The extension on the parent (tags) and in the progress display (a ``plan`` event)."""
    tracker, total = training.sink.tracker, len(plan.grid.cells)
    extended = sorted(s for s in plan.grid.sizes if s < min(plan.params["sizes"]))
    tracker.log_parent_tags(
        {
            "advisor.extended_sizes": ",".join(map(str, extended)),
            "advisor.extension_floor": str(step.floor),
            "advisor.extension": step.describe(),
            "advisor.total_cells": str(total),
        }
    )
    message = f"{step.describe()}; {total - done} cells to compute"
    training.notify(ProgressEvent("plan", done, total, message, run_id=tracker.parent_id))


def _start_cells(
    settings: RunSettings,
    plan: RunPlan,
    pending: list[Cell],
    splits: DataSplits,
    tracker: AnalysisTracker,
    timings: dict[str, float],
    notify: Callable[[ProgressEvent], None],
    clock: CellClock,
    cache: dict[str, Any],
    trials: dict[Cell, CellOutcome],
) -> tuple[Iterator[CellOutcome], int]:
    """Featurize what ``pending`` needs (``cache``: earlier batches' features), open the child runs, start
    the executor (``trials``: handed on, not retrained; own-trainer families last); closing it stops it."""
    frozen = [c for c in pending if not trains_itself(c)]
    todo = _untuned(settings, frozen, tracker)  # their trials train cells a round may not hold yet
    needed = pending + trial_cells(plan.grid, todo, tuning_seeds(plan.grid, profiles.get(settings.profile)))
    features = featurize_missing(
        plan.grid, needed, plan.options, splits, tracker, timings, notify, ProgressEvent, cache
    )
    orders = {seed: subset_order(splits.train, seed) for seed in plan.grid.seeds}
    state = {"features": features, "splits": splits, "orders": orders, "config": plan.train_config.to_dict()}
    n_workers = worker_count(settings.workers, plan.device, len(pending))
    clock.workers = n_workers

    def execute(cells: list[Cell]) -> Iterator[CellOutcome]:  # local or Ray: same cells, seeds, results
        return run_cells(cells, state, settings.backend, settings.workers, settings.ray_address, plan.device)

    t_tune = time.perf_counter()
    timed = timed_trials(execute, notify, clock, ProgressEvent)  # the chosen rate's go into ``trials``
    state["chosen"] = _chosen_settings(settings, plan, todo, tracker, timed, notify, trials)
    timings["tune"] = timings.get("tune", 0.0) + time.perf_counter() - t_tune
    _open_children(plan, pending, features, state["chosen"], tracker)  # after tuning: with its rate, width
    cells = reusing(trials, execute)(frozen)
    if len(frozen) < len(pending):  # families that train their own cells: in this process, after the rest
        cells = then_own_trainers(cells, [c for c in pending if trains_itself(c)], plan.options, splits)
    return cells, n_workers


def _open_children(
    plan: RunPlan,
    pending: list[Cell],
    features: dict[str, Any],
    chosen: dict[str, dict[str, Any]],
    tracker: AnalysisTracker,
) -> None:
    """The child run of every pending cell, with the params that tell it apart in MLflow's runs table."""
    for cell in pending:
        sizes = [c.size for c in plan.grid.cells if (c.embedding, c.seed) == (cell.embedding, cell.seed)]
        own = chosen.get(cell.embedding, {})
        train = None if trains_itself(cell) else plan.train_config.to_dict() | {"lr": None} | own
        params = child_params(
            cell.embedding,
            cell.seed,
            plan.options[cell.embedding],
            max_size=max(sizes),
            dim=_width(features, cell),
            train=train,
        )
        tracker.child(cell.embedding, cell.seed, params)


def _width(features: dict[str, Any], cell: Cell) -> int | None:
    """The width of ``cell``'s features (a per-seed family: its seed's fitted table); None if unknown."""
    entry = features.get(cell.embedding)
    if isinstance(entry, dict):
        entry = entry.get(cell.seed)
    elif isinstance(entry, tuple):
        entry = entry[0]
    dim = getattr(entry, "dim", None)
    return int(dim) if isinstance(dim, Integral) else None


def _untuned(settings: RunSettings, frozen: list[Cell], tracker: AnalysisTracker) -> list[str]:
    """The frozen families whose rate is neither given (``--lr``) nor chosen earlier: tuned now."""
    if settings.lr is not None:
        return []
    rates = known_rates(tracker.tags)
    return [e for e in dict.fromkeys(c.embedding for c in frozen) if e not in rates]


def _chosen_settings(
    settings: RunSettings,
    plan: RunPlan,
    todo: list[str],
    tracker: AnalysisTracker,
    execute: Callable[[list[Cell]], Iterator[CellOutcome]],
    notify: Callable[[ProgressEvent], None],
    trials: dict[Cell, CellOutcome],
) -> dict[str, dict[str, Any]]:
    """Each frozen family's ``lr`` and ``projection``: ``--lr`` for all (at the run's one width), those
    chosen earlier, or chosen now on dev (its trials at the chosen setting go into ``trials``)."""
    if settings.lr is not None:
        return {e: {"lr": settings.lr} for e in plan.grid.embeddings}
    chosen = known_settings(tracker.tags)
    if not todo:
        return chosen
    profile = profiles.get(settings.profile)
    lr_grid, widths = profile.lr_grid, tuned_widths(profile, settings.projection)
    size = tuning_size(plan.grid)
    tried = f"learning rates {lr_grid}" + (f" x projection widths {widths}" if len(widths) > 1 else "")
    kept = tracker.kept_trials()  # a tuning stage an earlier process stopped half-way
    again = f" ({len(kept)} trials kept from an earlier process)" if kept is not None else ""
    notify(ProgressEvent("tune", message=f"{', '.join(todo)}: {tried} at {size:,} items{again}"))
    seeds, keep = tuning_seeds(plan.grid, profile), tracker.keep_trials
    picked = choose_learning_rates(
        plan.grid, todo, lr_grid, seeds, execute, widths=widths, done=kept, keep=keep
    )
    tracker.log_table(picked.table, TUNING_TABLE)
    tags = {LR_TAG + e: repr(lr) for e, lr in picked.rates.items()}
    tags |= {PROJECTION_TAG + e: str(width) for e, width in picked.widths.items()}
    tracker.log_parent_tags(tags)
    dims = {e: f" at {width} dims" if len(widths) > 1 else "" for e, width in picked.widths.items()}
    message = ", ".join(f"{e} {lr:g}{dims[e]}" for e, lr in picked.rates.items())
    notify(ProgressEvent("tune", message=f"chosen on dev: {message}"))
    trials.update(picked.trials)
    return chosen | known_settings(tags)  # read back as a resumed run will read them


def _train(
    cells: Iterator[CellOutcome],
    sink: CellSink,
    total: int,
    reused: list[Cell],
    notify: Callable[[ProgressEvent], None],
    fail_after: int | None,
    clock: CellClock,
) -> None:
    """Log every cell as it finishes and report progress, with the training time left."""
    for cell, result, seconds in cells:
        sink.log(cell, result)
        done = len(reused) + len(sink.computed)
        eta = clock.finish(cell.embedding, cell.size, seconds, result.steps)
        event = ProgressEvent("cell", done, total, cell=cell, score=result.score, seconds=seconds)
        event.eta, event.steps = eta, result.steps
        notify(event)
        if fail_after is not None and len(sink.computed) >= fail_after:
            raise RuntimeError(f"injected failure after {fail_after} cells")


def _analyse(
    settings: RunSettings,
    plan: RunPlan,
    splits: DataSplits,
    sink: CellSink,
    reused: list[Cell],
    notify: Callable[[ProgressEvent], None],
) -> Analysis | None:
    """The analysis stages (serving costs and contextuality first), from every finished cell; the
    run's Analysis as the stages assembled it."""
    t0, total, timings = time.perf_counter(), len(plan.grid.cells), sink.timings
    notify(ProgressEvent("analysis", done=total, total=total, message="difficulty and verdict"))
    sink.reuse(reused)
    sink.tracker.mark_analysis("running")  # until the report is logged, a re-run redoes the stages
    context = StageContext(
        settings,
        splits,
        sink.tracker,
        sink.predictions,
        timings,
        plan=plan,
        layer_weights=sink.layer_weights,
        reused=reused,
    )
    run_stages(context)
    timings["analysis"] = time.perf_counter() - t0
    return context.analysis
