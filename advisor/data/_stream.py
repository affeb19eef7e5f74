"""A file's lines decoded as they are read: bounded memory, and a reader can stop at the first bad line.

Why: reading the whole file, decoding it and splitting it kept three copies of a 300 MB file plus a
string per line before the first row was checked (issue 28). The first 64 KiB are checked up front
(byte-order marks, UTF-16 without one, compressed or binary data); then lines come one by one,
split on ``\\r\\n``, ``\\r`` or ``\\n`` only (``str.splitlines`` would also split on U+0085 and
U+2028, which occur inside sentences of cp1252 files).

Encodings: UTF-8 (BOM stripped) unless a line is not valid UTF-8; then the file is cp1252 (latin-1
where cp1252 cannot decode it either), with a warning naming the first bad line. Lines before it
that were pure ASCII read the same in both; if one was not, :class:`Redecode` asks the caller to
start again in the fallback encoding (:func:`parse_lines` does), so every line of a file is decoded
one way, as when the whole file was decoded at once.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import AnyStr, BinaryIO, TypeVar

from advisor._error_codes import E101_READ, E102_EMPTY_FILE, E103, E103_BINARY, E103_COMPRESSED, E103_CONTROL

__all__ = ["LineStream", "Redecode", "parse_lines"]

T = TypeVar("T")
_CHUNK = 1 << 20
_SAMPLE = 1 << 16
_NEWLINE = re.compile(rb"\r\n|\r|\n")
_TEXT_NEWLINE = re.compile(r"\r\n|\r|\n")
_FALLBACKS = ("cp1252", "latin-1")
# UTF-32 first: its little-endian BOM starts with the UTF-16 one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16"),
)
_MAGIC = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip", "7z x"),
)
# Bytes a text file may hold; the rest of C0 (and DEL) marks binary data when common.
_TEXT_CONTROLS = bytes([9, 10, 11, 12, 13, 27])
_CONTROLS = bytes([*range(32), 127]).translate(None, _TEXT_CONTROLS)
_CONTROL_SHARE = 0.05


class Redecode(Exception):
    """A non-ASCII line was decoded as UTF-8 before a later line showed the file is not: read it again."""

    def __init__(self, encoding: str, first_bad: tuple[int, int]) -> None:
        super().__init__(encoding)
        self.encoding, self.first_bad = encoding, first_bad


class LineStream:
    """``(line number, text)`` of a file, decoded while read; ``encoding`` and ``warnings`` once read.

    An empty file (nothing but whitespace) is an error once the end is reached; a NUL byte is an
    error at its line.
    """

    def __init__(
        self, path: str | Path, file: Path, encoding: str = "", first_bad: tuple[int, int] | None = None
    ):
        self.path, self.file = str(path), file
        self.encoding = encoding or "utf-8"
        self._forced = bool(encoding)
        self._first_bad = first_bad  # (line, byte) of the first line that is not UTF-8
        self._non_ascii = False  # a line so far held non-ASCII bytes (decoding it otherwise could differ)
        self._content = False

    @property
    def warnings(self) -> list[str]:
        if self._first_bad is None:
            return []
        line, byte = self._first_bad
        return [f"{self.path}:{line}: not valid UTF-8 (byte 0x{byte:02X}); read the file as {self.encoding}"]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        number = 0
        try:
            with open(self.file, "rb") as handle:
                for lines in self._line_blocks(handle):
                    if not self._content:
                        self._content = any(text.strip() for text in lines)
                    for text in lines:
                        number += 1
                        yield number, text
        except OSError as error:
            raise E101_READ(reason=error.strerror or error, file=self.path) from None
        if not self._content:
            raise E102_EMPTY_FILE(file=self.path, line=1)

    def _line_blocks(self, handle: BinaryIO) -> Iterator[list[str]]:
        """The file's lines, a block (about a chunk) at a time: decoding and splitting run on whole blocks."""
        first = handle.read(max(_CHUNK, _SAMPLE))
        wide = _wide_codec(first[:4096])
        if wide is not None:
            self.encoding = wide[2]
            for block in _blocks(_wide_texts(handle, first, wide, self.path), "\r"):
                yield _split(block, _TEXT_NEWLINE)
            return
        _refuse_binary(first[:_SAMPLE], self.path)
        if first.startswith(codecs.BOM_UTF8):
            first = first[len(codecs.BOM_UTF8) :]
        number, offset = 1, 0
        for block in _blocks(_chunks(handle, first), b"\r"):
            lines = self._decode_block(block, number, offset)
            number, offset = number + len(lines), offset + len(block)
            yield lines

    def _decode_block(self, block: bytes, number: int, offset: int) -> list[str]:
        """A block's lines (the first is line ``number``); a NUL byte is an error at its line."""
        nul = block.find(b"\x00")
        if nul >= 0:
            line = number + len(_NEWLINE.findall(block, 0, nul))
            raise E103_BINARY(offset=offset + nul, file=self.path, line=line)
        if block.isascii():
            return _split(block.decode("ascii"), _TEXT_NEWLINE)
        try:
            text = block.decode(self.encoding)
        except UnicodeDecodeError:  # find the line, and fall back (or start again) from there
            texts = []
            for i, raw in enumerate(_split(block, _NEWLINE)):
                texts.append(raw.decode("ascii") if raw.isascii() else self._decode(raw, number + i))
                self._non_ascii = self._non_ascii or not raw.isascii()
            return texts
        self._non_ascii = True
        return _split(text, _TEXT_NEWLINE)

    def _decode(self, raw: bytes, number: int) -> str:
        """One non-ASCII line in the file's encoding, falling back (or starting again) when it cannot be."""
        while True:
            try:
                return raw.decode(self.encoding)
            except UnicodeDecodeError as error:
                fallback = _FALLBACKS[0] if self.encoding == "utf-8" else _FALLBACKS[-1]
                if self._first_bad is None:
                    self._first_bad = (number, raw[error.start])
                if self._non_ascii:
                    raise Redecode(fallback, self._first_bad) from None
                self.encoding = fallback


def parse_lines(path: str | Path, file: Path, parse: Callable[[LineStream], T]) -> T:
    """``parse`` over the lines of ``file``; again from the start if the encoding turns out otherwise."""
    stream = LineStream(path, file)
    for _ in _FALLBACKS:
        try:
            return parse(stream)
        except Redecode as again:
            stream = LineStream(path, file, again.encoding, again.first_bad)
    return parse(stream)  # latin-1 decodes every byte: no third start


def _chunks(handle: BinaryIO, first: bytes) -> Iterator[bytes]:
    chunk = first
    while chunk:
        yield chunk
        chunk = handle.read(_CHUNK)


def _blocks(chunks: Iterable[AnyStr], cr: AnyStr) -> Iterator[AnyStr]:
    """Runs of whole lines (each ends at a line break, but the last one of the file may not).

    A CR that ends a chunk may be the first half of CRLF: it waits for the next chunk. A line longer
    than a chunk is joined from its pieces once.
    """
    lf = b"\n" if isinstance(cr, bytes) else "\n"
    pending: list[AnyStr] = []
    for chunk in chunks:
        end = len(chunk) - 1 if chunk.endswith(cr) else len(chunk)
        cut = max(chunk.rfind(lf, 0, end), chunk.rfind(cr, 0, end))  # type: ignore[arg-type]
        if cut < 0:
            pending.append(chunk)
            continue
        pending.append(chunk[: cut + 1])
        yield cr[:0].join(pending)
        pending = [chunk[cut + 1 :]]
    tail = cr[:0].join(pending)
    if tail:
        yield tail


def _split(block: AnyStr, newline: re.Pattern[AnyStr]) -> list[AnyStr]:
    """The lines of a block; the break that ends it opens no empty line."""
    cr = b"\r" if isinstance(block, bytes) else "\r"
    lf = b"\n" if isinstance(block, bytes) else "\n"
    lines = newline.split(block) if cr in block else block.split(lf)  # type: ignore[operator,arg-type]
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _wide_codec(sample: bytes) -> tuple[str, int, str, bool] | None:
    """(codec, BOM length, label, found by its BOM) of a UTF-16/32 file, or None."""
    for bom, codec, label in _BOMS:
        if sample.startswith(bom):
            return codec, len(bom), label, True
    if len(sample) >= 4 and len(sample) % 2 == 0:
        odd, even = sample[1::2], sample[0::2]
        for codec, zeros, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
            if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) == 0:
                return codec, 0, codec, False
    return None


def _wide_texts(handle: BinaryIO, first: bytes, wide: tuple[str, int, str, bool], name: str) -> Iterator[str]:
    """The text of a UTF-16/32 file, decoded a chunk at a time."""
    codec, skip, label, by_bom = wide
    decoder = codecs.getincrementaldecoder(codec)()
    consumed = skip
    for chunk in itertools.chain(_chunks(handle, first[skip:] or handle.read(_CHUNK)), [b""]):
        try:
            yield decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as error:
            raise _bad_wide(error, consumed, label, by_bom, first, name) from None
        consumed += len(chunk)


def _bad_wide(
    error: UnicodeDecodeError, consumed: int, label: str, by_bom: bool, first: bytes, name: str
) -> Exception:
    """A UTF-16/32 file that does not decode: E103 when its BOM promised the encoding, else binary data."""
    if by_bom:
        return E103(bom=label.upper(), offset=consumed + error.start, file=name)
    nul = first.find(b"\x00")
    return E103_BINARY(offset=nul, file=name, line=first.count(b"\n", 0, nul) + 1)


def _refuse_binary(sample: bytes, name: str) -> None:
    """Compressed or binary data is named as such, not read as text that has one column per row."""
    nul = sample.find(b"\x00")
    for magic, kind, tool in _MAGIC:
        if sample.startswith(magic):
            raise E103_COMPRESSED(kind=kind, tool=tool, file=name, line=1)
    if nul >= 0:
        raise E103_BINARY(offset=nul, file=name, line=sample.count(b"\n", 0, nul) + 1)
    controls = len(sample) - len(sample.translate(None, _CONTROLS))
    if sample and controls >= max(2, _CONTROL_SHARE * len(sample)):
        raise E103_CONTROL(n=controls, size=len(sample), file=name, line=1)
