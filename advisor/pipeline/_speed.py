"""What this machine measured, kept for the next estimate: encoder words/s, training seconds per step.

Why: the duration shown before Run came from constants for 2 CPU cores and was a third of the truth
on a dataset of long texts. Every run records what it measured (the encoder per model and device;
training per task, family and device: seconds per optimizer step, dev passes included, and how many
steps cells took against the profile's rule, with the load average it met) in one small JSON file
under the cache root. The
estimate before a run reads it; with no record for the encoder, it times the encoder on a sample of
the user's own texts (a few seconds, recorded the same way).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from advisor.cache import cache_dir
from advisor.data import Corpus
from advisor.grid import StepCost
from advisor.progress import CellClock

__all__ = [
    "SPEED_FILE",
    "calibrate_encoder",
    "contention",
    "load_now",
    "machine_load",
    "record_encoder_speed",
    "record_step_costs",
    "record_training_speed",
    "recorded_encoder_speed",
    "recorded_seconds_per_step",
    "recorded_step_costs",
    "recorded_steps_ratio",
    "recorded_training_load",
    "speed_path",
]

#: Steps taken over the rule's expected steps, named for the rule it was measured against: a ratio
#: recorded against the rule before its plateau windows (``grid.expected_steps``) is not read.
STEPS_FIELD = "steps_over_rule_with_windows"

SPEED_FILE = "speed.json"
_CALIBRATION_ITEMS = 256  # after a warm-up batch; 64 texts made 23-63 % of a real pass's words/s here


def speed_path() -> Path:
    """The record's file under the cache root (``--cache-dir`` / ``$ADVISOR_CACHE_DIR`` / ``~/.cache/advisor``)."""
    return cache_dir("speed") / SPEED_FILE


def _load() -> dict[str, Any]:
    try:
        data = json.loads(speed_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _update(section: str, entries: dict[str, dict[str, Any]]) -> None:
    """Merge ``entries`` into one section, atomically; a read-only cache never fails a run."""
    data = _load()
    data.setdefault(section, {}).update({k: {**v, "when": time.time()} for k, v in entries.items()})
    path = speed_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, path)


def record_encoder_speed(model: str, device: str, words_per_s: float, source: str = "run") -> None:
    """The encoder's measured pace (words of text per second, model loading excluded)."""
    if words_per_s > 0:
        _update("encoder", {f"{model}|{device}": {"words_per_s": float(words_per_s), "source": source}})


def recorded_encoder_speed(model: str, device: str) -> tuple[float, str] | None:
    """(words/s, "run" or "calibration") recorded for this encoder on this device; None if never."""
    entry = _load().get("encoder", {}).get(f"{model}|{device}")
    if not isinstance(entry, dict) or not entry.get("words_per_s"):
        return None
    return float(entry["words_per_s"]), str(entry.get("source", "run"))


def machine_load() -> tuple[float, int] | None:
    """(1-minute load average, CPU cores) now; None where the system does not say."""
    try:
        return os.getloadavg()[0], os.cpu_count() or 1
    except (AttributeError, OSError):
        return None


def load_now(
    proc_loadavg: Path = Path("/proc/loadavg"), samples: int = 10, interval: float = 0.01
) -> tuple[float, int] | None:
    """(processes on the CPU now besides this one, CPU cores): the load a run started now will meet.

    Why not the 1-minute load average: it decays over minutes, so just after a heavy job ends it still
    counts that job (the demo, started as other jobs ended on 2 cores, was estimated under load 2.8
    at 50 min and took 27.6). Linux counts the processes running at this instant in
    ``/proc/loadavg`` (the reader is one of them); the mean over a few readings 10 ms apart counts a
    process busy half the time as half. Elsewhere: the load average.
    """
    counts = []
    for sample in range(samples):
        if sample:
            time.sleep(interval)
        try:
            running = proc_loadavg.read_text(encoding="ascii").split()[3].split("/")[0]
            counts.append(max(0, int(running) - 1))
        except (OSError, IndexError, ValueError):
            return machine_load()
    return sum(counts) / len(counts), os.cpu_count() or 1


def contention(load: float, cores: int) -> float:
    """How much slower than on idle cores a CPU-bound process runs with ``load`` runnable processes."""
    return max(1.0, load / max(cores, 1))


def record_training_speed(task: str, device: str, clock: CellClock) -> None:
    """Per family: seconds per step and steps taken against the rule, over the cells the clock saw, and
    the machine's load as training ended (the run's own workers included): a later estimate scales
    the seconds per step by the load it finds then."""
    entries = {}
    load = machine_load()
    for family in dict.fromkeys(f for f, *_ in clock.finished):
        cells = [(z, s, n) for f, z, s, n in clock.finished if f == family and n > 0]
        steps = sum(n for *_, n in cells)
        if steps:
            rule = sum(clock.rule(z) for z, *_ in cells)
            entries[f"{task}|{family}|{device}"] = {
                "seconds_per_step": sum(s for _, s, _ in cells) / steps,
                STEPS_FIELD: steps / max(rule, 1),
                "cells": len(cells),
                **({"load": load[0], "cores": load[1]} if load else {}),
            }
    if entries:
        _update("training", entries)


def _entries(section: str, task: str, device: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(what lies between task and device in the key, entry) of one section's records."""
    prefix, suffix = f"{task}|", f"|{device}"
    for key, entry in _load().get(section, {}).items():
        if key.startswith(prefix) and key.endswith(suffix) and isinstance(entry, dict):
            yield key[len(prefix) : -len(suffix)], entry


def _training(task: str, device: str, field: str) -> dict[str, float]:
    return {
        family: float(entry[field])
        for family, entry in _entries("training", task, device)
        if entry.get(field)
    }


def recorded_seconds_per_step(task: str, device: str) -> dict[str, float]:
    """Family -> seconds per optimizer step that earlier runs of ``task`` measured on ``device``."""
    return _training(task, device, "seconds_per_step")


def recorded_steps_ratio(task: str, device: str) -> dict[str, float]:
    """Family -> steps cells took over the steps the profile's rule expected (earlier runs)."""
    return _training(task, device, STEPS_FIELD)


def recorded_training_load(task: str, device: str) -> dict[str, float]:
    """Family -> how much the load slowed the run that recorded its seconds per step (``contention``);
    a family recorded without its load is absent."""
    loads = _training(task, device, "load")
    cores = _training(task, device, "cores")
    return {family: contention(load, int(cores.get(family, 1))) for family, load in loads.items()}


def record_step_costs(
    task: str, device: str, costs: dict[tuple[str, int], StepCost], load: tuple[float, int] | None
) -> None:
    """Training's pace timed on a sample (:func:`advisor.pipeline._calibrate.calibrate_training`), per
    family and projection width, with the load it met (other processes, its own not counted)."""
    where = {"load": load[0] + 1, "cores": load[1]} if load else {}  # +1: the timing process itself
    entries = {
        f"{task}|{family}|{width}|{device}": {"step_s": cost.step_s, "dev_item_s": cost.dev_item_s, **where}
        for (family, width), cost in costs.items()
    }
    if entries:
        _update("calibration", entries)


def recorded_step_costs(task: str, device: str) -> dict[tuple[str, int], tuple[StepCost, float]]:
    """(family, width) -> (pace timed on a sample of ``task``'s texts on ``device``, how much its load
    slowed it)."""
    found = {}
    for family_width, entry in _entries("calibration", task, device):
        with contextlib.suppress(KeyError, TypeError, ValueError):
            family, _, width = family_width.rpartition("|")
            cost = StepCost(float(entry["step_s"]), float(entry["dev_item_s"]))
            slowed = contention(float(entry.get("load", 1.0)), int(entry.get("cores", 1)))
            found[family, int(width)] = (cost, slowed)
    return found


def calibrate_encoder(options: dict[str, Any], corpus: Corpus) -> float | None:
    """Words/s of the contextual encoder on a sample of ``corpus``, timed after a warm-up batch;
    the feature cache is not touched. None when the corpus is too small to time."""
    from advisor.embeddings import make_embedding

    n = len(corpus)
    if n < 8:
        return None
    embedding = make_embedding("contextual", **{**options, "use_cache": False})
    step = max(n // (_CALIBRATION_ITEMS + 16), 1)
    sample = list(range(0, n, step))[: _CALIBRATION_ITEMS + 16]
    embedding.featurize(corpus.subset(sample[:16]))  # loads the model and warms it up
    timed = corpus.subset(sample[16:] or sample)
    start = time.perf_counter()
    embedding.featurize(timed)
    seconds = time.perf_counter() - start
    words = sum(len(tokens) for tokens in timed.tokens)
    return words / seconds if seconds > 0 else None
