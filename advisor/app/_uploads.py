"""Uploaded datasets: size cap, the user's own file name, one folder per upload, and task detection.

Any extension is accepted, as on the command line (an unknown one is read as ``label text`` lines);
what cannot be read is refused by the readers with their usual ``file:line`` message. Uploads are only
ever *read as text*: nothing uploaded is executed or unpickled, and the stored name keeps no
directory part, so an upload cannot land outside its own folder.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path

from advisor._error_codes import E150, E151, E152, E245, E250
from advisor.data import pair_by_name
from advisor.tracking import store_uri

__all__ = [
    "DATA_SUFFIXES",
    "DEFAULT_MAX_UPLOAD_MB",
    "DEMO_DIR",
    "MAX_UPLOAD_LIMIT_MB",
    "DemoDataset",
    "StoredUpload",
    "check_upload_mb",
    "demo_datasets",
    "detect_task",
    "max_upload_mb",
    "sanitize_filename",
    "store_upload",
    "upload_root",
]

DEFAULT_MAX_UPLOAD_MB = 50
#: The largest upload cap ``advisor ui`` accepts (MB): past it a value is a typing mistake.
MAX_UPLOAD_LIMIT_MB = 10_240
UPLOAD_ENV = "ADVISOR_MAX_UPLOAD_MB"
#: Suffixes with a format of their own (any other is read as ``label text`` lines, like the CLI does).
DATA_SUFFIXES: tuple[str, ...] = (
    ".conll",
    ".bio",
    ".iob",
    ".txt",
    ".tsv",
    ".csv",
    ".jsonl",
    ".json",
    ".ndjson",
)
#: The bundled demo corpora, package data (experiments/demo links here); made by experiments/make_demo.py.
DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"
#: Unicode categories never kept in a stored name: controls, format characters (bidi overrides and
#: isolates, zero-width spaces, BOM), surrogates, private use, line and paragraph separators.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
_NER_TAG = re.compile(r"^(O|[BIES]-\S+|[BIES]|[UL]-\S+)$")


def max_upload_mb() -> int:
    """The upload cap in MB: ``ADVISOR_MAX_UPLOAD_MB`` or 50 (``advisor ui`` passes the same to Streamlit).

    A bad value names the environment variable (``advisor ui --max-upload-mb`` names its option).
    """
    raw = os.environ.get(UPLOAD_ENV, str(DEFAULT_MAX_UPLOAD_MB))
    try:
        value = int(raw.strip())
    except ValueError:
        raise E250(
            option=UPLOAD_ENV,
            requirement="a whole number of megabytes",
            value=repr(raw),
            hint=f"e.g. {UPLOAD_ENV}=200, or unset it for {DEFAULT_MAX_UPLOAD_MB} MB",
        ) from None
    return check_upload_mb(value, UPLOAD_ENV)


def check_upload_mb(value: int, source: str) -> int:
    """``value`` MB as an upload cap: at least 1, at most :data:`MAX_UPLOAD_LIMIT_MB`; errors name ``source``."""
    if value < 1:
        raise E250(
            option=source,
            requirement="positive",
            value=value,
            hint=f"the upload cap in megabytes, at least 1 (default {DEFAULT_MAX_UPLOAD_MB})",
        )
    if value > MAX_UPLOAD_LIMIT_MB:
        raise E245(
            option=source,
            limit=f"{MAX_UPLOAD_LIMIT_MB:,}",
            value=value,
            why="a browser upload over 10 GB is not practical; run `advisor run` on the file instead",
        )
    return value


def upload_root(tracking_uri: str | None = None) -> Path:
    """``ADVISOR_UPLOAD_DIR``, else ``uploads/`` beside a local sqlite store, else ``./mlruns/uploads``."""
    if os.environ.get("ADVISOR_UPLOAD_DIR"):
        return Path(os.environ["ADVISOR_UPLOAD_DIR"]).resolve()
    uri = store_uri(tracking_uri)  # no folder is created just to name the upload root
    if uri.startswith("sqlite:///"):
        return (Path(uri.removeprefix("sqlite:///")).parent / "uploads").resolve()
    return Path("mlruns", "uploads").resolve()


def sanitize_filename(name: str) -> str:
    """The name as the user gave it, minus any directory part, control and bidi characters, leading dots.

    Spaces, accents and brackets stay (messages and the run name then match the user's file); at
    most 120 characters, the suffix kept. Invisible format characters go too: U+202E (right-to-left
    override) would show ``evil<U+202E>vsc.txt`` as ``eviltxt.csv``. A name that is only a suffix
    (``"  ../ .csv"``) becomes ``upload.csv``, so the reader still knows the format.
    """
    base = re.split(r"[\\/]", name)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch) not in _INVISIBLE)
    cleaned = base.strip().lstrip(".").strip()
    stem, dot, suffix = base.strip().rpartition(".")
    suffix = suffix.strip()
    if dot and suffix and len(suffix) <= 10 and not stem.strip(". "):
        return f"upload.{suffix}"  # nothing but dots and spaces before the suffix
    if not cleaned:
        cleaned = "upload"
    stem, dot, suffix = cleaned.rpartition(".")
    if dot and stem and len(suffix) <= 10:
        return f"{stem[: 120 - len(suffix) - 1]}.{suffix}"
    return cleaned[:120]


@dataclass(frozen=True)
class StoredUpload:
    """Where an upload was written, and the folder that also holds its run log."""

    path: Path
    folder: Path
    original_name: str
    size_bytes: int


_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")  # UTF-8, UTF-16 LE/BE (UTF-32 LE starts like UTF-16 LE)


def _looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KB of a file without a Unicode byte-order mark: not a text file."""
    return not data.startswith(_BOMS) and b"\x00" in data[:8192]


def store_upload(name: str, data: bytes, root: Path, max_mb: int | None = None) -> StoredUpload:
    """Write ``data`` as ``root/<uuid>/<name>``, in a folder of its own, after the size and text checks."""
    limit = max_upload_mb() if max_mb is None else max_mb
    if len(data) > limit * 1024 * 1024:
        raise E150(
            size_mb=len(data) / 1024 / 1024,
            limit=limit,
            file=name,
            hint="set ADVISOR_MAX_UPLOAD_MB (or `advisor ui --max-upload-mb`) higher, or run `advisor run` on the file",
        )
    if not data.strip():
        raise E151(file=name)
    if _looks_binary(data):
        raise E152(
            file=name,
            hint="upload a text file: CoNLL, CSV, TSV, JSONL, or `label text` lines (any extension)",
        )
    safe = sanitize_filename(name)
    target_folder = Path(root) / uuid.uuid4().hex
    target_folder.mkdir(parents=True, exist_ok=True)
    path = target_folder / safe
    path.write_bytes(data)
    return StoredUpload(path=path, folder=target_folder, original_name=name, size_bytes=len(data))


def detect_task(name: str, head: bytes) -> str | None:
    """Guess ``ner``, ``classify`` or ``pair`` (a header naming two texts, e.g. sentence1/sentence2) from
    the suffix and the first lines; None when it cannot tell."""
    suffix = Path(name).suffix.lower()
    text = head[:65536].decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if suffix in (".conll", ".bio", ".iob"):
        return "ner"
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _json_task(lines)
    header = lines[0].split("\t" if suffix != ".csv" else ",") if lines else []
    if pair_by_name([cell.strip().strip('"') for cell in header]) is not None:
        return "pair"
    if suffix == ".csv":
        return "classify"
    if not lines:
        return None
    # .tsv / .txt: CoNLL rows end in a tag column; classification rows hold a whole sentence.
    last_columns = [line.split()[-1] for line in lines if len(line.split()) >= 2]
    if last_columns and sum(bool(_NER_TAG.match(c)) for c in last_columns) >= 0.8 * len(last_columns):
        return "ner"
    return "classify"


def _json_task(lines: list[str]) -> str | None:
    """The task of JSON lines from the first object's keys: tokens (NER), two texts (pair), else classify."""
    for line in lines[:5]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            if "tokens" in record:
                return "ner"
            return "pair" if pair_by_name(list(record)) is not None else "classify"
    return None


@dataclass(frozen=True)
class DemoDataset:
    """A bundled demo task: train/dev/test files from the package's ``advisor/demo`` folder."""

    task: str
    train: Path
    dev: Path
    test: Path


def demo_datasets(directory: Path = DEMO_DIR) -> dict[str, DemoDataset]:
    """The demo tasks whose three files exist (all of them in a checkout or an installed wheel)."""
    found: dict[str, DemoDataset] = {}
    for task, suffix in (("ner", "conll"), ("classify", "csv"), ("pair", "tsv")):
        files = [directory / f"{task}_{part}.{suffix}" for part in ("train", "dev", "test")]
        if all(f.exists() for f in files):
            found[task] = DemoDataset(task, *files)
    return found
