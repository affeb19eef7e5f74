"""Reading a file's bytes into lines: encoding detection with a fallback, BOM, CRLF, binary data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from advisor.errors import InputError

__all__ = ["TextFile", "json_object_line", "read_text_file"]

_FALLBACKS = ("cp1252", "latin-1")


@dataclass(frozen=True)
class TextFile:
    """Decoded lines of a file, numbered from 1, and how they were decoded."""

    path: str
    lines: list[str]
    encoding: str
    warnings: list[str] = field(default_factory=list)


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text_file(path: str | Path) -> TextFile:
    """Decode as UTF-8 (BOM stripped), else cp1252, else latin-1 with a warning naming file and line.

    Lines are split on ``\\n`` only: ``str.splitlines`` would also split on U+0085 (NEL) and other
    separators that occur inside real sentences of cp1252 files (../shared/data/subj has them).
    """
    file = Path(path)
    name = str(path)
    if not file.exists():
        raise InputError("file not found", file=name, hint="check the path", code="E101")
    if file.is_dir():
        raise InputError("is a directory, not a file", file=name, hint="pass a file, or hf:NAME", code="E101")
    data = file.read_bytes()
    if not data.strip():
        raise InputError("file is empty", file=name, line=1, hint="the file has no data rows", code="E102")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(
            f"binary data (NUL byte at offset {nul})",
            file=name,
            line=_line_of_offset(data, nul),
            hint="expected a text file (CoNLL, CSV, TSV or JSONL); compressed or binary files are not read",
            code="E103",
        )
    warnings: list[str] = []
    encoding = "utf-8"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad_line = _line_of_offset(data, error.start)
        for candidate in _FALLBACKS:
            try:
                text = data.decode(candidate)
            except UnicodeDecodeError:
                continue
            encoding = candidate
            break
        warnings.append(
            f"{name}:{bad_line}: not valid UTF-8 (byte 0x{data[error.start]:02X}); read the file as {encoding}"
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return TextFile(path=name, lines=lines, encoding=encoding, warnings=warnings)


def json_object_line(raw: str, file: str, number: int) -> dict:
    """One JSONL line as a dict; anything else is an :class:`InputError` at that line."""
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg} (column {error.colno})",
            file=file,
            line=number,
            hint="JSONL needs one JSON object per line",
            code="E105",
        ) from None
    if not isinstance(record, dict):
        raise InputError("expected a JSON object", file=file, line=number, code="E105")
    return record
