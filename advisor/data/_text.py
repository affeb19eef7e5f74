"""Opening a data file: checks before anything is read, whole-file and first-lines reads, JSONL lines."""

from __future__ import annotations

import itertools
import json
import stat
from dataclasses import dataclass, field
from pathlib import Path

from advisor._error_codes import (
    E101,
    E101_ACCESS,
    E101_DIRECTORY,
    E101_IRREGULAR,
    E101_READ,
    E101_SPECIAL,
    E105,
    E105_NOT_OBJECT,
)
from advisor.data._stream import LineStream, parse_lines

__all__ = ["TextFile", "check_file", "json_object_line", "read_sample", "read_text_file"]

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True)
class TextFile:
    """Decoded lines of a file, numbered from 1, and how they were decoded."""

    path: str
    lines: list[str]
    encoding: str
    warnings: list[str] = field(default_factory=list)


def check_file(path: str | Path) -> Path:
    """A readable regular file, or an :class:`InputError` saying why not.

    Checked with ``stat`` before anything is opened: reading a named pipe would block forever and a
    device could stream without end. One byte is read so permission and I/O errors surface here.
    """
    file = Path(path).expanduser()
    name = str(path)
    try:
        info = file.stat()
    except FileNotFoundError:
        raise E101(file=name) from None
    except OSError as error:
        raise E101_ACCESS(reason=error.strerror, file=name) from None
    if stat.S_ISDIR(info.st_mode):
        raise E101_DIRECTORY(file=name)
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise E101_SPECIAL(kind=kind, file=name)
    if not stat.S_ISREG(info.st_mode):
        raise E101_IRREGULAR(file=name)
    try:
        with open(file, "rb") as handle:
            handle.read(1)
    except OSError as error:
        raise E101_READ(
            reason=error.strerror or error,
            file=name,
            hint="check the file's permissions and the disk it lives on",
        ) from None
    return file


def read_text_file(path: str | Path) -> TextFile:
    """All lines of a file, decoded by :class:`advisor.data._stream.LineStream` (its encodings and checks).

    For readers that need the whole file at once (CSV, whose quoted fields span lines); the others
    stream it.
    """
    file = check_file(path)

    def collect(stream: LineStream) -> TextFile:
        lines = [text for _, text in stream]
        return TextFile(path=str(path), lines=lines, encoding=stream.encoding, warnings=stream.warnings)

    return parse_lines(path, file, collect)


def read_sample(path: str | Path, limit: int = 2000) -> TextFile:
    """The first ``limit`` lines (what the format sniffers look at), without reading the rest."""
    file = check_file(path)

    def first(stream: LineStream) -> TextFile:
        lines = [text for _, text in itertools.islice(stream, limit)]
        return TextFile(path=str(path), lines=lines, encoding=stream.encoding, warnings=stream.warnings)

    return parse_lines(path, file, first)


def json_object_line(raw: str, file: str, number: int) -> dict:
    """One JSONL line as a dict; anything else is an :class:`InputError` at that line."""
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        raise E105(reason=error.msg, column=error.colno, file=file, line=number) from None
    if not isinstance(record, dict):
        raise E105_NOT_OBJECT(file=file, line=number)
    return record
