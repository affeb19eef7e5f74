"""Classification readers: CSV/TSV with a header, headerless ``label text`` lines, JSONL."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from pathlib import Path

from advisor._error_codes import (
    E102,
    E104,
    E104_CSV,
    E104_HEADER,
    E105_TEXT_TYPE,
    E106,
    E106_JSON_LABEL,
    E106_LABEL_TYPE,
    E106_NOT_FINITE,
    E107,
    E107_EMPTY_HEADER,
    E107_GUESS,
    E107_OBJECT,
    E107_SAME_COLUMN,
)
from advisor.data._corpus import Corpus
from advisor.data._empty import skip_empty
from advisor.data._sniff import refuse_conll_for_classify
from advisor.data._text import TextFile, json_object_line, read_text_file

__all__ = ["LABEL_COLUMNS", "TEXT_COLUMNS", "read_classification", "tokenize"]

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

# Words (with inner apostrophes, hyphens or dots), clitics such as 's, or single punctuation marks.
# Already-tokenised text (TREC, SUBJ) passes through almost unchanged.
_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|['’]\w+|[^\w\s]")
# The csv module refuses fields over 128 KiB by default; a long document is a valid item.
csv.field_size_limit(2**31 - 1)
_QUOTE_HINT = (
    'a field that starts with a double quote must end with one, and quotes inside it are doubled ("")'
)
Row = tuple[int, str, str]  # (line, text, label)


def tokenize(text: str) -> list[str]:
    """Split raw text into word tokens; the same rule serves training, evaluation and unlabelled text."""
    return _TOKEN.findall(text)


def read_classification(
    path: str | Path, text_col: str | None = None, label_col: str | None = None, strict: bool = False
) -> tuple[Corpus, list[str]]:
    """Read a classification file; the format follows the extension (.csv, .tsv, .jsonl/.json, else ``label text``).

    Items with a label but no text are skipped with one warning that counts them (``strict``: an
    error at the first one): public benchmark files have a few such rows.
    """
    text = read_text_file(path)
    warnings = list(text.warnings)
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = _jsonl_rows(text, text_col, label_col)
    else:
        refuse_conll_for_classify(text)
        if suffix in (".csv", ".tsv"):
            rows = _delimited_rows(text, "\t" if suffix == ".tsv" else ",", text_col, label_col, warnings)
        else:
            rows = _label_text_rows(text)
    tokens = [tokenize(r[1]) for r in rows]
    kept = skip_empty(text.path, [r[0] for r in rows], [bool(t) for t in tokens], strict, warnings)
    if not kept.indices:
        raise E102(file=text.path, line=1)
    corpus = Corpus(
        task="classify",
        tokens=[tokens[i] for i in kept.indices],
        labels=[rows[i][2] for i in kept.indices],
        source=text.path,
        line_numbers=[rows[i][0] for i in kept.indices],
        texts=[rows[i][1] for i in kept.indices],
        encoding=text.encoding,
        skipped_lines=kept.skipped_lines,
    )
    return corpus, warnings


def _label_text_rows(text: TextFile) -> list[Row]:
    """Kim (2014) format: ``<label><space|tab><text>`` per line, no header; a lone label is an empty item."""
    rows = []
    for number, raw in enumerate(text.lines, start=1):
        line = raw.strip()
        if not line:
            continue
        parts = line.split(None, 1)
        rows.append((number, parts[1] if len(parts) > 1 else "", parts[0]))
    return rows


def _pick(columns: list[str], wanted: str | None, known: tuple[str, ...], role: str, file: str) -> str:
    if wanted is not None:
        if wanted not in columns:
            raise E107(name=wanted, columns=", ".join(map(str, columns)), file=file, line=1)
        return wanted
    lowered = {str(c).lower().strip(): c for c in columns}
    for name in known:
        if name in lowered:
            return lowered[name]
    raise E107_GUESS(role=role, columns=", ".join(map(str, columns)), file=file, line=1)


def _pick_both(columns: list[str], text_col: str | None, label_col: str | None, file: str) -> tuple[str, str]:
    """The text and the label column; one column named for both would make every text its own class."""
    text_name = _pick(columns, text_col, TEXT_COLUMNS, "text", file)
    label_name = _pick(columns, label_col, LABEL_COLUMNS, "label", file)
    if text_name == label_name:
        raise E107_SAME_COLUMN(name=text_name, columns=", ".join(map(str, columns)), file=file, line=1)
    return text_name, label_name


def _unquote(field: str) -> str:
    """A TSV field wrapped whole in quotes (as spreadsheets write it) loses them; any other quote is text."""
    if len(field) >= 2 and field[0] == field[-1] == '"' and '"' not in field[1:-1].replace('""', ""):
        return field[1:-1].replace('""', '"')
    return field


def _tsv_records(text: TextFile) -> Iterator[tuple[int, list[str]]]:
    """TSV: one record per line, split on tabs; a field that merely starts with ``"`` is text."""
    for number, raw in enumerate(text.lines, start=1):
        yield number, [_unquote(f) for f in raw.split("\t")]


def _csv_records(
    text: TextFile, width: int, text_index: int, warnings: list[str]
) -> Iterator[tuple[int, list[str]]]:
    """CSV records with the line each starts on; a quote that never closes cleanly is read as text.

    RFC 4180 lets a quoted field span lines, so one stray quote can swallow the rows after it. A
    record whose quoted field spans lines that themselves look like rows, or that the csv module
    cannot parse, is re-read as the single line it started on, without quote processing (with a
    warning); if that line alone does not fit the header either, the error names the line the quote
    opened on.
    """
    lines = text.lines
    stray: list[int] = []
    position = 1  # the next physical line (1-based) the reader will see
    while position <= len(lines):
        rest = (lines[i] + "\n" for i in range(position - 1, len(lines)))  # O(1) to restart
        reader = csv.reader(rest, strict=True)
        start = position
        try:
            for record in reader:
                end = position - 1 + reader.line_num
                if end > start + 1 and _swallowed(lines[start : end - 1], width):
                    raise csv.Error("a quoted field runs over rows")
                yield start, record
                start = end + 1
            position = len(lines) + 1
        except csv.Error as error:
            plain = _plain_fields(lines[start - 1], width, text_index)
            if plain is None:
                raise E104_CSV(reason=error, file=text.path, line=start, hint=_QUOTE_HINT) from None
            stray.append(start)
            yield start, plain
            position = start + 1
    if stray:
        shown = ", ".join(map(str, stray[:5])) + (" …" if len(stray) > 5 else "")
        warnings.append(
            f"{text.path}:{stray[0]}: {len(stray)} row(s) with an unbalanced double quote read as plain text "
            f"(lines {shown}); {_QUOTE_HINT}"
        )


def _plain_fields(line: str, width: int, text_index: int) -> list[str] | None:
    """A line split on commas with no quote processing; extra commas belong to the text column."""
    fields = line.split(",")
    if len(fields) < width:
        return None
    extra = len(fields) - width
    text = ",".join(fields[text_index : text_index + extra + 1])
    return [*fields[:text_index], text, *fields[text_index + extra + 1 :]]


def _swallowed(following: list[str], width: int) -> bool:
    """Whether the lines a quoted field ran over (its first and last excluded) look like rows."""
    rowlike = sum(1 for line in following if line.count(",") == width - 1)
    return width > 1 and rowlike * 2 >= len(following)


def _delimited_rows(
    text: TextFile, delimiter: str, text_col: str | None, label_col: str | None, warnings: list[str]
) -> list[Row]:
    if delimiter == "\t":
        header = [_unquote(h) for h in text.lines[0].split("\t")] if text.lines else []
    else:
        try:
            header = next(csv.reader([text.lines[0]])) if text.lines else []
        except csv.Error as error:
            raise E104_HEADER(reason=error, file=text.path, line=1) from None
    header = [h.strip() for h in header]
    if not any(header):
        raise E107_EMPTY_HEADER(file=text.path, line=1)
    text_name, label_name = _pick_both(header, text_col, label_col, text.path)
    ti, li = header.index(text_name), header.index(label_name)
    body = TextFile(text.path, ["", *text.lines[1:]], text.encoding)  # keeps line numbers
    records = _tsv_records(body) if delimiter == "\t" else _csv_records(body, len(header), ti, warnings)
    rows = []
    for number, record in records:
        if number == 1 or not record or all(not f.strip() for f in record):
            continue
        if len(record) != len(header):
            raise E104(n=len(record), width=len(header), delimiter=delimiter, file=text.path, line=number)
        label = record[li].strip()
        if not label:
            raise E106(column=label_name, file=text.path, line=number)
        rows.append((number, record[ti], label))
    return rows


def _jsonl_label(value: object, name: str, file: str, number: int) -> str:
    """A label must be a non-empty string or a finite number: ``null``, ``""`` and ``NaN`` are refused.

    Python's JSON reader accepts ``NaN`` and ``Infinity``; read as labels they became classes
    ``nan`` and ``inf``.
    """
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise E106_NOT_FINITE(value=shown, field=name, file=file, line=number)
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value).strip():
        if value is None or isinstance(value, str):
            raise E106_JSON_LABEL(value=value, field=name, file=file, line=number)
        raise E106_LABEL_TYPE(field=name, type=type(value).__name__, file=file, line=number)
    return str(value).strip()


def _jsonl_rows(text: TextFile, text_col: str | None, label_col: str | None) -> list[Row]:
    rows = []
    text_name = label_name = None
    for number, raw in enumerate(text.lines, start=1):
        if not raw.strip():
            continue
        record = json_object_line(raw, text.path, number)
        if text_name is None:
            text_name, label_name = _pick_both(list(record), text_col, label_col, text.path)
        if text_name not in record or label_name not in record:
            raise E107_OBJECT(text=text_name, label=label_name, file=text.path, line=number)
        value = record[text_name]
        if value is not None and not isinstance(value, str | int | float):
            raise E105_TEXT_TYPE(field=text_name, type=type(value).__name__, file=text.path, line=number)
        label = _jsonl_label(record[label_name], str(label_name), text.path, number)
        rows.append((number, "" if value is None else str(value), label))
    return rows
