"""Classification readers: CSV/TSV with or without a header (:mod:`._columns`), ``label text`` lines, JSONL."""

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
    E104_FIRST_ROW,
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
from advisor.data._columns import (
    LABEL_COLUMNS,
    SAMPLE_ROWS,
    TEXT_COLUMNS,
    TableSniff,
    resolve_columns,
    sniff_table,
)
from advisor.data._corpus import Corpus
from advisor.data._empty import skip_empty
from advisor.data._pair_columns import refuse_pair_for_classify
from advisor.data._sniff import refuse_conll_for_classify
from advisor.data._text import TextFile, json_object_line, read_sample, read_text_file

__all__ = [
    "LABEL_COLUMNS",
    "TEXT_COLUMNS",
    "check_classify_columns",
    "jsonl_label",
    "read_classification",
    "sniff_columns",
    "table_records",
    "table_sniff",
    "tokenize",
]

# Words (with inner apostrophes, hyphens or dots), clitics such as 's, or single punctuation marks.
# Already-tokenised text (TREC, SUBJ) passes through almost unchanged.
_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|['’]\w+|[^\w\s]")
# The csv module refuses fields over 128 KiB by default; a long document is a valid item.
csv.field_size_limit(2**31 - 1)
_QUOTE_HINT = (
    'a field that starts with a double quote must end with one, and quotes inside it are doubled ("")'
)
Row = tuple[int, str, str]  # (line, text, label)
_JSONL = (".jsonl", ".json", ".ndjson")


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
    if suffix in _JSONL:
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


def _first_row(text: TextFile, delimiter: str) -> list[str]:
    """The cells of line 1 (a header, or the first item of a headerless file)."""
    if not text.lines:
        return []
    if delimiter == "\t":
        return [_unquote(h) for h in text.lines[0].split("\t")]
    try:
        return next(csv.reader([text.lines[0]]), [])
    except csv.Error as error:
        raise E104_HEADER(reason=error, file=text.path, line=1) from None


def _sample_rows(lines: list[str], delimiter: str) -> list[list[str]]:
    """The records of ``lines`` (those after line 1) for the column sniffer; a CSV error ends the sample."""
    if delimiter == "\t":
        return [[_unquote(f) for f in line.split("\t")] for line in lines]
    rows: list[list[str]] = []
    try:
        rows.extend(csv.reader(lines))
    except csv.Error:
        pass  # the reader itself names the line
    return rows


def table_sniff(
    text: TextFile, delimiter: str, text_col: str | None, label_col: str | None, known: tuple[str, ...] = ()
) -> TableSniff:
    """Line 1 and the rows after it, judged by :func:`._columns.sniff_table` (an empty line 1 is refused)."""
    first = _first_row(text, delimiter)
    if not any(cell.strip() for cell in first):
        raise E107_EMPTY_HEADER(file=text.path, line=1)
    rows = _sample_rows(text.lines[1 : SAMPLE_ROWS + 1], delimiter)
    return sniff_table(first, rows, text_col, label_col, known)


def sniff_columns(
    path: str | Path, text_col: str | None = None, label_col: str | None = None
) -> TableSniff | None:
    """Header or not, the column names and first values, and the columns the reader would take.

    Reads only the first lines (what the reader itself looks at to decide), so the app and the
    run's validation see what :func:`read_classification` will do. CSV, TSV and JSONL files (whose
    objects' keys are the header); None for other files, which have no columns to choose.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".tsv", *_JSONL):
        return None
    text = read_sample(path, SAMPLE_ROWS + 1)
    if suffix in _JSONL:
        records = [json_object_line(raw, text.path, n) for n, raw in enumerate(text.lines, 1) if raw.strip()]
        names = [str(k) for k in records[0]] if records else []
        rows = [[_cell(r.get(k)) for k in names] for r in records]
        return TableSniff(True, names, rows, *_known_columns(names))
    refuse_conll_for_classify(text)
    return table_sniff(text, "\t" if suffix == ".tsv" else ",", text_col, label_col)


def check_classify_columns(path: str | Path, text_col: str | None, label_col: str | None) -> None:
    """``--text-col`` / ``--label-col`` against a CSV/TSV file's first rows, resolved as the reader
    resolves them (the same functions): a bad name or position is an error before anything runs; a
    CSV/TSV/JSONL file naming two texts is a pair file (:func:`refuse_pair_for_classify`)."""
    if Path(path).suffix.lower() in (".csv", ".tsv", *_JSONL):
        sniff = sniff_columns(path, text_col, label_col)
        assert sniff is not None  # a CSV/TSV/JSONL file always has a sniff
        if sniff.header:
            refuse_pair_for_classify(sniff.names, text_col, str(path))
        if Path(path).suffix.lower() in (".csv", ".tsv"):
            resolve_columns(sniff, text_col, label_col, str(path))


def _cell(value: object) -> str:
    return "" if value is None or isinstance(value, dict | list) else str(value)


def _known_columns(names: list[str]) -> tuple[int | None, int | None]:
    """The text and label keys the JSONL reader takes without options (None: it cannot tell)."""
    lowered = {n.lower().strip(): i for i, n in enumerate(names)}
    text = next((lowered[k] for k in TEXT_COLUMNS if k in lowered), None)
    return text, next((lowered[k] for k in LABEL_COLUMNS if k in lowered), None)


def _delimited_rows(
    text: TextFile, delimiter: str, text_col: str | None, label_col: str | None, warnings: list[str]
) -> list[Row]:
    """Rows of a CSV/TSV file; line 1 is its header unless it reads as data (:mod:`._columns`)."""
    sniff = table_sniff(text, delimiter, text_col, label_col)
    if sniff.header:
        refuse_pair_for_classify(sniff.names, text_col, text.path)
    ti, li = resolve_columns(sniff, text_col, label_col, text.path)
    if not sniff.header:  # said, so a wrong guess is seen before a run trains on it
        warnings.append(
            f"{text.path}:1: no header (the first row reads as data): text from column {ti}, "
            f"label from column {li} (positions from 0)"
        )
    records = table_records(text, sniff, delimiter, (ti,), li, warnings)
    return [(number, fields[0], label) for number, fields, label in records]


def table_records(
    text: TextFile,
    sniff: TableSniff,
    delimiter: str,
    columns: tuple[int, ...],
    label: int,
    warnings: list[str],
) -> list[tuple[int, list[str], str]]:
    """(line, the fields of ``columns``, label) of every data row; each row's width and label checked.

    A stray CSV quote's extra commas go to ``columns[0]`` (:func:`_csv_records`)."""
    width = sniff.width
    body = TextFile(text.path, ["", *text.lines[1:]] if sniff.header else text.lines, text.encoding)
    records = _tsv_records(body) if delimiter == "\t" else _csv_records(body, width, columns[0], warnings)
    rows = []
    for number, record in records:
        if (sniff.header and number == 1) or not record or all(not f.strip() for f in record):
            continue
        if len(record) != width:
            entry = E104 if sniff.header else E104_FIRST_ROW
            raise entry(n=len(record), width=width, delimiter=delimiter, file=text.path, line=number)
        value = record[label].strip()
        if not value:
            raise E106(column=sniff.names[label], file=text.path, line=number)
        rows.append((number, [record[i] for i in columns], value))
    return rows


def jsonl_label(value: object, name: str, file: str, number: int) -> str:
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
            refuse_pair_for_classify(list(record), text_col, text.path)
            text_name, label_name = _pick_both(list(record), text_col, label_col, text.path)
        if text_name not in record or label_name not in record:
            raise E107_OBJECT(text=text_name, label=label_name, file=text.path, line=number)
        value = record[text_name]
        if value is not None and not isinstance(value, str | int | float):
            raise E105_TEXT_TYPE(field=text_name, type=type(value).__name__, file=text.path, line=number)
        label = jsonl_label(record[label_name], str(label_name), text.path, number)
        rows.append((number, "" if value is None else str(value), label))
    return rows
