"""Which columns of a table hold a sentence pair's two texts and its label (``--task pair``).

Why a module of its own: the pair reader resolves three columns where classification resolves two,
and the classification reader must recognise a pair file too, so that QNLI's ``question`` and
``sentence`` are not silently read as one text (issue 32).

**By name.** A header (or a JSONL object's keys, or a dataset's columns) names the two texts with one
of :data:`PAIR_COLUMNS` (any case; the first pair found wins) and the label with one of
:data:`PAIR_LABEL_COLUMNS`. **By content** (a CSV/TSV file without a header): the label is the one
column whose values repeat (:mod:`._columns`), the texts the two other columns that are not all
numbers, in file order. **Options.** ``--text-col A,B`` names the two texts, each a name or a 0-based
position as for ``--text-col`` in classification; ``--label-col`` as there.

A table with fewer than three columns, or with one known text column and no second, is a
single-text file: said so, with ``--task classify`` as the hint.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor._error_codes import (
    E107_GUESS_COLUMN,
    E107_HEADERLESS,
    E107_PAIR_GUESS,
    E107_PAIR_HALF,
    E107_PAIR_OPTION,
    E107_PAIR_SAME,
    E113_PAIR_FILE,
    E113_SINGLE_TEXT,
)
from advisor.data._columns import LABEL_COLUMNS, TEXT_COLUMNS, TableSniff, _Column, given_column

__all__ = [
    "PAIR_COLUMNS",
    "PAIR_HEADER_NAMES",
    "PAIR_LABEL_COLUMNS",
    "pair_by_name",
    "refuse_pair_for_classify",
    "resolve_pair_columns",
    "single_text_reason",
    "split_pair_option",
]

#: The two text columns of the common pair datasets (lowercase): GLUE (MRPC, QQP, QNLI, RTE, MNLI),
#: SNLI, PAWS and the ``text_a`` / ``text_b`` of many toolkits.
PAIR_COLUMNS: tuple[tuple[str, str], ...] = (
    ("sentence1", "sentence2"),
    ("question1", "question2"),
    ("question", "sentence"),
    ("premise", "hypothesis"),
    ("text_a", "text_b"),
    ("#1 string", "#2 string"),
    ("sentence_a", "sentence_b"),
    ("text1", "text2"),
)
PAIR_LABEL_COLUMNS: tuple[str, ...] = (
    "label",
    "labels",
    "gold_label",
    "quality",
    "is_duplicate",
    "is_paraphrase",
    *(name for name in LABEL_COLUMNS if name not in ("label", "labels")),
)
#: Lowercase names that make a first row a header in a pair file.
PAIR_HEADER_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys([name for pair in PAIR_COLUMNS for name in pair] + list(PAIR_LABEL_COLUMNS))
)
# Names that only ever mean one side of a pair (a file with one of them lacks its partner).
_HALVES = frozenset(name for pair in PAIR_COLUMNS for name in pair) - frozenset(TEXT_COLUMNS)


def split_pair_option(text_col: str | None, file: str) -> tuple[str, str] | None:
    """``--text-col A,B``: the two columns' names or positions; None when the option is not given."""
    if text_col is None:
        return None
    parts = [part.strip() for part in text_col.split(",")]
    if len(parts) != 2 or not all(parts):
        raise E107_PAIR_OPTION(value=text_col, n=len([p for p in parts if p]), file=file, line=1)
    return parts[0], parts[1]


def pair_by_name(names: Sequence[str]) -> tuple[int, int] | None:
    """The positions of the first known pair of text columns among ``names``, or None."""
    lowered = [str(name).lower().strip() for name in names]
    for first, second in PAIR_COLUMNS:
        if first in lowered and second in lowered:
            return lowered.index(first), lowered.index(second)
    return None


def _label_by_name(names: Sequence[str]) -> int | None:
    lowered = [str(name).lower().strip() for name in names]
    return next((lowered.index(name) for name in PAIR_LABEL_COLUMNS if name in lowered), None)


def single_text_reason(names: Sequence[str]) -> str | None:
    """Why columns ``names`` (a header) hold one text per item, or None when they may hold pairs."""
    if len(names) < 3:
        return f"it has {len(names)} column(s): room for one text and a label, not two texts"
    if pair_by_name(names) is None:
        texts = [name for name in names if str(name).lower().strip() in TEXT_COLUMNS]
        if len(texts) == 1 and not any(str(n).lower().strip() in _HALVES for n in names):
            return f"its one text column is {texts[0]!r}"
    return None


def refuse_pair_for_classify(names: Sequence[str], text_col: str | None, file: str) -> None:
    """A pair file read as classification would keep one text and drop the other without a word."""
    found = pair_by_name(names) if text_col is None else None
    if found is not None:
        raise E113_PAIR_FILE(a=str(names[found[0]]), b=str(names[found[1]]), file=file, line=1)


def _named_pair(sniff: TableSniff, file: str) -> tuple[int, int]:
    """The text columns a header names, or why it names none: one text only, half a pair, unclear."""
    found = pair_by_name(sniff.names)
    if found is not None:
        return found
    reason = single_text_reason(sniff.names)
    if reason is not None:
        raise E113_SINGLE_TEXT(why=reason, file=file, line=1)
    lowered = [name.lower().strip() for name in sniff.names]
    for first, second in PAIR_COLUMNS:
        if (first in lowered) != (second in lowered):
            found_name, missing = (first, second) if first in lowered else (second, first)
            shown = sniff.names[lowered.index(found_name)]
            raise E107_PAIR_HALF(found=shown, missing=missing, columns=sniff.describe(), file=file, line=1)
    raise E107_PAIR_GUESS(where="", columns=sniff.describe(), file=file, line=1)


def _content_pair(sniff: TableSniff, label: int | None, file: str) -> tuple[int, int, int | None]:
    """A headerless table's texts (the two columns beside the label that are not all numbers) and label."""
    columns = [_Column([row[i].strip() for row in sniff.rows]) for i in range(sniff.width)]
    if label is None:
        candidates = [i for i, column in enumerate(columns) if column.label_like]
        label = candidates[0] if len(candidates) == 1 else None
    texts = [i for i, column in enumerate(columns) if i != label and not column.numeric]
    if label is not None and len(texts) == 1:
        raise E113_SINGLE_TEXT(why="it has one column of free text", file=file, line=1)
    if len(texts) != 2:
        where = " (the file has no header: its first row reads as data)"
        raise E107_PAIR_GUESS(where=where, columns=sniff.describe(), file=file, line=1)
    return texts[0], texts[1], label


def resolve_pair_columns(
    sniff: TableSniff, text_col: str | None, label_col: str | None, file: str
) -> tuple[int, int, int]:
    """The first text's, the second text's and the label's columns: the options, else names or content."""
    given = split_pair_option(text_col, file)
    if given is None and sniff.width < 3:
        raise E113_SINGLE_TEXT(why=single_text_reason(sniff.names), file=file, line=1)
    label = given_column(sniff, label_col, file)
    if given is not None:
        first, second = (given_column(sniff, value, file) for value in given)
        assert first is not None and second is not None  # a given value resolves or raises
    elif sniff.header:
        first, second = _named_pair(sniff, file)
    else:
        first, second, label = _content_pair(sniff, label, file)
    if label is None and label_col is None and sniff.header:
        label = _label_by_name(sniff.names)
    if label is None and not sniff.header and given is not None:
        rest = [i for i in range(sniff.width) if i not in (first, second)]
        columns = [_Column([row[i].strip() for row in sniff.rows]) for i in rest]
        likely = [i for i, column in zip(rest, columns, strict=True) if column.label_like]
        label = likely[0] if len(likely) == 1 else None
    if label is None:
        entry = E107_GUESS_COLUMN if sniff.header else E107_HEADERLESS
        raise entry(role="label", columns=sniff.describe(), file=file, line=1)
    _check_distinct(sniff, first, second, label, file)
    return first, second, label


def _check_distinct(sniff: TableSniff, first: int, second: int, label: int, file: str) -> None:
    """Two texts and a label from three different columns: one column twice is a mistake, said so."""
    if first == second:
        what = "--text-col's two columns"
        raise E107_PAIR_SAME(what=what, name=sniff.names[first], columns=sniff.describe(), file=file, line=1)
    if label in (first, second):
        what = "a text column and the label"
        raise E107_PAIR_SAME(what=what, name=sniff.names[label], columns=sniff.describe(), file=file, line=1)
