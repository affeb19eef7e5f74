"""Sentence-pair readers (``--task pair``): CSV/TSV with or without a header, JSONL, and datasets.

Each item is two texts and one label (paraphrase, entailment, duplicate questions). The columns are
resolved by :mod:`._pair_columns`; each text is tokenized with the classification rule
(:func:`._classify.tokenize`), and the :class:`Corpus` holds the first text's words followed by the
second's, with ``pair_split`` saying where the second begins. A pair with an empty side is skipped
like a classification item without text (an error under ``--strict``).

TSV is read as GLUE writes it: one record per line, split on tabs, quotes as plain text (MRPC's
unbalanced ``"`` and its UTF-8 BOM included).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from advisor._error_codes import E102, E105_TEXT_TYPE, E107_PAIR_OBJECT, E113_CONLL_PAIR, E113_SINGLE_TEXT
from advisor.data._classify import (
    check_classify_columns,
    jsonl_label,
    table_records,
    table_sniff,
    tokenize,
)
from advisor.data._columns import SAMPLE_ROWS, TableSniff, is_position
from advisor.data._corpus import Corpus
from advisor.data._empty import skip_empty
from advisor.data._pair_columns import PAIR_HEADER_NAMES, resolve_pair_columns, split_pair_option
from advisor.data._sniff import looks_like_conll
from advisor.data._text import TextFile, json_object_line, read_sample, read_text_file

__all__ = ["PairRow", "check_columns", "pair_corpus", "pair_from_columns", "read_pairs", "sniff_pair_columns"]

PairRow = tuple[int, str, str, str]  # (line, first text, second text, label)
_JSONL = (".jsonl", ".json", ".ndjson")
_TABLES = (".csv", ".tsv")
_NO_CONSENSUS = "-"  # SNLI / MNLI gold_label of a pair the annotators did not agree on


def read_pairs(
    path: str | Path, text_col: str | None = None, label_col: str | None = None, strict: bool = False
) -> tuple[Corpus, list[str]]:
    """Read a pair file (.csv, .tsv, .jsonl/.json/.ndjson); returns the corpus and the warnings on the way."""
    text = read_text_file(path)
    warnings = list(text.warnings)
    suffix = Path(path).suffix.lower()
    if suffix in _JSONL:
        rows = _jsonl_pairs(text, text_col, label_col)
    else:
        _refuse_other_formats(text, suffix)
        rows = _delimited_pairs(text, "\t" if suffix == ".tsv" else ",", text_col, label_col, warnings)
    return pair_corpus(rows, text.path, strict, warnings, text.encoding), warnings


def pair_corpus(
    rows: Sequence[PairRow], source: str, strict: bool, warnings: list[str], encoding: str = "utf-8"
) -> Corpus:
    """The pair :class:`Corpus` of ``rows``: both texts tokenized, pairs with an empty side skipped."""
    rows = _without_no_consensus(rows, source, warnings)
    sides = [(tokenize(first), tokenize(second)) for _, first, second, _ in rows]
    has_text = [bool(a) and bool(b) for a, b in sides]
    kept = skip_empty(source, [row[0] for row in rows], has_text, strict, warnings, "pairs", pair=True)
    if not kept.indices:
        raise E102(file=source, line=1)
    return Corpus(
        task="pair",
        tokens=[sides[i][0] + sides[i][1] for i in kept.indices],
        labels=[rows[i][3] for i in kept.indices],
        source=source,
        line_numbers=[rows[i][0] for i in kept.indices],
        texts=[rows[i][1] for i in kept.indices],
        texts_b=[rows[i][2] for i in kept.indices],
        encoding=encoding,
        skipped_lines=kept.skipped_lines,
        pair_split=[len(sides[i][0]) for i in kept.indices],
    )


def _without_no_consensus(rows: Sequence[PairRow], source: str, warnings: list[str]) -> Sequence[PairRow]:
    """Drop pairs labelled ``-``: SNLI's and MNLI's mark for "annotators did not agree", not a class
    (the datasets' own papers leave them out of training and evaluation); say how many and where."""
    dropped = [row[0] for row in rows if row[3].strip() == _NO_CONSENSUS]
    if not dropped:
        return rows
    shown = ", ".join(map(str, dropped[:5])) + (" …" if len(dropped) > 5 else "")
    warnings.append(
        f"{source}: {len(dropped):,} pair{'s' if len(dropped) != 1 else ''} labelled '-' (no annotator consensus, as in SNLI/MNLI) left out "
        f"(lines {shown})"
    )
    return [row for row in rows if row[3].strip() != _NO_CONSENSUS]


def _refuse_other_formats(text: TextFile, suffix: str) -> None:
    """CoNLL, or a file that is not a table (``label text`` lines), holds no pairs: say what it is."""
    if looks_like_conll(text):
        raise E113_CONLL_PAIR(file=text.path, line=1)
    if suffix not in _TABLES:
        why = f"a {suffix or 'suffix-less'} file is read as 'label text' lines, one text per line"
        raise E113_SINGLE_TEXT(
            why=why,
            file=text.path,
            line=1,
            hint="save the pairs as CSV/TSV (a header naming both texts) or JSONL, or use --task classify",
        )


def _pair_sniff(text: TextFile, delimiter: str, text_col: str | None, label_col: str | None) -> TableSniff:
    """Line 1 and the rows after it; the pair columns' names (and names given as options) mark a header."""
    given = split_pair_option(text_col, text.path) or ()
    named = tuple(value.lower() for value in given if not is_position(value))
    return table_sniff(text, delimiter, None, label_col, PAIR_HEADER_NAMES + named)


def _delimited_pairs(
    text: TextFile, delimiter: str, text_col: str | None, label_col: str | None, warnings: list[str]
) -> list[PairRow]:
    """Rows of a CSV/TSV pair file; line 1 is its header unless it reads as data (:mod:`._columns`)."""
    sniff = _pair_sniff(text, delimiter, text_col, label_col)
    first, second, label = resolve_pair_columns(sniff, text_col, label_col, text.path)
    if not sniff.header:  # said, so a wrong guess is seen before a run trains on it
        warnings.append(
            f"{text.path}:1: no header (the first row reads as data): texts from columns {first} and "
            f"{second}, label from column {label} (positions from 0)"
        )
    records = table_records(text, sniff, delimiter, (first, second), label, warnings)
    return [(number, fields[0], fields[1], value) for number, fields, value in records]


def _json_text(value: object, name: str, file: str, number: int) -> str:
    if value is not None and not isinstance(value, str | int | float):
        raise E105_TEXT_TYPE(field=name, type=type(value).__name__, file=file, line=number)
    return "" if value is None else str(value)


def _jsonl_pairs(text: TextFile, text_col: str | None, label_col: str | None) -> list[PairRow]:
    """One object per line; the first object's keys name the columns (as a header would)."""
    rows: list[PairRow] = []
    names: tuple[str, str, str] | None = None
    for number, raw in enumerate(text.lines, start=1):
        if not raw.strip():
            continue
        record = json_object_line(raw, text.path, number)
        if names is None:
            names = pair_from_columns([str(k) for k in record], text_col, label_col, text.path)
        missing = [name for name in names if name not in record]
        if missing:
            a, b, label = names
            shown = " and ".join(map(repr, missing))
            raise E107_PAIR_OBJECT(missing=shown, a=a, b=b, label=label, file=text.path, line=number)
        first, second = (_json_text(record[name], name, text.path, number) for name in names[:2])
        rows.append((number, first, second, jsonl_label(record[names[2]], names[2], text.path, number)))
    return rows


def pair_from_columns(
    columns: Sequence[str], text_col: str | None, label_col: str | None, source: str
) -> tuple[str, str, str]:
    """The names of the first text's, the second text's and the label's columns among ``columns``."""
    names = [str(c) for c in columns]
    sniff = TableSniff(True, names, [], None, None)
    first, second, label = resolve_pair_columns(sniff, text_col, label_col, source)
    return names[first], names[second], names[label]


def sniff_pair_columns(
    path: str | Path, text_col: str | None = None, label_col: str | None = None
) -> tuple[TableSniff, tuple[int, int, int]] | None:
    """The first lines of a CSV/TSV/JSONL pair file and the columns the reader takes (first text,
    second text, label), resolved as :func:`read_pairs` resolves them; None for other files."""
    suffix = Path(path).suffix.lower()
    if suffix not in (*_TABLES, *_JSONL):
        return None
    text = read_sample(path, SAMPLE_ROWS + 1)
    if suffix in _JSONL:
        first = next(((n, raw) for n, raw in enumerate(text.lines, start=1) if raw.strip()), None)
        if first is None:  # no object: the reader says so (no items found)
            return None
        names = [str(k) for k in json_object_line(first[1], text.path, first[0])]
        sniff = TableSniff(True, names, [], None, None)
    else:
        if looks_like_conll(text):
            raise E113_CONLL_PAIR(file=text.path, line=1)
        sniff = _pair_sniff(text, "\t" if suffix == ".tsv" else ",", text_col, label_col)
    return sniff, resolve_pair_columns(sniff, text_col, label_col, str(path))


def check_columns(
    path: str | Path, text_col: str | None, label_col: str | None, task: str = "classify"
) -> None:
    """The column options against a file's first lines, as its reader will resolve them, before a run:
    for ``pair`` both texts and the label; for ``classify`` the text and label (and no pair file)."""
    suffix = Path(path).suffix.lower()
    if task == "pair":
        if sniff_pair_columns(path, text_col, label_col) is None and suffix not in _JSONL:
            _refuse_other_formats(read_sample(path), suffix)
    elif task == "classify":
        check_classify_columns(path, text_col, label_col)
