"""Benchmark (issue 17): a CoNLL-2003-size ``advisor run`` with the default profile, cold, then re-run.

    python experiments/bench_conll_size.py [--data-dir ../shared/data/wnut17] [--profile default] [--precision auto]
        [--device cuda] [--no-difficulty] [--progress] [--out FOLDER]

CoNLL-2003 itself is not in ../shared/data, so a proxy of the same shape is built from WNUT-17:
14,041 / 3,250 / 3,453 sentences (train / dev / test), cycling through WNUT-17's train, dev and
test sentences. Every sentence that repeats an earlier one (a second copy, or a duplicate already in
WNUT-17) gets one extra trailing token ``@copyN`` (tag O), so no two sentences of a split are equal: no feature cache, parse cache or de-duplication can shortcut the work a
real 14k-sentence corpus costs. The proxy lives in a temporary folder (or ``--out``), never in the
project.

Two runs in one fresh MLflow store and one fresh feature cache:
1. cold: nothing cached; prints ``cold run wall: N s``, CPU seconds (this process and its workers),
   and the share of the wall time spent reading, featurizing, training and analysing;
2. identical re-run: same command again; every cell and the analysis are reused.

With ``--out FOLDER`` the proxy, store, cache and clock live in that folder: a cold run stopped
(Ctrl-C, ``kill``, ``kill -9``, the end of a working session) resumes in the next sitting with its
finished trials and cells, and its wall time is the sum over sittings (``experiments/_segments.py``;
a sitting killed without warning counts up to its last progress event). On a 2-core machine the
converged cold run takes longer than one session.

Then the cold run's stage table (issue 30): seconds of the encoder pass and the other featurizers,
learning-rate tuning, training (wall, and the sum over cells per family), evaluation, analysis and
its parts; and the optimizer steps each family's cells took (sum, median per cell), so the next
profile starts from numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from _segments import Ledger, Segment, total
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    import pandas as pd

    from advisor.analysis import Analysis
    from advisor.runner import ProgressEvent, RunOutcome
    from advisor.settings import RunSettings

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


def stage_shares(stages: dict[str, float], wall: float) -> dict[str, float]:
    """Share of wall time per stage of the progress-event clock, the featurize stages taken together."""
    grouped: dict[str, float] = {}
    for stage, seconds in stages.items():
        name = "featurize" if stage.startswith("featurize ") else stage
        grouped[name] = grouped.get(name, 0.0) + seconds
    return {name: seconds / wall for name, seconds in grouped.items()} if wall > 0 else {}


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
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="keep the proxy, store, cache and clock here: a stopped cold run resumes in a later sitting "
        "and its wall time is summed over sittings (default: a temporary folder, one sitting)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.out is not None:
        bench_in(args.out.resolve(), args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bench_in(Path(tmp), args)


def bench_in(folder: Path, args: argparse.Namespace) -> None:
    """The cold run (resumed when an earlier sitting left it unfinished), the re-run, then the tables."""
    from advisor.settings import RunSettings
    from advisor.tracking import load_analysis
    from trainers import resolve_precision

    check_options(folder, args)
    paths = proxy_in(args.data_dir, folder)
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
        tracking_uri=f"sqlite:///{folder}/mlflow.db",
        cache_dir=str(folder / "cache"),
    )
    ledger = Ledger(folder / "clock", cpu_seconds)
    if ledger.finished("cold"):
        print("cold run: finished in an earlier sitting (its clock is in the ledger)")
    else:
        sit(ledger, "cold", settings, args.progress)
    outcome = sit(ledger, "identical re-run", settings, args.progress)
    analysis = load_analysis(outcome.run_id, outcome.tracking_uri)
    print_scores(analysis)
    cold, rerun = cold_segments(ledger.segments("cold")), ledger.segments("identical re-run")[-1:]
    print_table({"cold": cold, "identical re-run": rerun}, args.profile, outcome.device)
    print_event_stages(cold)
    if len(cold) == 1:  # the runner's own timings cover the whole cold run only when it ran in one sitting
        print_stages(cold[0].timings, cold[0].wall, steps_per_family(analysis.curves))
    else:
        print_steps(steps_per_family(analysis.curves))
    print(f"precision: {args.precision} (resolved: {resolve_precision(args.precision, outcome.device)})")


OPTIONS = ("data_dir", "profile", "workers", "precision", "device", "no_difficulty")


def check_options(folder: Path, args: argparse.Namespace) -> None:
    """One folder, one set of options: sittings with different ones would add up two different runs."""
    options = {name: str(getattr(args, name)) for name in OPTIONS}
    path = folder / "clock" / "options.json"
    kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else options
    differ = [
        f"--{k.replace('_', '-')} {kept.get(k)} (now {options[k]})"
        for k in OPTIONS
        if kept.get(k) != options[k]
    ]
    if differ:
        print(
            f"{folder} holds a run made with {', '.join(differ)}: use another --out folder", file=sys.stderr
        )
        raise SystemExit(2)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(options), encoding="utf-8")


def proxy_in(data_dir: Path, folder: Path) -> dict[str, Path]:
    """The proxy's three files in ``folder``: written once, so every sitting reads the same files."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {part: folder / f"proxy_{part}.conll" for part in CONLL2003_SHAPE}
    return paths if all(p.exists() for p in paths.values()) else write_proxy(data_dir, folder)


def sit(ledger: Ledger, phase: str, settings: RunSettings, show: bool) -> RunOutcome:
    """One sitting of ``phase`` on the ledger's clock; a Ctrl-C or SIGTERM closes it as interrupted,
    an error as failed."""
    from advisor.runner import run_analysis

    printer = progress_printer() if show else None

    def progress(event: ProgressEvent) -> None:
        family = event.cell.embedding if event.cell is not None else None
        ledger.record(event.stage, event.message, family, event.seconds)
        if printer is not None:
            printer(event)

    ledger.start(phase)
    try:
        outcome = run_analysis(settings, progress=progress)
    except KeyboardInterrupt:
        ledger.close("interrupted")
        raise
    except Exception:
        ledger.close("failed")  # counted too: the time was spent, and the next sitting resumes the run
        raise
    segment = ledger.close("finished", outcome.timings, len(outcome.reused))
    sittings = cold_segments(ledger.segments("cold")) if phase == "cold" else [segment]
    wall = total(sittings, "wall")
    if phase == "cold":
        parts = f" over {len(sittings)} sittings ({', '.join(f'{s.wall:.0f}' for s in sittings)} s)"
        print(f"cold run wall: {wall:.0f} s{parts if len(sittings) > 1 else ''}")
    else:
        print(f"{phase} wall: {wall:.1f} s")
    return outcome


def cold_segments(segments: list[Segment]) -> list[Segment]:
    """The sittings of the cold run: every one up to and including the first that finished."""
    for i, segment in enumerate(segments):
        if segment.ended == "finished":
            return segments[: i + 1]
    return segments


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
    print_steps(steps)


def print_steps(steps: dict[str, tuple[int, int, float]]) -> None:
    """Optimizer steps per family: cells, their sum, the median per cell."""
    steps_table = Table(title="optimizer steps per family (cold run, all sizes and seeds)")
    for column in ("family", "cells", "steps (sum)", "steps per cell (median)"):
        steps_table.add_column(column, justify="left" if column == "family" else "right")
    for family, (cells, total_steps, median) in steps.items():
        steps_table.add_row(family, str(cells), f"{total_steps:,}", f"{median:,.0f}")
    Console().print(steps_table)


def print_table(phases: dict[str, list[Segment]], profile: str, device: str) -> None:
    """One column per run: wall, CPU, cells, sittings, and the share of each stage (all sittings)."""
    shape = " / ".join(f"{n:,}" for n in CONLL2003_SHAPE.values())
    table = Table(title=f"advisor run --profile {profile} on the CoNLL-size proxy ({shape})")
    table.add_column("figure")
    for label in phases:
        table.add_column(label, justify="right")
    walls = {label: total(segments, "wall") for label, segments in phases.items()}
    table.add_row("wall s", *(f"{wall:.0f}" if wall >= 10 else f"{wall:.1f}" for wall in walls.values()))
    table.add_row("CPU s (process + finished workers)", *(f"{total(s, 'cpu'):.0f}" for s in phases.values()))
    table.add_row("sittings", *(str(len(s)) for s in phases.values()))
    table.add_row("cells trained", *(str(total(s, "cells")) for s in phases.values()))
    table.add_row("cells reused (last sitting)", *(str(s[-1].reused if s else 0) for s in phases.values()))
    shares = {label: stage_shares(total(s, "stages"), walls[label]) for label, s in phases.items()}
    for stage in dict.fromkeys(k for share in shares.values() for k in share):
        table.add_row(f"share {stage}", *(f"{share.get(stage, 0.0):.0%}" for share in shares.values()))
    Console().print(table)
    cold, rerun = walls["cold"], walls["identical re-run"]
    print(f"identical re-run / cold = {rerun / cold:.1%} (goal <= 5 %); device: {device}")
    print(f"machine: {os.cpu_count()} CPUs; load average at the end: {os.getloadavg()[0]:.2f}")


def print_event_stages(cold: list[Segment]) -> None:
    """The cold run's wall seconds per stage from its progress events, summed over its sittings."""
    wall = total(cold, "wall")
    table = Table(title=f"cold run wall by stage, from progress events ({len(cold)} sitting(s))")
    for column in ("stage", "seconds", "of wall"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, seconds in total(cold, "stages").items():
        table.add_row(stage, f"{seconds:,.1f}", f"{seconds / wall:.0%}")
    for family, seconds in sorted(total(cold, "cell_seconds").items()):
        table.add_row(f"  cells {family} (sum, in the workers)", f"{seconds:,.1f}", f"{seconds / wall:.0%}")
    Console().print(table)
    for i, segment in enumerate(cold, 1):
        print(f"sitting {i}: {segment.wall:.0f} s wall, {segment.cells} cells, ended {segment.ended}")
    if any(s.ended == "killed" for s in cold):
        print("a killed sitting is counted up to its last progress event: the total is a lower bound")


if __name__ == "__main__":
    interruptible(main)
