"""bench_memory.py: the peaks it keeps from planted samples, a real process's memory, and one tiny cold
``advisor run`` measured end to end (tiny encoder and vectors, generated NER data)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psutil
from rich.console import Console

from tests.helpers import load_experiment, write_ner_splits

bench = load_experiment("bench_memory")


def test_peaks_keep_the_largest_process_and_the_largest_tree_sum() -> None:
    peaks = bench.Peaks()
    peaks.add([(100, 60), (200, 50)])  # two processes: tree PSS 110, tree RSS 300
    peaks.add([(250, 90)])  # one larger process, a smaller tree
    peaks.add([])  # a sample between two processes' lives
    assert (peaks.max_process_rss, peaks.max_tree_pss, peaks.max_tree_rss) == (250, 110, 300)
    assert (peaks.max_processes, peaks.samples) == (2, 2)


def test_tree_memory_reads_a_process_and_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        memory = bench.tree_memory(psutil.Process())
        assert len(memory) >= 2  # this process and the sleeping child at least
        assert all(rss > 0 and pss > 0 for rss, pss in memory)
    finally:
        child.kill()
        child.wait()


def test_a_tiny_cold_run_is_measured_with_its_cache(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path
) -> None:
    files = write_ner_splits(tmp_path / "data")
    out = tmp_path / "out"
    options = ["--dev", files["dev"], "--test", files["test"], "--contextual", str(tiny_bert_dir)]
    options += ["--static", str(tiny_vectors_file), "--embeddings", "random,contextual", "--sizes", "20"]
    options += ["--seeds", "1", "--max-steps", "3", "--lr", "0.01", "--profile", "quick", "--no-difficulty"]
    argv = [files["train"], "--task", "ner", "--out", str(out), "--interval", "0.1", "--", *options]
    console = Console(width=120, record=True)
    figures = bench.main(argv, console)
    assert figures["exit_code"] == 0, (out / "run.log").read_text(encoding="utf-8")
    assert figures["samples"] > 0 and figures["max_tree_pss"] > 0
    assert figures["max_process_rss"] <= figures["max_tree_rss"]
    assert figures["cache_bytes"] > 0  # the contextual layer stack, written cold
    assert json.loads((out / "memory.json").read_text(encoding="utf-8")) == figures
    printed = console.export_text()
    assert "largest sum of PSS over the process tree" in printed and "feature cache on disk" in printed
