"""NER readers: CoNLL column files and AutoTrain-style JSONL (``tokens``, ``tags``), read as a stream.

Rows are checked as they are read, so the first bad line stops the read there; sentences go into
:class:`~advisor.data._packed.PackedBuilder` storage (each distinct token stored once), and a big
file stays packed in the :class:`Corpus` (issue 28: 300 MB of CoNLL had needed 11.5 GB).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterator
from itertools import chain, islice
from pathlib import Path

from advisor._error_codes import (
    E102_NO_SENTENCES,
    E104_NARROW,
    E104_WIDTH,
    E104_WIDTH_FIRST,
    E105_NER_FIELDS,
    E105_NER_LENGTHS,
    E105_NER_TAG_IDS,
)
from advisor.data._corpus import Corpus
from advisor.data._empty import skip_empty
from advisor.data._packed import PackedBuilder
from advisor.data._schemes import TagCheck
from advisor.data._sniff import ASCII_SPACE, classify_hint, ner_fields_hint
from advisor.data._stream import LineStream, parse_lines
from advisor.data._text import check_file, json_object_line, read_sample
from advisor.errors import AdvisorError, InputError

__all__ = ["PACK_ABOVE_TOKENS", "read_conll", "read_ner_jsonl"]

_TAG_LIKE = re.compile(r"^(O|[A-Z][-_]\S+)$")
#: Above this many tokens a corpus keeps its packed storage; below, plain lists (cheap, and what
#: every consumer was written against).
PACK_ABOVE_TOKENS = 2_000_000
_HEAD = 200  # lines read first to learn the file's usual number of columns


def read_conll(path: str | Path) -> tuple[Corpus, list[str]]:
    """Read a CoNLL file: token first, tag last, 2+ columns split on spaces or tabs.

    ``-DOCSTART-`` lines and ``#`` comments are dropped; empty and whitespace-only lines (WNUT-17
    separates sentences with a lone TAB) end a sentence. Every row must have the file's usual column
    count (the most common among the first rows), so a shifted or truncated row is reported rather
    than misread, and a first row narrower than the rest is blamed, not the second. Columns are
    split on ASCII spaces and tabs only (the CoNLL convention): a no-break space or U+2028 inside a
    token stays part of it. A refused file that looks like classification data says so.
    """
    file = check_file(path)
    try:
        return parse_lines(path, file, _parse_conll)
    except InputError as error:
        try:
            hint = classify_hint(read_sample(path))
        except AdvisorError:
            hint = None
        if hint:
            error.hint = hint
        raise


class _Sentences:
    """Sentences collected into packed storage, their tags checked (an unknown tag at its own line)."""

    def __init__(self, path: str) -> None:
        self.tokens, self.tags = PackedBuilder(), PackedBuilder()
        self.check = TagCheck(path)
        self.starts = array("Q")
        self.known: set[str] = set()  # tags already checked

    def tag(self, tag: str, line: int) -> None:
        if tag not in self.known:
            self.check.tag(tag, line)
            self.known.add(tag)

    def add(self, tokens: list[str], tags: list[str], lines: list[int]) -> None:
        """One sentence (its tags already passed :meth:`tag`); the lists are not kept."""
        if tokens:
            self.tokens.add(tokens)
            self.tags.add(self.check.add(tags, lines))
            self.starts.append(lines[0])

    def corpus(self, stream: LineStream, warnings: list[str], skipped: tuple[int, ...] = ()) -> Corpus:
        scheme = self.check.scheme()
        warnings.extend(self.check.warnings())
        packed = self.tokens.n_items > PACK_ABOVE_TOKENS
        return Corpus(
            task="ner",
            tokens=self.tokens.build() if packed else self.tokens.lists(),
            labels=self.tags.build() if packed else self.tags.lists(),
            source=stream.path,
            line_numbers=self.starts if packed else self.starts.tolist(),
            scheme=scheme,
            encoding=stream.encoding,
            skipped_lines=skipped,
        )


def _usual_width(head: list[tuple[int, str]]) -> tuple[int | None, int]:
    """The most common column count among the first rows (the earliest on a tie), and its first line.

    Lines starting with ``#`` are left out (a comment or a hashtag row: the width decides which);
    with no other row in sight, the first row sets the width as it comes.
    """
    widths: Counter[int] = Counter()
    first: dict[int, int] = {}
    for number, raw in head:
        line = raw.strip()
        if not line or line.startswith(("-DOCSTART-", "#")):
            continue
        columns = ASCII_SPACE.split(line)
        if len(columns) >= 2:
            widths[len(columns)] += 1
            first.setdefault(len(columns), number)
    if not widths:
        return None, 0
    width = widths.most_common(1)[0][0]
    return width, first[width]


def _parse_conll(stream: LineStream) -> tuple[Corpus, list[str]]:
    """Rows into sentences; a row off the file's usual column count is an error at its line."""
    lines: Iterator[tuple[int, str]] = iter(stream)
    head = list(islice(lines, _HEAD))
    n_columns, first_row_line = _usual_width(head)
    found = _Sentences(stream.path)
    tokens: list[str] = []
    tags: list[str] = []
    numbers: list[int] = []
    for number, raw in chain(head, lines):
        line = raw.strip()
        if not line or (line[0] == "-" and line.startswith("-DOCSTART-")):
            found.add(tokens, tags, numbers)
            tokens, tags, numbers = [], [], []
            continue
        columns = _columns(line)  # a line of only Unicode spaces was blank above
        if line[0] == "#" and not _looks_like_row(columns, n_columns):
            continue  # a comment; hashtag rows such as "#Obama<TAB>O" (WNUT-17) are data
        if len(columns) != n_columns:
            _check_columns(columns, n_columns, first_row_line, stream.path, number)
            n_columns, first_row_line = len(columns), number  # the first row sets the width
        tag = columns[-1].strip()
        if tag not in found.known:
            found.tag(tag, number)
        tokens.append(columns[0])
        tags.append(tag)
        numbers.append(number)
    found.add(tokens, tags, numbers)
    if not found.tokens:
        raise E102_NO_SENTENCES(format="CoNLL", file=stream.path, line=1)
    warnings = list(stream.warnings)
    return found.corpus(stream, warnings), warnings


def _columns(line: str) -> list[str]:
    """A stripped line split on runs of ASCII spaces and tabs (plain ``str.split`` when one separator does)."""
    if " " not in line:
        columns = line.split("\t")
    elif "\t" not in line:
        columns = line.split(" ")
    else:
        return ASCII_SPACE.split(line)
    return ASCII_SPACE.split(line) if "" in columns else columns


def _check_columns(
    columns: list[str], n_columns: int | None, first_row_line: int, file: str, number: int
) -> None:
    """A row needs a token and a tag, and the file's usual width (else a token held a space)."""
    if len(columns) < 2:
        raise E104_NARROW(n=len(columns), file=file, line=number)
    if n_columns is None or len(columns) == n_columns:
        return
    if number < first_row_line:  # an early row off the width the rows after it agree on
        raise E104_WIDTH_FIRST(n=len(columns), width=n_columns, next=first_row_line, file=file, line=number)
    raise E104_WIDTH(n=len(columns), first=first_row_line, width=n_columns, file=file, line=number)


def _looks_like_row(columns: list[str], n_columns: int | None) -> bool:
    width_ok = len(columns) >= 2 if n_columns is None else len(columns) == n_columns
    return width_ok and bool(_TAG_LIKE.match(columns[-1]))


def read_ner_jsonl(path: str | Path, strict: bool = False) -> tuple[Corpus, list[str]]:
    """Read AutoTrain-style JSONL: one object per line with ``tokens`` and ``tags`` lists of equal length.

    An object with empty lists is an empty item: skipped with a counted warning (``strict``: an error).
    An object without the two lists gets a hint that fits what it holds (text and a label, or lists
    under other names); other errors keep their own hint.
    """
    file = check_file(path)
    return parse_lines(path, file, lambda stream: _parse_ner_jsonl(stream, strict))


def _ner_record(record: dict, file: str, number: int) -> tuple[list, list]:
    """The ``tokens`` and ``tags`` lists of one object, checked."""
    toks, tags = record.get("tokens"), record.get("tags", record.get("ner_tags"))
    if not isinstance(toks, list) or not isinstance(tags, list):
        raise E105_NER_FIELDS(file=file, line=number, hint=ner_fields_hint(record))
    if len(toks) != len(tags):
        raise E105_NER_LENGTHS(n_tokens=len(toks), n_tags=len(tags), file=file, line=number)
    if not all(isinstance(t, str) for t in tags):
        raise E105_NER_TAG_IDS(file=file, line=number)
    return toks, tags


def _parse_ner_jsonl(stream: LineStream, strict: bool) -> tuple[Corpus, list[str]]:
    found = _Sentences(stream.path)
    empty: list[int] = []
    for number, raw in stream:
        if not raw.strip():
            continue
        toks, tags = _ner_record(json_object_line(raw, stream.path, number), stream.path, number)
        if not toks:
            empty.append(number)
            continue
        for tag in tags:
            found.tag(tag, number)
        found.add([str(token) for token in toks], tags, [number] * len(tags))
    if not found.tokens:
        raise E102_NO_SENTENCES(format="JSONL", file=stream.path, line=1)
    warnings = list(stream.warnings)
    kept = skip_empty(stream.path, empty, [False] * len(empty), strict, warnings, what="sentences")
    return found.corpus(stream, warnings, kept.skipped_lines), warnings
