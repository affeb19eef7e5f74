"""The duration expected before a run, from what this machine measured (``_speed``), said with its basis.

Why: the app said "about 13 min" for 43.7 min of work, from constants. The estimate now takes the
encoder's words/s (recorded by an earlier run, or timed now on a sample of the user's texts: a few
seconds, once per model and device) and the training seconds per step and steps per cell recorded
by earlier runs of the task on this device; the sentence names which of these it rests on.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.cache import using_cache_root
from advisor.data import DataSplits, read_splits
from advisor.errors import AdvisorError
from advisor.grid import (
    GridPlan,
    StepCost,
    Throughput,
    duration_text,
    estimate_seconds,
    plan_grid,
    profiles,
    tuned_widths,
)
from advisor.pipeline._execute import worker_count
from advisor.pipeline._extend import extension_floor, smaller_size
from advisor.pipeline._plan import embedding_options, resolve_device
from advisor.pipeline._speed import (
    calibrate_encoder,
    contention,
    load_now,
    record_encoder_speed,
    record_step_costs,
    recorded_encoder_speed,
    recorded_seconds_per_step,
    recorded_step_costs,
    recorded_steps_ratio,
    recorded_training_load,
)
from advisor.progress import duration
from advisor.settings import RunSettings

__all__ = [
    "TIME_TRAINING_FROM_S",
    "RunEstimate",
    "encoder_key",
    "estimate_run",
    "expected_duration_text",
    "machine_throughput",
]


@dataclass(frozen=True)
class RunEstimate:
    seconds: float
    plan: GridPlan
    throughput: Throughput
    extension: tuple[int, float] | None = None  # (smallest size it may add, seconds its cells may take)

    def text(self) -> str:
        speed = self.throughput
        rough = not (speed.seconds_per_step or speed.step_costs)  # the training part is a constant: say so
        line = duration_text(self.seconds, self.plan, self.throughput.based_on, rough=rough)
        if self.extension is None:
            return line
        floor, seconds = self.extension
        return (
            f"{line} If contextual still matches a cheaper family at the smallest size, the grid extends "
            f"down to {floor:,} items: up to about {duration(seconds)} more."
        )


def encoder_key(options: dict) -> str:
    """The contextual encoder as its speed is recorded: the model the options name, else the default."""
    from advisor.embeddings import default_encoder

    return str(options.get("model") or default_encoder())


def _encoder_speed(
    settings: RunSettings, splits: DataSplits, device: str, calibrate: bool
) -> tuple[float | None, str]:
    """(words/s, what it rests on) for the run's encoder on ``device``."""
    options = embedding_options(settings, "contextual", profiles.get(settings.profile).random_dim, device)
    model = encoder_key(options)
    recorded = recorded_encoder_speed(model, device)
    if recorded is not None:
        how = "timed on a sample of texts" if recorded[1] == "calibration" else "measured by an earlier run"
        return recorded[0], f"the encoder's speed {how} on this machine ({device})"
    if calibrate:
        try:
            words_per_s = calibrate_encoder(options, splits.train)
        except (AdvisorError, OSError, ValueError, RuntimeError):  # the form's own checks say what is wrong
            words_per_s = None
        if words_per_s:
            record_encoder_speed(model, device, words_per_s, source="calibration")
            return words_per_s, f"the encoder timed just now on a sample of your texts ({device})"
    return None, "an encoder speed constant for 2 CPU cores" + _off_the_cpu(device)


def _off_the_cpu(device: str) -> str:
    """What a CPU constant means for a run on another device: nothing measured there says how far off."""
    return "" if device == "cpu" else f", though this run uses {device}, where nothing was measured yet"


def _under_load_now(
    per_step: dict[str, float], recorded_at: dict[str, float], workers: int
) -> tuple[dict[str, float], float, str]:
    """The recorded seconds per step scaled from the load they were measured under to the load now
    (other processes plus this run's ``workers``), the factor for the idle-core constant, and a clause
    that names the load when it slows the run. Why: on a shared machine the load, not the model, set
    the pace (a TREC run estimated at 16 min took 55 at load 11 on 2 cores)."""
    now = load_now()
    if now is None:
        return per_step, 1.0, ""
    factor = contention(now[0] + workers, now[1])
    scaled = {f: s * factor / recorded_at[f] if f in recorded_at else s for f, s in per_step.items()}
    scaled_any = not per_step or any(f in recorded_at for f in per_step)  # else: nothing to scale
    said = f"the machine's load now ({now[0]:.1f} on {now[1]} cores)" if factor > 1.05 and scaled_any else ""
    return scaled, factor, said


def machine_throughput(
    settings: RunSettings,
    splits: DataSplits,
    calibrate: bool = True,
    workers: int = 1,
    time_training: bool = False,
) -> Throughput:
    """What this machine measured for this run's encoder and task (missing parts: the 2-core constants),
    training scaled to the load now for ``workers`` parallel workers. ``time_training``: with no
    training speed recorded for the task, time the downstream model on a sample now (seconds)."""
    device = resolve_device(settings.device)
    per_step, factor, load_said = _under_load_now(
        recorded_seconds_per_step(settings.task, device),
        recorded_training_load(settings.task, device),
        workers,
    )
    basis = []
    words_per_s = None
    if "contextual" in settings.embeddings:
        words_per_s, said = _encoder_speed(settings, splits, device, calibrate)
        basis.append(said)
    costs, timed_said = ({}, "") if per_step else _step_costs(settings, splits, device, time_training)
    if per_step:
        basis.append(f"training speed recorded by earlier {settings.task} runs on this machine")
    elif costs:
        basis.append(timed_said)
    else:
        basis.append(
            "a training speed constant for 2 idle CPU cores (no earlier run of this task here yet)"
            + _off_the_cpu(device)
        )
    if load_said:
        basis.append(load_said)
    said = " and ".join(basis) if len(basis) < 3 else ", ".join(basis[:-1]) + " and " + basis[-1]
    scaled = {k: StepCost(c.step_s * factor / at, c.dev_item_s * factor / at) for k, (c, at) in costs.items()}
    ratio = recorded_steps_ratio(settings.task, device)
    return Throughput(words_per_s, per_step, ratio, said, factor, scaled, len(splits.dev))


def _step_costs(
    settings: RunSettings, splits: DataSplits, device: str, time_now: bool
) -> tuple[dict[tuple[str, int], tuple[StepCost, float]], str]:
    """Training's pace timed on a sample of this task's texts: recorded earlier, else timed now (and
    recorded) when ``time_now``; with the clause that says which."""
    from advisor.pipeline._calibrate import CALIBRATED_FAMILIES, calibrate_training

    recorded = recorded_step_costs(settings.task, device)
    if recorded or not time_now:
        return recorded, "training speed timed earlier on a sample of this task's texts on this machine"
    from trainers import TrainConfig, resolve_precision

    profile = profiles.get(settings.profile)
    random_dim = settings.random_dim or profile.random_dim
    names = [e for e in settings.embeddings if e in CALIBRATED_FAMILIES]
    options = {e: embedding_options(settings, e, random_dim, device) for e in names}
    config = TrainConfig(device=device, precision=resolve_precision(settings.precision, device))
    load = load_now()
    try:
        costs = calibrate_training(splits, options, config, tuned_widths(profile, settings.projection))
    except (AdvisorError, OSError, ValueError, RuntimeError, AssertionError):  # e.g. no CUDA in this torch
        return {}, ""  # a best-effort timing: the run's own checks say what is wrong, with its error code
    record_step_costs(settings.task, device, costs, load)
    slowed = contention(load[0] + 1, load[1]) if load else 1.0
    timed = {key: (cost, slowed) for key, cost in costs.items()}
    return timed, "training speed timed just now on a sample of your texts"


#: A run the constants put under this many seconds is not worth half a minute of timing training.
TIME_TRAINING_FROM_S = 600.0


def estimate_run(
    settings: RunSettings,
    splits: DataSplits | None = None,
    calibrate: bool = True,
    time_training: bool = True,
) -> RunEstimate:
    """The run's grid and its expected wall time on this machine, with what the estimate rests on.

    ``calibrate``: time the encoder on a sample when its speed was never recorded. ``time_training``:
    with no training speed recorded for the task, a run the constants put at
    :data:`TIME_TRAINING_FROM_S` or more first times its downstream model on a sample (recorded)."""
    s = settings
    splits = splits or read_splits(
        s.data, s.task, dev=s.dev, test=s.test, text_col=s.text_col, label_col=s.label_col, seed=s.split_seed
    )
    profile = profiles.get(s.profile)
    plan = plan_grid(len(splits.train), s.embeddings, profile, s.sizes, s.fractions, s.seeds)
    workers = worker_count(s.workers, resolve_device(s.device), max(len(plan.cells), 1))
    n_words = sum(len(t) for part in (splits.train, splits.dev, splits.test) for t in part.tokens)
    n_eval = len(splits.dev) + len(splits.test)

    def expected(time_training: bool) -> tuple[float, Throughput]:
        with using_cache_root(s.cache_dir):  # the speeds recorded under the run's own cache root
            speed = machine_throughput(s, splits, calibrate, workers, time_training)
        args = (plan, profile, n_eval, workers, s.max_steps, s.lr is None, speed, n_words)
        return estimate_seconds(*args, projection=s.projection), speed

    seconds, throughput = expected(time_training=False)
    measured = throughput.seconds_per_step or throughput.step_costs
    if time_training and not measured and seconds >= TIME_TRAINING_FROM_S:
        seconds, throughput = expected(time_training=True)
    return RunEstimate(seconds, plan, throughput, _extension(s, plan, splits, throughput, workers))


def _extension(
    s: RunSettings, plan: GridPlan, splits: DataSplits, speed: Throughput, workers: int
) -> tuple[int, float] | None:
    """What the run may add below its grid (``_extend``: halving while contextual still matches a
    cheaper family, down to the floor): the smallest size and its cells' seconds; None when it cannot.
    Why: a TREC run planned at 18 cells trained 30."""
    if s.sizes or s.fractions or "contextual" not in plan.embeddings or len(plan.embeddings) < 2:
        return None
    profile, floor, sizes = profiles.get(s.profile), max(extension_floor(splits.train), 1), []
    while (size := smaller_size(min([*plan.sizes, *sizes]), plan.full_size)) >= floor:
        sizes.append(size)
    cells = [(e, z) for z in sizes for _ in plan.seeds for e in plan.embeddings]
    seconds = sum(speed.steps(z, e, profile, s.max_steps) * speed.step_seconds(e, z) for e, z in cells)
    return (min(sizes), seconds / max(workers, 1)) if sizes else None


def expected_duration_text(settings: RunSettings, calibrate: bool = True, time_training: bool = True) -> str:
    """The line the app shows before Run: duration, grid, and what the estimate is based on."""
    return estimate_run(settings, calibrate=calibrate, time_training=time_training).text()
