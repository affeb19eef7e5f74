"""Telling a file meant for another task: CoNLL given to ``classify``, CSV or ``label text`` to ``ner``,
a pair file to ``classify`` or a single-text file to ``pair``.

Each format reads the other's files without complaint often enough (a CoNLL row ``John B-PER`` is a
valid ``label text`` line) that the result is silently wrong, so the shape of the file is checked.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from advisor._error_codes import E113
from advisor.data._pair_columns import pair_by_name, single_text_reason
from advisor.data._text import TextFile, read_sample

__all__ = [
    "ASCII_SPACE",
    "classify_hint",
    "looks_like_conll",
    "ner_fields_hint",
    "pair_hint",
    "refuse_conll_for_classify",
    "task_mismatch_hint",
]

ASCII_SPACE = re.compile(r"[ \t]+")
_TAG = re.compile(r"^(O|[BIESLU][-_]\S+)$", re.IGNORECASE)
_TEXT_WORDS = ("text", "sentence", "content", "question", "review", "document", "tweet", "utterance")
_LABEL_WORDS = ("label", "class", "category", "target", "intent", "sentiment")
_SAMPLE = 2000


def _rows(text: TextFile) -> tuple[list[list[str]], int]:
    """Column lists of the first non-empty, non-comment lines, and how many blank lines they had."""
    rows: list[list[str]] = []
    blanks = 0
    for raw in text.lines[:_SAMPLE]:
        line = raw.strip(" \t\r\n")
        if not line:
            blanks += 1
        elif not line.startswith(("#", "-DOCSTART-")):
            rows.append(ASCII_SPACE.split(line))
    return rows, blanks


def looks_like_conll(text: TextFile) -> bool:
    """Nearly every row ends in an IOB-style tag, and sentences are separated (blank lines) or varied."""
    rows, blanks = _rows(text)
    if len(rows) < 3:
        return False
    tagged = [r for r in rows if len(r) >= 2 and _TAG.match(r[-1])]
    if len(tagged) < 0.9 * len(rows) or not any(r[-1].upper() != "O" for r in tagged):
        return False
    common = Counter(len(r) for r in rows).most_common(1)[0][1]  # a few ragged rows still look CoNLL
    return common >= 0.9 * len(rows) and (blanks > 0 or len({r[0] for r in rows}) > 0.2 * len(rows))


def refuse_conll_for_classify(text: TextFile) -> None:
    """A CoNLL file read as ``label text`` gives one "label" per token: stop before that happens."""
    if looks_like_conll(text):
        raise E113(file=text.path, line=1)


def classify_hint(text: TextFile) -> str | None:
    """Why a file the NER reader refused is probably classification data, or None."""
    first = text.lines[0].strip().lower() if text.lines else ""
    if first.startswith("{"):
        try:
            keys = [str(k).lower() for k in json.loads(first)]
        except (ValueError, TypeError):
            keys = []
        if "tokens" not in keys and any(k in _TEXT_WORDS + _LABEL_WORDS for k in keys):
            return "the JSON objects hold text and a label: did you mean --task classify?"
    cells = [c.strip().strip('"') for c in re.split(r"[,\t]", first)]
    if len(cells) >= 2 and any(c in _TEXT_WORDS + _LABEL_WORDS for c in cells):
        return "the first line is a CSV/TSV header with text and label columns: did you mean --task classify?"
    rows, _ = _rows(text)
    if len(rows) >= 3 and sum(1 for r in rows if len(r) >= 4 and not _TAG.match(r[-1])) >= 0.8 * len(rows):
        return (
            "the lines look like 'label text' sentences, not 'token tag' rows: did you mean --task classify?"
        )
    return None


def ner_fields_hint(record: dict) -> str:
    """Why a JSONL object is not an NER item, from what it holds: one list without the other, lists
    named otherwise, or a text and a label (classification data)."""
    fields = ", ".join(repr(str(k)) for k in record) or "no fields"
    lists = [str(k) for k, v in record.items() if isinstance(v, list)]
    has_tags = isinstance(record.get("tags", record.get("ner_tags")), list)
    if any(k not in ("tokens", "tags", "ner_tags") for k in lists):
        named = ", ".join(repr(k) for k in lists)
        return f"the object's lists are {named}: name the token list 'tokens' and the tag list 'tags' (or 'ner_tags')"
    if isinstance(record.get("tokens"), list) or has_tags:
        missing = "'tags' (or 'ner_tags')" if not has_tags else "'tokens'"
        return f"the object has {fields}: it needs a {missing} list too, one tag per token"
    keys = [str(k).lower() for k in record]
    if any(k in _TEXT_WORDS for k in keys) and any(k in _LABEL_WORDS for k in keys):
        return f"the object has {fields}: a text and a label, which is classification data: did you mean --task classify?"
    return f'the object has {fields}; NER JSONL needs e.g. {{"tokens": ["John", "lives"], "tags": ["B-PER", "O"]}}'


def _header_names(text: TextFile) -> list[str]:
    """Line 1 as column names: a JSON object's keys, or CSV/TSV cells (quotes stripped)."""
    first = text.lines[0].strip() if text.lines else ""
    if first.startswith("{"):
        try:
            return [str(k) for k in json.loads(first)]
        except (ValueError, TypeError):
            return []
    return [c.strip().strip('"') for c in first.split("\t" if "\t" in first else ",")]


def pair_hint(text: TextFile, task: str) -> str | None:
    """A pair file given as classify, or a single-text file given as pair: the other task, or None."""
    names = _header_names(text)
    if task == "classify" and pair_by_name(names) is not None:
        return "the file has two text columns: did you mean --task pair?"
    if task == "pair" and pair_by_name(names) is None and single_text_reason(names) is not None:
        return "this looks like a single-text file: did you mean --task classify?"
    return None


def task_mismatch_hint(path: str | Path, task: str) -> str | None:
    """``did you mean --task …?`` when the file looks like another task's format, else None.

    For callers (the app) that want the hint before, or without, reading the file as ``task``.
    """
    text = read_sample(path)
    if task == "ner":
        return classify_hint(text)
    if looks_like_conll(text):
        return "did you mean --task ner?"
    return pair_hint(text, task)
