"""Benchmark (issue 28, item 7): peak memory and wall time of ``advisor inspect`` on big CoNLL files.

    python experiments/bench_readers.py [--sizes 5,30] [--source ../shared/data/wnut17/wnut17train.conll]
                                        [--keep DIR] [--error-line 9]

For each size (MB) a CoNLL file is generated in a temporary folder (never in the project) by
repeating a block of sentences: ``--source`` (a 2-column CoNLL file such as WNUT-17's training set)
or a built-in block. Real corpora keep finding new words, so in every copy after the first one word
in ten of those seen once in the block gets a copy suffix (``word~7``): the vocabulary grows with the
file as in a real corpus instead of staying the block's. ``advisor inspect FILE --task ner`` then
runs in a fresh process and the table gives file MB, items (sentences), wall and CPU seconds, the
process's peak RSS (MB, from ``wait4``) and RSS / file size. ``--error-line N`` also times the same file with
a malformed row (three columns) planted at line N: the reader must stop there, not read to the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from rich.console import Console
from rich.table import Table

_BLOCK = [
    [("John", "B-PER"), ("Smith", "I-PER"), ("flew", "O"), ("to", "O"), ("Paris", "B-LOC"), (".", "O")],
    [("The", "O"), ("European", "B-ORG"), ("Commission", "I-ORG"), ("said", "O"), ("nothing", "O")],
    [("@paulwalk", "O"), ("It", "O"), ("'s", "O"), ("the", "O"), ("view", "O"), ("from", "O")],
    [("Empire", "B-location"), ("State", "I-location"), ("Building", "I-location"), ("=", "O")],
]


def block_from(path: Path | None) -> list[list[tuple[str, str]]]:
    """(token, tag) sentences of a 2+-column CoNLL file (blank or lone-TAB lines end one), or the built-in block."""
    if path is None:
        return _BLOCK
    sentences: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        fields = line.strip().split()
        if len(fields) < 2:
            if current:
                sentences.append(current)
            current = []
            continue
        current.append((fields[0], fields[-1]))
    if current:
        sentences.append(current)
    return sentences


def copies(block: list[list[tuple[str, str]]]) -> Iterator[list[tuple[str, str]]]:
    """The block again and again; from the second copy on, one hapax word in ten gets a copy suffix."""
    counts = Counter(token for sentence in block for token, _ in sentence)
    hapaxes = sorted(token for token, n in counts.items() if n == 1)
    k = 0
    while True:
        fresh = set(hapaxes[k % 10 :: 10]) if k else set()
        for sentence in block:
            yield [(f"{token}~{k}" if token in fresh else token, tag) for token, tag in sentence]
        k += 1


def write_conll(path: Path, megabytes: float, block: list[list[tuple[str, str]]], error_line: int = 0) -> int:
    """Write about ``megabytes`` MB of CoNLL to ``path``; returns the number of sentences written."""
    target = int(megabytes * 1_000_000)
    written = sentences = line = 0
    with path.open("w", encoding="utf-8") as handle:
        for sentence in copies(block):
            rows = []
            for token, tag in sentence:
                line += 1
                rows.append(f"{token} EXTRA\t{tag}" if line == error_line else f"{token}\t{tag}")
            line += 1
            chunk = "\n".join(rows) + "\n\n"
            handle.write(chunk)
            written += len(chunk.encode("utf-8"))
            sentences += 1
            if written >= target:
                return sentences
    return sentences


def inspect(path: Path) -> tuple[float, float, float, int, str]:
    """Wall and CPU seconds, peak RSS (MB) and exit status of ``advisor inspect path --task ner``; its stderr tail."""
    command = [str(Path(sys.executable).with_name("advisor")), "inspect", str(path), "--task", "ner"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime  # load on a shared machine stretches wall time, not this
    return wall, cpu, usage.ru_maxrss / 1024, process.returncode, stderr.strip()[-200:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5,30", help="file sizes in MB, comma-separated")
    parser.add_argument(
        "--source", type=Path, default=None, help="a CoNLL file to repeat (default: built-in block)"
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="write the files here instead of a temp folder"
    )
    parser.add_argument(
        "--error-line", type=int, default=9, help="also time a file broken at this line (0: no)"
    )
    args = parser.parse_args()
    block = block_from(args.source)
    table = Table(title="advisor inspect FILE --task ner")
    for name in ("file", "file MB", "items", "exit", "wall s", "CPU s", "peak RSS MB", "RSS / file"):
        table.add_column(name, justify="right" if name != "file" else "left")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        for size in (float(s) for s in args.sizes.split(",")):
            cases = [("valid", 0)] + (
                [(f"bad line {args.error_line}", args.error_line)] if args.error_line else []
            )
            for label, error_line in cases:
                path = folder / f"bench_{size:g}mb{'_bad' if error_line else ''}.conll"
                items = write_conll(path, size, block, error_line)
                megabytes = path.stat().st_size / 1e6
                wall, cpu, rss, code, tail = inspect(path)
                table.add_row(label, f"{megabytes:.1f}", f"{items:,}", str(code), f"{wall:.1f}", f"{cpu:.1f}",
                              f"{rss:.0f}", f"{rss / megabytes:.1f}")  # fmt: skip
                if code not in (0, 2) or (error_line and code != 2):
                    print(f"{path.name}: exit {code}: {tail}", file=sys.stderr)
                path.unlink()
    Console().print(table)


if __name__ == "__main__":
    interruptible(main)
