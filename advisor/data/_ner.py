"""NER readers: CoNLL column files and AutoTrain-style JSONL (``tokens``, ``tags``)."""

from __future__ import annotations

import re
from pathlib import Path

from advisor._error_codes import (
    E102_NO_SENTENCES,
    E104_NARROW,
    E104_WIDTH,
    E105_NER_FIELDS,
    E105_NER_LENGTHS,
    E105_NER_TAG_IDS,
)
from advisor.data._corpus import Corpus
from advisor.data._empty import skip_empty
from advisor.data._schemes import TagSequence, detect_scheme, normalise_case, to_iob2
from advisor.data._sniff import ASCII_SPACE, classify_hint
from advisor.data._text import TextFile, json_object_line, read_text_file
from advisor.errors import InputError

__all__ = ["ner_corpus_from_sequences", "read_conll", "read_ner_jsonl"]

_TAG_LIKE = re.compile(r"^(O|[A-Z][-_]\S+)$")


def read_conll(path: str | Path) -> tuple[Corpus, list[str]]:
    """Read a CoNLL file: token first, tag last, 2+ columns split on spaces or tabs.

    ``-DOCSTART-`` lines and ``#`` comments are dropped; empty and whitespace-only lines (WNUT-17
    separates sentences with a lone TAB) end a sentence. Every row must have the column count of the
    file's first row, so a shifted or truncated row is reported rather than misread. Columns are
    split on ASCII spaces and tabs only (the CoNLL convention): a no-break space or U+2028 inside a
    token stays part of it. A refused file that looks like classification data says so.
    """
    text = read_text_file(path)
    try:
        return _parse_conll(text)
    except InputError as error:
        hint = classify_hint(text)
        if hint:
            error.hint = hint
        raise


class _Sentences:
    """Sentences collected row by row; a blank line, ``-DOCSTART-`` or the end of file closes one."""

    def __init__(self) -> None:
        self.sentences: list[list[str]] = []
        self.tag_seqs: list[TagSequence] = []
        self.starts: list[int] = []
        self.tokens: list[str] = []
        self.tags: list[str] = []
        self.lines: list[int] = []

    def add(self, token: str, tag: str, line: int) -> None:
        self.tokens.append(token)
        self.tags.append(tag)
        self.lines.append(line)

    def close(self) -> None:
        if self.tokens:
            self.sentences.append(list(self.tokens))
            self.tag_seqs.append(TagSequence(list(self.tags), list(self.lines)))
            self.starts.append(self.lines[0])
            self.tokens.clear()
            self.tags.clear()
            self.lines.clear()


def _parse_conll(text: TextFile) -> tuple[Corpus, list[str]]:
    """Rows into sentences; the first row's column count is the file's (a shifted row is an error)."""
    found = _Sentences()
    n_columns: int | None = None
    first_row_line = 0
    for number, raw in enumerate(text.lines, start=1):
        line = raw.strip()
        if not line or line.startswith("-DOCSTART-"):
            found.close()
            continue
        columns = ASCII_SPACE.split(line)  # a line of only Unicode spaces was blank above
        if line.startswith("#") and not _looks_like_row(columns, n_columns):
            continue  # a comment; hashtag rows such as "#Obama<TAB>O" (WNUT-17) are data
        _check_columns(columns, n_columns, first_row_line, text, number)
        if n_columns is None:
            n_columns, first_row_line = len(columns), number
        found.add(columns[0], columns[-1].strip(), number)
    found.close()
    if not found.sentences:
        raise E102_NO_SENTENCES(format="CoNLL", file=text.path, line=1)
    return ner_corpus_from_sequences(found.sentences, found.tag_seqs, found.starts, text)


def _check_columns(
    columns: list[str], n_columns: int | None, first_row_line: int, text: TextFile, number: int
) -> None:
    """A row needs a token and a tag, and the first row's width (else a token held a space)."""
    if len(columns) < 2:
        raise E104_NARROW(n=len(columns), file=text.path, line=number)
    if n_columns is not None and len(columns) != n_columns:
        raise E104_WIDTH(n=len(columns), first=first_row_line, width=n_columns, file=text.path, line=number)


def _looks_like_row(columns: list[str], n_columns: int | None) -> bool:
    width_ok = len(columns) >= 2 if n_columns is None else len(columns) == n_columns
    return width_ok and bool(_TAG_LIKE.match(columns[-1]))


def ner_corpus_from_sequences(
    sentences: list[list[str]],
    tag_seqs: list[TagSequence],
    starts: list[int],
    text: TextFile,
    skipped: tuple[int, ...] = (),
) -> tuple[Corpus, list[str]]:
    warnings = list(text.warnings)
    tag_seqs = normalise_case(tag_seqs, text.path, warnings)
    scheme = detect_scheme(tag_seqs, text.path)
    labels = [to_iob2(seq.tags) for seq in tag_seqs]
    corpus = Corpus(
        task="ner",
        tokens=sentences,
        labels=labels,
        source=text.path,
        line_numbers=starts,
        scheme=scheme,
        encoding=text.encoding,
        skipped_lines=skipped,
    )
    return corpus, warnings


def read_ner_jsonl(path: str | Path, strict: bool = False) -> tuple[Corpus, list[str]]:
    """Read AutoTrain-style JSONL: one object per line with ``tokens`` and ``tags`` lists of equal length.

    An object with empty lists is an empty item: skipped with a counted warning (``strict``: an error).
    """
    text = read_text_file(path)
    try:
        return _parse_ner_jsonl(text, strict)
    except InputError as error:
        hint = classify_hint(text)
        if hint:
            error.hint = hint
        raise


def _parse_ner_jsonl(text: TextFile, strict: bool) -> tuple[Corpus, list[str]]:
    sentences: list[list[str]] = []
    tag_seqs: list[TagSequence] = []
    starts: list[int] = []
    empty: list[int] = []
    for number, raw in enumerate(text.lines, start=1):
        if not raw.strip():
            continue
        record = json_object_line(raw, text.path, number)
        toks, tags = record.get("tokens"), record.get("tags", record.get("ner_tags"))
        if not isinstance(toks, list) or not isinstance(tags, list):
            raise E105_NER_FIELDS(file=text.path, line=number)
        if len(toks) != len(tags):
            raise E105_NER_LENGTHS(n_tokens=len(toks), n_tags=len(tags), file=text.path, line=number)
        if not all(isinstance(t, str) for t in tags):
            raise E105_NER_TAG_IDS(file=text.path, line=number)
        if not toks:
            empty.append(number)
            continue
        sentences.append([str(t) for t in toks])
        tag_seqs.append(TagSequence([str(t) for t in tags], [number] * len(tags)))
        starts.append(number)
    if not sentences:
        raise E102_NO_SENTENCES(format="JSONL", file=text.path, line=1)
    warnings: list[str] = []
    kept = skip_empty(text.path, empty, [False] * len(empty), strict, warnings, what="sentences")
    text = TextFile(text.path, text.lines, text.encoding, [*text.warnings, *warnings])
    return ner_corpus_from_sequences(sentences, tag_seqs, starts, text, kept.skipped_lines)
