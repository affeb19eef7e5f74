"""Reader behaviour found wanting by a demanding user: quotes, encodings, Unicode spaces, empty items."""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

import pytest

from advisor.data import read_corpus, read_splits
from advisor.errors import InputError
from tests.helpers import write


def rows(n: int, sep: str = ",") -> list[str]:
    return [f"review {i} was {'fine' if i % 2 else 'poor'}{sep}{'pos' if i % 2 else 'neg'}" for i in range(n)]


@pytest.mark.parametrize("sep, suffix", [(",", ".csv"), ("\t", ".tsv")])
def test_a_text_starting_with_a_quote_does_not_swallow_rows(tmp_path: Path, sep: str, suffix: str) -> None:
    """104 data rows with one stray quote read as 104 items (they used to read as 101)."""
    lines = [*rows(50, sep), f'"Great movie, said nobody{sep}pos', *rows(50, sep), f'he said "hi"{sep}neg']
    lines += rows(2, sep)
    corpus, warnings = read_corpus(
        write(tmp_path / f"d{suffix}", "\n".join([f"text{sep}label", *lines]) + "\n"), "classify"
    )
    assert len(corpus) == 104
    assert corpus.texts[50] == '"Great movie, said nobody'
    assert corpus.line_numbers[50] == 52
    if sep == ",":
        assert any("d.csv:52:" in w and "unbalanced double quote" in w for w in warnings)


def test_quoted_csv_fields_still_span_lines_and_hold_commas(tmp_path: Path) -> None:
    text = 'text,label\n"one, two",pos\n"three\nfour",neg\n"say ""hi""",pos\n'
    corpus, warnings = read_corpus(write(tmp_path / "q.csv", text), "classify")
    assert corpus.texts == ["one, two", "three\nfour", 'say "hi"'] and warnings == []
    assert corpus.line_numbers == [2, 3, 5]


def test_an_unclosed_quote_is_blamed_on_the_line_it_opened(tmp_path: Path) -> None:
    text = 'text,label\na,pos\nb,neg\n"c d has no label\ne,neg\nf,pos\n'
    with pytest.raises(InputError) as error:
        read_corpus(write(tmp_path / "u.csv", text), "classify")
    assert error.value.line == 4 and "malformed CSV" in error.value.message


def test_fields_over_the_csv_modules_default_limit(tmp_path: Path) -> None:
    corpus, _ = read_corpus(
        write(tmp_path / "big.csv", "text,label\n" + "w " * 100_000 + ",pos\n"), "classify"
    )
    assert len(corpus.tokens[0]) == 100_000


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32(tmp_path: Path, encoding: str) -> None:
    data = "John B-PER\nlives O\n\nMary B-PER\n".encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    corpus, _ = read_corpus(write(tmp_path / "w.conll", data), "ner")
    assert corpus.tokens == [["John", "lives"], ["Mary"]]
    assert corpus.encoding.startswith(encoding[:6])


def test_unicode_spaces_stay_inside_tokens_and_the_right_line_is_blamed(tmp_path: Path) -> None:
    good = "New\u00a0York B-LOC\nis O\n\nbig\u2028city O\nhere\u3000now O\n"
    corpus, _ = read_corpus(write(tmp_path / "n.conll", good + "Ann B-PER\n"), "ner")
    assert corpus.tokens[0] == ["New\u00a0York", "is"] and corpus.tokens[1][:2] == [
        "big\u2028city",
        "here\u3000now",
    ]
    with pytest.raises(InputError) as error:
        read_corpus(write(tmp_path / "bad.conll", "New\u00a0York B-LOC\nis NN O\n"), "ner")
    assert error.value.line == 2


def test_lower_case_prefixes_are_read_with_a_warning(tmp_path: Path) -> None:
    corpus, warnings = read_corpus(write(tmp_path / "l.conll", "john b-per\nsmith i-per\nsang o\n"), "ner")
    assert corpus.labels == [["B-per", "I-per", "O"]]
    assert any("l.conll:1: 3 tag(s) with a lower-case prefix" in w for w in warnings)


@pytest.mark.parametrize("label", ["null", '""', '"  "'])
def test_jsonl_empty_labels_are_refused_like_csv(tmp_path: Path, label: str) -> None:
    path = write(
        tmp_path / "j.jsonl", f'{{"text": "a", "label": "pos"}}\n{{"text": "b", "label": {label}}}\n'
    )
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify")
    assert error.value.line == 2 and error.value.code == "E106"


def test_conll_for_classify_and_csv_for_ner_are_named(tmp_path: Path) -> None:
    conll = write(tmp_path / "c.txt", "John B-PER\nlives O\n\nMary B-PER\nsmiled O\n")
    with pytest.raises(InputError, match="CoNLL") as error:
        read_corpus(conll, "classify")
    assert error.value.hint == "did you mean --task ner?"
    csv_file = write(tmp_path / "c.csv", "text,label\n" + "\n".join(rows(5)) + "\n")
    with pytest.raises(InputError) as error:
        read_corpus(csv_file, "ner")
    assert "did you mean --task classify?" in (error.value.hint or "")


def test_empty_items_are_skipped_and_counted_or_refused_when_strict(tmp_path: Path) -> None:
    lines = [f"{'pos' if i % 2 else 'neg'} text {i}" for i in range(12)]
    lines[3], lines[7] = "neg", "pos   "
    path = write(tmp_path / "e.txt", "\n".join(lines) + "\n")
    corpus, warnings = read_corpus(path, "classify")
    assert len(corpus) == 10 and corpus.skipped_lines == (4, 8)
    assert any(w.startswith(f"{path}:4: skipped 2 items") and "lines 4, 8" in w for w in warnings)
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify", strict=True)
    assert error.value.line == 4


def test_dev_labels_and_types_never_seen_in_training_are_warned(tmp_path: Path) -> None:
    train = write(tmp_path / "train.csv", "text,label\n" + "\n".join(rows(20)) + "\n")
    dev = write(tmp_path / "dev.csv", "text,label\na,meh\nb,meh\nc,pos\n")
    splits = read_splits(train, "classify", dev=dev)
    assert any("dev.csv: 1 label(s) never seen in training: 'meh' (2)" in w for w in splits.warnings)
    ner = write(tmp_path / "t.conll", "Ann B-PER\nsang O\n\n" * 14)
    ner_dev = write(tmp_path / "d.conll", "Bob B-ORG\nsang O\n\nAnn B-PER\n")
    splits = read_splits(ner, "ner", dev=ner_dev)
    assert any("entity type(s) never seen in training: 'ORG' (1)" in w for w in splits.warnings)


def test_a_named_pipe_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "p.conll"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="named pipe"):
        read_corpus(fifo, "ner")  # would block for ever if it were opened


def test_jsonl_null_text_is_an_empty_item(tmp_path: Path) -> None:
    records = [{"text": None, "label": "a"}] + [{"text": f"t {i}", "label": "ab"[i % 2]} for i in range(4)]
    corpus, warnings = read_corpus(
        write(tmp_path / "n.jsonl", "\n".join(map(json.dumps, records))), "classify"
    )
    assert len(corpus) == 4 and corpus.skipped_lines == (1,) and warnings


def test_task_mismatch_hint_for_callers_that_check_first(tmp_path: Path) -> None:
    from advisor.data import task_mismatch_hint

    conll = write(tmp_path / "c.txt", "John B-PER\nlives O\n\nMary B-PER\nsmiled O\n")
    table = write(tmp_path / "t.csv", "text,label\n" + "\n".join(rows(5)) + "\n")
    assert task_mismatch_hint(conll, "classify") == "did you mean --task ner?"
    assert "did you mean --task classify?" in (task_mismatch_hint(table, "ner") or "")
    assert task_mismatch_hint(conll, "ner") is None and task_mismatch_hint(table, "classify") is None


def test_permission_denied_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Tests run as root here, where chmod 000 still reads: the refusal is simulated.)"""
    import advisor.data._text as text_module

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    path = write(tmp_path / "p.conll", "Ann B-PER\n")
    monkeypatch.setattr(text_module, "open", denied, raising=False)
    with pytest.raises(InputError, match="cannot read the file: Permission denied") as error:
        read_corpus(path, "ner")
    assert error.value.file == str(path)
