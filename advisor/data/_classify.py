"""Classification readers: CSV/TSV with a header, headerless ``label text`` lines, JSONL."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from advisor.data._corpus import Corpus
from advisor.data._text import TextFile, json_object_line, read_text_file
from advisor.errors import InputError

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


def tokenize(text: str) -> list[str]:
    """Split raw text into word tokens; the same rule serves training, evaluation and unlabelled text."""
    return _TOKEN.findall(text)


def read_classification(
    path: str | Path, text_col: str | None = None, label_col: str | None = None
) -> tuple[Corpus, list[str]]:
    """Read a classification file; the format follows the extension (.csv, .tsv, .jsonl/.json, else ``label text``)."""
    text = read_text_file(path)
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = _jsonl_rows(text, text_col, label_col)
    elif suffix in (".csv", ".tsv"):
        rows = _delimited_rows(text, "\t" if suffix == ".tsv" else ",", text_col, label_col)
    else:
        rows = _label_text_rows(text)
    if not rows:
        raise InputError(
            "no items found", file=text.path, line=1, hint="the file has no data rows", code="E102"
        )
    texts = [r[1] for r in rows]
    tokens = [tokenize(t) for t in texts]
    for (line, raw, _), toks in zip(rows, tokens, strict=True):
        if not toks:
            raise InputError(
                f"empty text {raw!r}",
                file=text.path,
                line=line,
                hint="every item needs some text",
                code="E106",
            )
    corpus = Corpus(
        task="classify",
        tokens=tokens,
        labels=[r[2] for r in rows],
        source=text.path,
        line_numbers=[r[0] for r in rows],
        texts=texts,
        encoding=text.encoding,
    )
    return corpus, list(text.warnings)


def _label_text_rows(text: TextFile) -> list[tuple[int, str, str]]:
    """Kim (2014) format: ``<label><space|tab><text>`` per line, no header."""
    rows = []
    for number, raw in enumerate(text.lines, start=1):
        line = raw.strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise InputError(
                "row has a label but no text",
                file=text.path,
                line=number,
                hint="headerless files need '<label> <text>' per line; use .csv/.tsv with a header otherwise",
                code="E104",
            )
        rows.append((number, parts[1], parts[0]))
    return rows


def _pick(columns: list[str], wanted: str | None, known: tuple[str, ...], role: str, file: str) -> str:
    if wanted is not None:
        if wanted not in columns:
            raise InputError(
                f"no column named {wanted!r}",
                file=file,
                line=1,
                hint=f"the header has: {', '.join(columns)}",
                code="E107",
            )
        return wanted
    lowered = {c.lower().strip(): c for c in columns}
    for name in known:
        if name in lowered:
            return lowered[name]
    raise InputError(
        f"cannot tell which column holds the {role}",
        file=file,
        line=1,
        hint=f"the header has: {', '.join(columns)}; pass --{role}-col NAME",
        code="E107",
    )


def _delimited_rows(
    text: TextFile, delimiter: str, text_col: str | None, label_col: str | None
) -> list[tuple[int, str, str]]:
    reader = csv.reader(io.StringIO("\n".join(text.lines) + "\n"), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("file is empty", file=text.path, line=1, code="E102") from None
    header = [h.strip() for h in header]
    text_name = _pick(header, text_col, TEXT_COLUMNS, "text", text.path)
    label_name = _pick(header, label_col, LABEL_COLUMNS, "label", text.path)
    ti, li = header.index(text_name), header.index(label_name)
    rows = []
    try:
        for record in reader:
            number = reader.line_num
            if not record or all(not f.strip() for f in record):
                continue
            if len(record) != len(header):
                raise InputError(
                    f"row has {len(record)} columns but the header has {len(header)}",
                    file=text.path,
                    line=number,
                    hint=f"quote fields that contain the delimiter {delimiter!r}",
                    code="E104",
                )
            label = record[li].strip()
            if not label:
                raise InputError(
                    f"empty label in column {label_name!r}", file=text.path, line=number, code="E106"
                )
            rows.append((number, record[ti], label))
    except csv.Error as error:
        raise InputError(
            f"malformed CSV: {error}", file=text.path, line=reader.line_num, code="E104"
        ) from None
    return rows


def _jsonl_rows(text: TextFile, text_col: str | None, label_col: str | None) -> list[tuple[int, str, str]]:
    rows = []
    text_name = label_name = None
    for number, raw in enumerate(text.lines, start=1):
        if not raw.strip():
            continue
        record = json_object_line(raw, text.path, number)
        if text_name is None:
            keys = list(record)
            text_name = _pick(keys, text_col, TEXT_COLUMNS, "text", text.path)
            label_name = _pick(keys, label_col, LABEL_COLUMNS, "label", text.path)
        if text_name not in record or label_name not in record:
            raise InputError(
                f"object lacks {text_name!r} or {label_name!r}", file=text.path, line=number, code="E107"
            )
        rows.append((number, str(record[text_name]), str(record[label_name]).strip()))
    return rows
