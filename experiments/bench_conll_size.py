"""Benchmark (issue 17): a CoNLL-2003-size ``advisor run`` with the default profile, cold, then re-run.

    python experiments/bench_conll_size.py [--data-dir ../shared/data/wnut17] [--profile default] [--precision auto]
        [--device cuda] [--no-difficulty] [--progress]

CoNLL-2003 itself is not in ../shared/data, so a proxy of the same shape is built from WNUT-17:
14,041 / 3,250 / 3,453 sentences (train / dev / test), cycling through WNUT-17's train, dev and
test sentences. Every sentence that repeats an earlier one (a second copy, or a duplicate already in
WNUT-17) gets one extra trailing token ``@copyN`` (tag O), so no two sentences of a split are equal: no feature cache, parse cache or de-duplication can shortcut the work a
real 14k-sentence corpus costs. The proxy lives in a temporary folder, never in the project.

Two runs in one fresh MLflow store and one fresh feature cache:
1. cold: nothing cached; prints ``cold run wall: N s``, CPU seconds (this process and its workers),
   and the share of the wall time spent reading, featurizing, training and analysing;
2. identical re-run: same command again; every cell and the analysis are reused.

Then the cold run's stage table (issue 30): seconds of the encoder pass and the other featurizers,
learning-rate tuning, training (wall, and the sum over cells per family), evaluation, analysis and
its parts; and the optimizer steps each family's cells took (sum, median per cell), so the next
profile starts from numbers.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    import pandas as pd

    from advisor.analysis import Analysis
    from advisor.runner import ProgressEvent

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wnut17"
CONLL2003_SHAPE = {"train": 14_041, "dev": 3_250, "test": 3_453}
SOURCES = {"train": "wnut17train.conll", "dev": "emerging.dev.conll", "test": "emerging.test.annotated"}


def read_conll_sentences(path: Path) -> list[list[tuple[str, str]]]:
    """(token, tag) sentences of a 2-column CoNLL file; lone-TAB lines end a sentence as in WNUT-17."""
    sentences: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        fields = line.rstrip("\r").split("\t")
        if len(fields) < 2 or not fields[0].strip():
            if current:
                sentences.append(current)
            current = []
            continue
        current.append((fields[0], fields[-1]))
    if current:
        sentences.append(current)
    return sentences


def distinct_copies(sentences: list[list[tuple[str, str]]], n: int) -> Iterator[list[tuple[str, str]]]:
    """``n`` distinct sentences cycling through ``sentences``; a repeat ends with an ``@copyN`` token."""
    seen: set[tuple[str, ...]] = set()
    for i in range(n):
        sentence = sentences[i % len(sentences)]
        tokens = tuple(token for token, _ in sentence)
        if tokens in seen:
            sentence = [*sentence, (f"@copy{i}", "O")]
            tokens = (*tokens, f"@copy{i}")
        seen.add(tokens)
        yield sentence


def write_proxy(data_dir: Path, out_dir: Path) -> dict[str, Path]:
    """Write the CoNLL-size proxy (train/dev/test) under ``out_dir``; return the three paths."""
    paths = {}
    for part, n in CONLL2003_SHAPE.items():
        sentences = read_conll_sentences(data_dir / SOURCES[part])
        path = out_dir / f"proxy_{part}.conll"
        with path.open("w", encoding="utf-8") as handle:
            for sentence in distinct_copies(sentences, n):
                handle.write("\n".join(f"{token}\t{tag}" for token, tag in sentence) + "\n\n")
        paths[part] = path
    return paths


def progress_printer() -> Callable[[ProgressEvent], None]:
    """Print a run's events with the seconds since the first: a stopped run still says where time went."""
    start = time.perf_counter()

    def show(event: ProgressEvent) -> None:
        cell = f" {event.cell.embedding} size {event.cell.size} seed {event.cell.seed}" if event.cell else ""
        steps = f" {event.steps} steps" if event.steps else ""
        print(
            f"[{time.perf_counter() - start:7.1f} s] {event.stage}{cell}{steps} {event.message}", flush=True
        )

    return show


def cpu_seconds() -> float:
    """User + system CPU of this process and every finished child (the training workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def featurize_seconds(timings: dict[str, float]) -> float:
    """The encoder pass and the other families' features: every ``featurize.<family>`` timing of a run."""
    return sum(v for k, v in timings.items() if k.startswith("featurize."))


def stage_shares(timings: dict[str, float], wall: float) -> dict[str, float]:
    """Share of wall time per stage; training is the pool's wall time, not the sum over workers."""
    stages = {
        "read": timings.get("read", 0.0),
        "featurize": featurize_seconds(timings),
        "train": timings.get("train_wall", 0.0),
        "analysis": timings.get("analysis", 0.0),
    }
    stages["other"] = max(0.0, wall - sum(stages.values()))
    return {name: seconds / wall for name, seconds in stages.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--precision", default="auto", help="auto, float32 or bfloat16 (advisor --precision)")
    parser.add_argument(
        "--device", default=None, help="cpu, cuda, cuda:N (advisor --device; default: a GPU when visible)"
    )
    parser.add_argument(
        "--progress", action="store_true", help="print every stage and cell as it ends (seconds since start)"
    )
    parser.add_argument(
        "--no-difficulty",
        action="store_true",
        help="skip the parse-based difficulty (advisor --no-difficulty)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from advisor.runner import run_analysis
    from advisor.settings import RunSettings
    from advisor.tracking import load_analysis
    from trainers import resolve_precision

    with tempfile.TemporaryDirectory() as tmp:
        paths = write_proxy(args.data_dir, Path(tmp))
        settings = RunSettings(
            data=str(paths["train"]),
            task="ner",
            dev=str(paths["dev"]),
            test=str(paths["test"]),
            profile=args.profile,
            workers=args.workers,
            precision=args.precision,
            device=args.device,
            difficulty=not args.no_difficulty,
            tracking_uri=f"sqlite:///{tmp}/mlflow.db",
            cache_dir=str(Path(tmp) / "cache"),
        )
        rows = []
        for label in ("cold", "identical re-run"):
            cpu0, t0 = cpu_seconds(), time.perf_counter()
            outcome = run_analysis(settings, progress=progress_printer() if args.progress else None)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
            rows.append((label, wall, cpu, outcome))
            print(f"{label} run wall: {wall:.0f} s" if label == "cold" else f"{label} wall: {wall:.1f} s")
        # the store lives in ``tmp``: read the analysis once, for the scores and the steps
        analysis = load_analysis(outcome.run_id, outcome.tracking_uri)
        print_scores(analysis)
        steps = steps_per_family(analysis.curves)
    print_table(rows, args.profile)
    print_stages(rows[0][3].timings, rows[0][1], steps)  # type: ignore[attr-defined]
    print(f"precision: {args.precision} (resolved: {resolve_precision(args.precision, rows[0][3].device)})")


def print_scores(analysis: Analysis) -> None:
    """Full-data score per family (mean over seeds, t-interval): what a speed change must not move."""
    from advisor.verdict import curve_summary, recommend

    summary = curve_summary(analysis)
    full = summary[summary["size"] == analysis.full_size]
    cells = ", ".join(
        f"{row.embedding} {100 * row.mean:.1f} [{100 * row.lo:.1f}, {100 * row.hi:.1f}]"
        for row in full.itertuples()
    )
    print(f"full-data {analysis.primary_metric} x 100 ({analysis.full_size} sentences): {cells}")
    print(f"verdict: {recommend(analysis).headline}")


def steps_per_family(curves: pd.DataFrame) -> dict[str, tuple[int, int, float]]:
    """Per family: cells, optimizer steps summed over them, median steps per cell (an analysis's curves)."""
    if "steps" not in curves.columns:
        return {}
    grouped = curves.groupby("embedding")["steps"]
    return {e: (int(g.count()), int(g.sum()), float(g.median())) for e, g in grouped}


ANALYSIS_PARTS = ("serving", "contextuality", "difficulty", "gain_model")


def stage_rows(timings: dict[str, float], wall: float) -> list[tuple[str, float]]:
    """(stage, seconds) of one run: what the wall time went to, the parts indented under their stage."""
    rows = [("read", timings.get("read", 0.0))]
    rows += [
        (f"featurize {k.split('.', 1)[1]}", v)
        for k, v in sorted(timings.items())
        if k.startswith("featurize.")
    ]
    rows += [("tune learning rates (wall)", timings.get("tune", 0.0))]
    rows += [("train (wall)", timings.get("train_wall", 0.0))]
    rows += [
        (f"  cells {k.split('.', 1)[1]} (sum)", v)
        for k, v in sorted(timings.items())
        if k.startswith("train.")
    ]
    rows += [("  evaluation (sum over cells)", timings.get("evaluate", 0.0))]
    rows += [("  logging (sum over cells)", timings.get("logging", 0.0))]
    rows += [("analysis", timings.get("analysis", 0.0))]
    rows += [(f"  {part}", timings[part]) for part in ANALYSIS_PARTS if part in timings]
    rows += [("report", timings.get("report", 0.0)), ("wall", wall)]
    return rows


def print_stages(timings: dict[str, float], wall: float, steps: dict[str, tuple[int, int, float]]) -> None:
    """The cold run's stages in seconds and share of wall, then optimizer steps per family."""
    table = Table(title="cold run by stage (sums over cells are CPU-side seconds inside the workers)")
    table.add_column("stage")
    table.add_column("seconds", justify="right")
    table.add_column("of wall", justify="right")
    for stage, seconds in stage_rows(timings, wall):
        table.add_row(stage, f"{seconds:,.1f}", f"{seconds / wall:.0%}")
    Console().print(table)
    steps_table = Table(title="optimizer steps per family (cold run, all sizes and seeds)")
    for column in ("family", "cells", "steps (sum)", "steps per cell (median)"):
        steps_table.add_column(column, justify="left" if column == "family" else "right")
    for family, (cells, total, median) in steps.items():
        steps_table.add_row(family, str(cells), f"{total:,}", f"{median:,.0f}")
    Console().print(steps_table)


def print_table(rows: list[tuple[str, float, float, object]], profile: str) -> None:
    """One column per run: wall, CPU, cells, and the share of each stage."""
    table = Table(title=f"advisor run --profile {profile} on the CoNLL-size proxy (14,041 / 3,250 / 3,453)")
    table.add_column("figure")
    for label, *_ in rows:
        table.add_column(label, justify="right")
    table.add_row("wall s", *(f"{wall:.0f}" for _, wall, _, _ in rows))
    table.add_row("CPU s (process + workers)", *(f"{cpu:.0f}" for _, _, cpu, _ in rows))
    table.add_row("cells computed", *(str(len(o.computed)) for *_, o in rows))
    table.add_row("cells reused", *(str(len(o.reused)) for *_, o in rows))
    shares = [stage_shares(o.timings, wall) for _, wall, _, o in rows]
    for stage in shares[0]:
        table.add_row(f"share {stage}", *(f"{s[stage]:.0%}" for s in shares))
    Console().print(table)
    cold, rerun = rows[0][1], rows[-1][1]
    print(f"identical re-run / cold = {rerun / cold:.1%} (goal <= 5 %); device: {rows[0][3].device}")
    timings = rows[0][3].timings  # type: ignore[attr-defined]
    print("cold run timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(timings.items())))
    print(f"machine: {os.cpu_count()} CPUs; load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    interruptible(main)
