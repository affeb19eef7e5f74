"""Reading a file's bytes into lines: encoding detection with a fallback, BOM, CRLF, binary data."""

from __future__ import annotations

import codecs
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
    E102_EMPTY_FILE,
    E103,
    E103_BINARY,
    E105,
    E105_NOT_OBJECT,
)

__all__ = ["TextFile", "check_file", "json_object_line", "read_text_file"]

_FALLBACKS = ("cp1252", "latin-1")
# UTF-32 first: its little-endian BOM starts with the UTF-16 one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16"),
)
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


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


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


def _decode_wide(data: bytes, name: str) -> tuple[str, str] | None:
    """Text of a UTF-16/UTF-32 file recognised by its BOM (or by NUL bytes in every other position)."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec), label
            except UnicodeDecodeError as error:
                raise E103(bom=label.upper(), offset=error.start + len(bom), file=name) from None
    sample = data[:4096]
    if len(sample) >= 4 and len(sample) % 2 == 0:
        odd, even = sample[1::2], sample[0::2]
        for codec, zeros, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
            if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) == 0:
                try:
                    return data.decode(codec), codec
                except UnicodeDecodeError:
                    return None
    return None


def read_text_file(path: str | Path) -> TextFile:
    """Decode as UTF-8 (BOM stripped), UTF-16/32 (by BOM), else cp1252, else latin-1 with a warning.

    Lines are split on ``\\n`` only: ``str.splitlines`` would also split on U+0085 (NEL) and other
    separators that occur inside real sentences of cp1252 files (../shared/data/subj has them).
    """
    file = check_file(path)
    name = str(path)
    try:
        data = file.read_bytes()
    except OSError as error:
        raise E101_READ(reason=error.strerror or error, file=name) from None
    if not data.strip():
        raise E102_EMPTY_FILE(file=name, line=1)
    wide = _decode_wide(data, name)
    if wide is not None:
        return _text_file(name, wide[0], wide[1], [])
    nul = data.find(b"\x00")
    if nul >= 0:
        raise E103_BINARY(offset=nul, file=name, line=_line_of_offset(data, nul))
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
    return _text_file(name, text, encoding, warnings)


def _text_file(name: str, text: str, encoding: str, warnings: list[str]) -> TextFile:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise E102_EMPTY_FILE(file=name, line=1)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return TextFile(path=name, lines=lines, encoding=encoding, warnings=warnings)


def json_object_line(raw: str, file: str, number: int) -> dict:
    """One JSONL line as a dict; anything else is an :class:`InputError` at that line."""
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        raise E105(reason=error.msg, column=error.colno, file=file, line=number) from None
    if not isinstance(record, dict):
        raise E105_NOT_OBJECT(file=file, line=number)
    return record
