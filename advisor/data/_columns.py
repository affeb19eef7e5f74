"""Which columns of a CSV/TSV file hold the text and the label, and whether its first row is a header.

Why: public datasets often come as headerless ``text<TAB>label`` lines; the reader took their first
item for a header and asked for a column name the file does not have (issue 29).

**Header or data.** The first row is a header when one of its cells is a known column name
(:data:`TEXT_COLUMNS`, :data:`LABEL_COLUMNS`, any case), a name given with ``--text-col`` /
``--label-col`` (one that is not a number), or when it reads ``0, 1, …`` (the names pandas writes
for positions). Otherwise the rows after it (the first :data:`SAMPLE_ROWS`) decide: the first row is
data when one of its cells is a value its column takes further down in a label-like column (values
that repeat, see below), or when one of its cells is free text (at least 4 words, and at least half
the median word count of its column further down): a header name is a word or two. Anything else is
a header, as before this rule.

**Columns by content** (a file without a header): the label is the one column whose values repeat
(at most half of them distinct) and are short (a median of at most 3 words); the text is the column
with the longest values (mean characters) among the others that are not all numbers, when no other
column is at least half as long and it is longer than the label. Two label-like columns, or two
free-text ones, and the reader asks for positions rather than guess. A file with a header is read by
its names, as before.

**Options.** ``--text-col`` / ``--label-col`` take a column's name or its 0-based position; a value
made of digits that is also a name in the header is that name.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import cached_property

from advisor._error_codes import (
    E107,
    E107_GUESS_COLUMN,
    E107_HEADERLESS,
    E107_NO_HEADER_NAME,
    E107_POSITION,
    E107_SAME_COLUMN,
)

__all__ = [
    "LABEL_COLUMNS",
    "SAMPLE_ROWS",
    "TEXT_COLUMNS",
    "TableSniff",
    "given_column",
    "resolve_columns",
    "sniff_table",
]

TEXT_COLUMNS = (
    "text",
    "sentence",
    "sentences",
    "content",
    "question",
    "review",
    "document",
    "tweet",
    "utterance",
)
LABEL_COLUMNS = ("label", "labels", "class", "category", "target", "intent", "sentiment", "y", "coarse_label")
#: Rows after the first that decide whether it is a header, and which columns hold text and label.
SAMPLE_ROWS = 500
_FREE_TEXT_WORDS = 4  # a cell of at least this many words reads as free text, not as a column name
_LABEL_MAX_WORDS = 3  # a label column's median value has at most this many words
_KNOWN = frozenset(name.lower() for name in TEXT_COLUMNS + LABEL_COLUMNS)


def is_position(value: str) -> bool:
    """A column option made of ASCII digits: a 0-based position unless the header has it as a name."""
    return value.isascii() and value.isdigit()


@dataclass(frozen=True)
class _Column:
    """One column's values in the sampled rows, and what they look like."""

    values: list[str]

    @cached_property
    def distinct(self) -> set[str]:
        return set(self.values)

    @cached_property
    def median_words(self) -> float:
        return statistics.median(len(v.split()) for v in self.values) if self.values else 0.0

    @cached_property
    def mean_chars(self) -> float:
        return sum(map(len, self.values)) / len(self.values) if self.values else 0.0

    @property
    def label_like(self) -> bool:
        """Values that repeat (at most half distinct) and are short: a class per row."""
        n = len(self.values)
        return n >= 2 and len(self.distinct) * 2 <= n and self.median_words <= _LABEL_MAX_WORDS

    @property
    def numeric(self) -> bool:
        return all(_is_number(v) for v in self.values)

    def free_text(self, cell: str) -> bool:
        """Whether ``cell`` reads as one of this column's texts rather than as its name."""
        words = len(cell.split())
        return words >= _FREE_TEXT_WORDS and words * 2 >= self.median_words


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class TableSniff:
    """The first row and a sample of the rows after it, and what they say about the file.

    ``names`` are the header's cells, or ``"0"``, ``"1"``, … when the file has no header; ``rows``
    are sampled data rows (the first row among them when it is data); ``text`` and ``label`` are the
    columns the reader takes without options (None: it cannot tell).
    """

    header: bool
    names: list[str]
    rows: list[list[str]]
    text: int | None
    label: int | None

    @property
    def width(self) -> int:
        return len(self.names)

    def first_values(self, index: int, n: int = 3) -> list[str]:
        """The first ``n`` non-empty values of column ``index`` (what the app shows beside its name)."""
        return [row[index].strip() for row in self.rows if row[index].strip()][:n]

    def describe(self) -> str:
        """The columns as an error hint shows them: names, or positions with a first value."""
        if self.header:
            return ", ".join(self.names)
        shown = []
        for i in range(self.width):
            value = next(iter(self.first_values(i, 1)), "")
            shown.append(f"{i}: {value[:30] + '…' if len(value) > 30 else value!r}")
        return "; ".join(shown)


def sniff_table(
    first: list[str],
    rows: list[list[str]],
    text_col: str | None = None,
    label_col: str | None = None,
    known: tuple[str, ...] = (),
) -> TableSniff:
    """Header or data, and the columns to read, from the first row and the rows after it.

    ``known``: more lowercase header names that make line 1 a header (the pair reader's columns)."""
    cells = [c.strip() for c in first]
    sample = [r for r in rows[:SAMPLE_ROWS] if len(r) == len(cells) and any(f.strip() for f in r)]
    columns = [_Column([r[i].strip() for r in sample]) for i in range(len(cells))]
    named = [v for v in (text_col, label_col) if v is not None and not is_position(v)]
    named += [c for c in cells if c.lower() in known]
    if _is_header(cells, columns, named):
        text = _by_name(cells, TEXT_COLUMNS)
        return TableSniff(True, cells, sample, text, _by_name(cells, LABEL_COLUMNS))
    data = [first, *sample]
    columns = [_Column([r[i].strip() for r in data]) for i in range(len(cells))]
    text, label = _by_content(columns, None, None)
    return TableSniff(False, [str(i) for i in range(len(cells))], data, text, label)


def _is_header(cells: list[str], columns: list[_Column], named: list[str]) -> bool:
    """The rule of the module docstring: names say header, a repeated label or free text says data."""
    if any(c.lower() in _KNOWN for c in cells) or any(name in cells for name in named):
        return True
    if cells == [str(i) for i in range(len(cells))] or not columns or not columns[0].values:
        return True
    for cell, column in zip(cells, columns, strict=True):
        if (column.label_like and cell in column.distinct) or column.free_text(cell):
            return False
    return True


def _by_name(cells: list[str], known: tuple[str, ...]) -> int | None:
    lowered = [c.lower() for c in cells]
    return next((lowered.index(name) for name in known if name in lowered), None)


def _by_content(columns: list[_Column], text: int | None, label: int | None) -> tuple[int | None, int | None]:
    """The text and label columns a headerless file's values show (those given stay), None where unclear."""
    if label is None:
        candidates = [i for i, c in enumerate(columns) if i != text and c.label_like]
        label = candidates[0] if len(candidates) == 1 else None
    if text is None:
        others = sorted(
            (i for i, c in enumerate(columns) if i != label and not c.numeric),
            key=lambda i: -columns[i].mean_chars,
        )
        longest = columns[others[0]].mean_chars if others else 0.0
        rival = len(others) > 1 and columns[others[1]].mean_chars * 2 >= longest
        shorter = label is not None and longest <= columns[label].mean_chars
        text = others[0] if others and not rival and not shorter else None
    return text, label


def resolve_columns(
    sniff: TableSniff, text_col: str | None, label_col: str | None, file: str
) -> tuple[int, int]:
    """The text and label columns to read: the options (names or positions), else the sniffed ones."""
    text = given_column(sniff, text_col, file)
    label = given_column(sniff, label_col, file)
    if not sniff.header and (text is None or label is None):
        columns = [_Column([r[i].strip() for r in sniff.rows]) for i in range(sniff.width)]
        text, label = _by_content(columns, text, label)
    text = sniff.text if text is None and text_col is None and sniff.header else text
    label = sniff.label if label is None and label_col is None and sniff.header else label
    for role, index in (("text", text), ("label", label)):
        if index is None:
            entry = E107_GUESS_COLUMN if sniff.header else E107_HEADERLESS
            raise entry(role=role, columns=sniff.describe(), file=file, line=1)
    assert text is not None and label is not None
    if text == label:
        raise E107_SAME_COLUMN(name=sniff.names[text], columns=sniff.describe(), file=file, line=1)
    return text, label


def given_column(sniff: TableSniff, value: str | None, file: str) -> int | None:
    """Column ``value`` names: a header name first, else a 0-based position; an error if neither."""
    if value is None:
        return None
    if sniff.header and value in sniff.names:
        return sniff.names.index(value)
    if is_position(value):
        if int(value) >= sniff.width:
            raise E107_POSITION(index=value, width=sniff.width, columns=sniff.describe(), file=file, line=1)
        return int(value)
    if sniff.header:
        raise E107(name=value, columns=sniff.describe(), file=file, line=1)
    raise E107_NO_HEADER_NAME(name=value, columns=sniff.describe(), file=file, line=1)
