"""Benchmark (issue 29, item 4): the memory of one ``advisor run`` and the size of its feature cache.

    nice -n 5 python experiments/bench_memory.py ../shared/data/subj/subj.all --task classify \
        [--out DIR] [--interval 0.5] -- [any further ``advisor run`` options]

Runs ``advisor run`` as a child process with a store and a cache root of its own under ``--out``
(fresh each time: the cache is cold, so the encoder pass and its writes are measured), and samples
the whole process tree (the run and its forked training workers) every ``--interval`` seconds:

- the largest resident set of any one process (RSS, what a process-count limit sees);
- the largest sum over the tree of each process's proportional set size (PSS: shared pages split
  between the processes that map them; the machine's real footprint, where a sum of RSS would count
  the feature pages every forked worker maps once per worker);
- the largest sum of RSS, for comparison.

Then the cache root's size on disk, and the wall time. Prints one table; writes it as JSON too, and
the run's own output to ``--out``/run.log.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil
from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

MB = 2**20


@dataclass
class Peaks:
    """The largest figures seen over the run (bytes), and how many samples they rest on."""

    max_process_rss: int = 0
    max_tree_pss: int = 0
    max_tree_rss: int = 0
    max_processes: int = 0
    samples: int = 0

    def add(self, memory: list[tuple[int, int]]) -> None:
        """One sample: (rss, pss) of every process of the tree alive at that moment."""
        if not memory:
            return
        self.samples += 1
        self.max_process_rss = max(self.max_process_rss, max(rss for rss, _ in memory))
        self.max_tree_pss = max(self.max_tree_pss, sum(pss for _, pss in memory))
        self.max_tree_rss = max(self.max_tree_rss, sum(rss for rss, _ in memory))
        self.max_processes = max(self.max_processes, len(memory))


def tree_memory(root: psutil.Process) -> list[tuple[int, int]]:
    """(rss, pss) of ``root`` and each of its descendants; a process gone meanwhile is skipped."""
    memory = []
    for process in [root, *root.children(recursive=True)]:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        memory.append((int(info.rss), int(getattr(info, "pss", info.rss))))
    return memory


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (0 when it does not exist)."""
    if not folder.exists():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def watch(command: list[str], interval: float, env: dict[str, str], log: Path) -> tuple[Peaks, int, float]:
    """Run ``command`` (its output to ``log``), sampling its tree until it ends: (peaks, exit code, wall s)."""
    started = time.perf_counter()
    with log.open("w", encoding="utf-8") as output:
        child = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        peaks = _sample(child, interval)
    return peaks, child.returncode, time.perf_counter() - started


def _sample(child: subprocess.Popen, interval: float) -> Peaks:
    """Sample ``child``'s process tree every ``interval`` seconds until it exits."""
    peaks = Peaks()
    root = psutil.Process(child.pid)
    while child.poll() is None:
        peaks.add(tree_memory(root))
        time.sleep(interval)
    return peaks


def run_command(args: argparse.Namespace, out: Path) -> list[str]:
    """``advisor run`` on the data with this benchmark's store and cache root, plus the given options."""
    store = f"sqlite:///{out / 'mlflow.db'}"
    return [
        sys.executable,
        "-c",
        "from advisor.cli import main; main()",
        "run",
        str(args.data),
        "--task",
        args.task,
        "--tracking-uri",
        store,
        "--cache-dir",
        str(out / "cache"),
        *args.run_options,
    ]


def table(peaks: Peaks, cache: int, wall: float, code: int) -> Table:
    """The figures of the issue: peak memory three ways, the cache size, the wall time."""
    out = Table(title="advisor run: memory and feature cache", title_justify="left")
    out.add_column("figure")
    out.add_column("value", justify="right")
    out.add_row("largest RSS of one process", f"{peaks.max_process_rss / MB:,.0f} MB")
    out.add_row("largest sum of PSS over the process tree", f"{peaks.max_tree_pss / MB:,.0f} MB")
    out.add_row("largest sum of RSS over the process tree", f"{peaks.max_tree_rss / MB:,.0f} MB")
    out.add_row("most processes at once", f"{peaks.max_processes}")
    out.add_row("feature cache on disk", f"{cache / MB:,.1f} MB")
    out.add_row("wall time", f"{wall:,.0f} s")
    out.add_row("samples", f"{peaks.samples:,}")
    out.add_row("exit code", str(code))
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """This benchmark's options, then, after ``--``, the ``advisor run`` options passed on as they are."""
    argv = sys.argv[1:] if argv is None else list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--task", default="classify")
    parser.add_argument("--out", type=Path, default=Path(".bench/memory"))
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args(argv[:cut])
    args.run_options = argv[cut + 1 :]
    return args


def main(argv: list[str] | None = None, console: Console | None = None) -> dict[str, float]:
    """Measure one cold run; print and return its figures (also written to ``--out``/memory.json)."""
    args = parse_args(argv)
    console = console or Console(width=120)
    shutil.rmtree(args.out, ignore_errors=True)  # a cold cache and an empty store, every time
    args.out.mkdir(parents=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "MPLBACKEND": "Agg"}
    peaks, code, wall = watch(run_command(args, args.out), args.interval, env, args.out / "run.log")
    cache = folder_bytes(args.out / "cache")
    console.print(table(peaks, cache, wall, code))
    figures = {**asdict(peaks), "cache_bytes": cache, "wall_s": wall, "exit_code": code}
    (args.out / "memory.json").write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return figures


if __name__ == "__main__":
    interruptible(main)
