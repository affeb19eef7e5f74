"""Property-based fuzzing of the readers (hypothesis, bounded budget).

Any input either reads into a consistent :class:`Corpus` or stops with an :class:`AdvisorError`
(exit 2 in the CLI) — never another exception. Well-formed files written by a standard writer read
back exactly, whatever quotes, commas, tabs or Unicode spaces their texts hold.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.data import read_corpus
from advisor.errors import AdvisorError

# 60 examples per test keep the fast suite fast; ADVISOR_FUZZ_EXAMPLES=2000 searches harder.
BUDGET = settings(
    max_examples=int(os.environ.get("ADVISOR_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
PIECES = [
    "John", "B-PER", "I-PER", "b-loc", "O", "o", "E-X", "S-Y", "L-Z", "U-W", "pos", "neg", "text", "label",
    '"', '""', ",", "\t", " ", "\u00a0", "\u2028", "\u3000", "\r", "\n", "\n\n", "#", "-DOCSTART-", "{", "}",
    '{"text": "a", "label": "b"}', '{"tokens": ["a"], "tags": ["O"]}', "null", "[]", ":", "é", "\ufeff", "\x00",
]  # fmt: skip
SUFFIXES = (".conll", ".txt", ".csv", ".tsv", ".jsonl")


def read(data: bytes, suffix: str, task: str, strict: bool = False) -> None:
    """Read ``data`` as a file; fail the test on anything but success or an AdvisorError."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"data{suffix}"
        path.write_bytes(data)
        try:
            corpus, warnings = read_corpus(path, task, strict=strict)
        except AdvisorError as error:
            assert error.render()
            return
        assert len(corpus) == len(corpus.labels) == len(corpus.line_numbers) == len(corpus.texts) > 0
        assert all(isinstance(w, str) for w in warnings)
        if task == "ner":
            assert all(len(t) == len(tags) > 0 for t, tags in zip(corpus.tokens, corpus.labels, strict=True))
        else:
            assert all(tokens for tokens in corpus.tokens) and all(
                str(label).strip() for label in corpus.labels
            )


pieces_text = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=40).map("".join)
encodings = st.sampled_from(["utf-8", "utf-16", "utf-32", "cp1252", "utf-16-le"])


@pytest.mark.parametrize("task", ["ner", "classify"])
@pytest.mark.parametrize("suffix", SUFFIXES)
@BUDGET
@given(text=pieces_text, encoding=encodings, strict=st.booleans())
def test_any_text_reads_or_fails_cleanly(
    task: str, suffix: str, text: str, encoding: str, strict: bool
) -> None:
    read(text.encode(encoding, errors="replace"), suffix, task, strict)


@pytest.mark.parametrize("task", ["ner", "classify"])
@BUDGET
@given(data=st.binary(max_size=300), suffix=st.sampled_from(SUFFIXES))
def test_any_bytes_read_or_fail_cleanly(task: str, data: bytes, suffix: str) -> None:
    read(data, suffix, task)


texts = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc"]) | st.sampled_from(['"', ",", " ", "'"]),
    min_size=1,
    max_size=30,
).filter(lambda t: any(c.isalnum() for c in t))
labels = st.sampled_from(["pos", "neg", "neutral"])


@BUDGET
@given(rows=st.lists(st.tuples(texts, labels), min_size=1, max_size=15))
def test_csv_written_by_csv_writer_reads_back_exactly(rows: list[tuple[str, str]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["text", "label"])
    writer.writerows(rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.csv"
        path.write_text(buffer.getvalue(), encoding="utf-8")
        corpus, _ = read_corpus(path, "classify")
    kept = [(t.replace("\r", "\n"), lab) for t, lab in rows]
    assert list(zip(corpus.texts, corpus.labels, strict=True)) == kept


@BUDGET
@given(rows=st.lists(st.tuples(texts.filter(lambda t: "\t" not in t), labels), min_size=1, max_size=15))
def test_tsv_text_starting_with_a_quote_is_text(rows: list[tuple[str, str]]) -> None:
    """One item per line whatever quotes a text holds (a TSV field wrapped whole in quotes loses them)."""
    body = "".join(f"{t}\t{lab}\n" for t, lab in rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.tsv"
        path.write_text("text\tlabel\n" + body, encoding="utf-8")
        corpus, _ = read_corpus(path, "classify")
    assert corpus.labels == [lab for _, lab in rows]
    assert len(corpus) == len(rows) and corpus.line_numbers == list(range(2, len(rows) + 2))


tokens = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc", "Zs", "Zl", "Zp"]), min_size=1, max_size=8
)
inner = st.text(alphabet=st.sampled_from(["\u00a0", "\u2028", "\u3000", "a"]), max_size=3)


@BUDGET
@given(
    sentences=st.lists(
        st.lists(st.tuples(tokens, inner, st.sampled_from(["O", "B-PER", "B-LOC"])), min_size=1, max_size=6),
        min_size=1,
        max_size=6,
    )
)
def test_conll_tokens_with_unicode_spaces_read_back(sentences: list[list[tuple[str, str, str]]]) -> None:
    """Columns split on ASCII space/tab only: a no-break space inside a token keeps it whole."""
    blocks = ["\n".join(f"{tok}{mid}{tok}\t{tag}" for tok, mid, tag in sent) for sent in sentences]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.conll"
        path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
        try:
            corpus, _ = read_corpus(path, "ner")
        except AdvisorError as error:  # e.g. a token that starts with '#' and a comment-like row
            assert error.render()
            return
    expected = [[f"{tok}{mid}{tok}".strip() for tok, mid, _ in sent] for sent in sentences]
    assert [[t.strip() for t in s] for s in corpus.tokens] == expected


@BUDGET
@given(
    records=st.lists(
        st.dictionaries(
            st.sampled_from(["text", "label", "tokens", "tags"]),
            st.none() | st.integers() | st.text(max_size=5) | st.lists(st.text(max_size=3), max_size=3),
        ),
        max_size=6,
    )
)
def test_jsonl_records_of_any_shape_read_or_fail_cleanly(records: list[dict]) -> None:
    data = "\n".join(json.dumps(r) for r in records).encode()
    for task in ("ner", "classify"):
        read(data or b"{}", ".jsonl", task)
