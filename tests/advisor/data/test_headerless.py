"""Headerless CSV/TSV files (issue 29): the first row read as data when it looks like data, the text and
label columns picked by content, ``--text-col`` / ``--label-col`` by name or 0-based position."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.data import check_columns, read_corpus, read_splits, sniff_columns
from advisor.errors import InputError
from tests.helpers import headerless_questions, write_headerless

REVIEWS = [
    ("a slow and dull film that never finds its feet at all", "neg"),
    ("the best thing I have seen in years , warm and funny", "pos"),
    ("I walked out after an hour of this mess", "neg"),
    ("lovely acting and a story that stays with you for days", "pos"),
] * 5


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_a_headerless_text_label_file_reads_without_options(tmp_path: Path, suffix: str) -> None:
    rows = headerless_questions(120)
    path = write_headerless(tmp_path / f"questions{suffix}", rows)
    corpus, warnings = read_corpus(path, "classify")
    assert len(corpus) == 120 and corpus.line_numbers[0] == 1  # the first row is an item
    assert corpus.texts == [text for text, _ in rows]  # commas inside quoted CSV fields stay text
    assert sorted(corpus.label_counts()) == ["0", "1", "2", "3", "4", "5"]
    assert any("no header" in w and "text from column 0, label from column 1" in w for w in warnings)


def test_inspect_reads_a_generated_headerless_trec_copy_without_options(tmp_path: Path, advisor_cli) -> None:
    path = write_headerless(tmp_path / "TREC.headerless.tsv", headerless_questions(120))
    code, out, err = advisor_cli("inspect", "--task", "classify", str(path))
    assert code == 0, err
    flat = " ".join(out.split())
    assert "items │ 120" in flat and "labels │ 6: 0 20, 1 20" in flat
    assert "no header" in err  # said once, so a wrong guess is seen


def test_columns_are_picked_by_content_whatever_their_order(tmp_path: Path) -> None:
    path = write_headerless(tmp_path / "q.tsv", headerless_questions(60, label_first=True))
    corpus, _ = read_corpus(path, "classify")
    assert corpus.labels[:3] == ["0", "1", "2"] and corpus.texts[0].startswith("What does the word")
    three = [(str(i), text, label) for i, (text, label) in enumerate(headerless_questions(60))]
    path = write_headerless(tmp_path / "ids.csv", three)  # an id column: unique numbers, never the text
    corpus, _ = read_corpus(path, "classify")
    assert corpus.texts[0].startswith("What does the word") and corpus.labels[0] == "0"


@pytest.mark.parametrize(
    "first",
    [
        "Who won ?\t5",  # short text, but its label is one of the labels further down
        "a film I would watch again and again with friends\tmeh",  # a unique label, but free text
    ],
)
def test_a_first_row_that_looks_like_data_is_data(tmp_path: Path, first: str) -> None:
    body = "".join(f"{t}\t{'pos' if i % 2 else '5'}\n" for i, (t, _) in enumerate(REVIEWS))
    corpus, _ = read_corpus(_write(tmp_path / "d.tsv", f"{first}\n{body}"), "classify")
    assert len(corpus) == len(REVIEWS) + 1 and corpus.texts[0] == first.split("\t")[0]


def test_a_real_header_is_still_a_header(tmp_path: Path) -> None:
    body = "".join(f"{t}\t{y}\n" for t, y in REVIEWS)
    corpus, warnings = read_corpus(_write(tmp_path / "named.tsv", "sentence\tlabel\n" + body), "classify")
    assert len(corpus) == len(REVIEWS) and corpus.line_numbers[0] == 2 and not warnings
    # names it does not know: still a header ("body" is also a text further down, in a column of
    # texts, not of labels), so the error asks for a name or a position
    unknown = _write(tmp_path / "unknown.tsv", "body\tverdict\n" + body + "body\tpos\n")
    with pytest.raises(InputError) as error:
        read_corpus(unknown, "classify")
    assert "cannot tell which column holds the text from the header's names" in error.value.message
    assert (
        "the header has: body, verdict" in (error.value.hint or "") and "0-based position" in error.value.hint
    )
    corpus, _ = read_corpus(unknown, "classify", text_col="0", label_col="verdict")
    assert len(corpus) == len(REVIEWS) + 1 and corpus.line_numbers[0] == 2
    # a header of several words is a header when the texts below are much longer
    long_body = "".join(f"{t} {t}\t{y}\n" for t, y in REVIEWS)
    wordy = _write(tmp_path / "wordy.tsv", "the text of the review\tverdict\n" + long_body)
    corpus, _ = read_corpus(wordy, "classify", text_col="0", label_col="1")
    assert corpus.line_numbers[0] == 2 and len(corpus) == len(REVIEWS)


def test_positions_name_columns_of_a_headerless_file_and_of_a_header(tmp_path: Path) -> None:
    path = write_headerless(tmp_path / "q.tsv", headerless_questions(60, label_first=True))
    corpus, _ = read_corpus(path, "classify", text_col="1", label_col="0")
    assert corpus.texts[0].startswith("What does the word") and corpus.labels[0] == "0"
    named = _write(tmp_path / "n.csv", "sentence,polarity\n" + "".join(f'"{t}",{y}\n' for t, y in REVIEWS))
    corpus, _ = read_corpus(named, "classify", label_col="1")  # text by name, label by position
    assert corpus.labels[:2] == ["neg", "pos"] and corpus.line_numbers[0] == 2


def test_a_header_whose_names_are_digits_is_read_by_name(tmp_path: Path) -> None:
    body = "".join(f"{t}\t{y}\n" for t, y in REVIEWS)
    # column 0 is named "1" and column 1 is named "0": the names win over the positions
    path = _write(tmp_path / "digits.tsv", "1\t0\n" + body)
    corpus, _ = read_corpus(path, "classify", text_col="1", label_col="0")
    assert corpus.texts[0] == REVIEWS[0][0] and corpus.labels[0] == "neg" and corpus.line_numbers[0] == 2
    # pandas writes positions as names (0, 1, …): a header, whose names are the positions
    path = _write(tmp_path / "pandas.tsv", "0\t1\n" + body)
    corpus, _ = read_corpus(path, "classify", text_col="0", label_col="1")
    assert len(corpus) == len(REVIEWS) and corpus.texts[0] == REVIEWS[0][0]


def test_what_content_cannot_decide_is_asked_by_position(tmp_path: Path) -> None:
    rows = [(t, y, "A" if i % 3 else "B") for i, (t, y) in enumerate(REVIEWS)]
    path = write_headerless(tmp_path / "two_labels.tsv", rows)  # two short repeating columns
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify")
    assert (
        error.value.line == 1
        and "which column holds the label (the file has no header" in error.value.message
    )
    assert "0: 'a slow and dull film" in error.value.hint and "--text-col 0 --label-col 1" in error.value.hint
    corpus, _ = read_corpus(path, "classify", label_col="2")
    assert corpus.labels[:2] == ["B", "A"] and corpus.texts[0] == REVIEWS[0][0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"text_col": "text"}, "no column named 'text': the file has no header"),
        ({"text_col": "0", "label_col": "2"}, "no column at position 2: the rows have 2 columns"),
        ({"text_col": "1", "label_col": "1"}, "--text-col and --label-col both name '1'"),
    ],
)
def test_bad_column_options_name_the_file_and_the_columns(
    tmp_path: Path, options: dict[str, str], message: str, advisor_cli
) -> None:
    path = write_headerless(tmp_path / "q.tsv", headerless_questions(30))
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify", **options)
    assert error.value.code == "E107" and error.value.line == 1 and message in error.value.message
    with pytest.raises(InputError) as checked:  # the run's validation says the same, from the first rows
        check_columns(path, options.get("text_col"), options.get("label_col"))
    assert checked.value.render() == error.value.render()
    flags = [a for k, v in options.items() for a in (f"--{k.replace('_', '-')}", v)]
    code, _, err = advisor_cli("inspect", "--task", "classify", str(path), *flags)
    assert code == 2 and f"{path}:1: {message}" in err and "Traceback" not in err


def test_a_ragged_row_of_a_headerless_file_names_its_line(tmp_path: Path) -> None:
    rows = [*headerless_questions(20), ("one", "two", "three")]
    path = write_headerless(tmp_path / "q.tsv", rows)
    with pytest.raises(InputError) as error:
        read_splits(path, "classify")
    assert error.value.line == 21
    assert "row has 3 columns but the first row has 2 (the file has no header)" in error.value.message


def test_sniff_shows_columns_first_values_and_the_readers_choice(tmp_path: Path) -> None:
    sniff = sniff_columns(write_headerless(tmp_path / "q.csv", headerless_questions(30)))
    assert sniff is not None and not sniff.header and sniff.names == ["0", "1"]
    assert (sniff.text, sniff.label) == (0, 1) and sniff.first_values(1) == ["0", "1", "2"]
    named = sniff_columns(_write(tmp_path / "n.tsv", "sentence\tpolarity\nfine\tpos\nbad\tneg\n"))
    assert named is not None and named.header and (named.text, named.label) == (0, None)
    jsonl = sniff_columns(_write(tmp_path / "j.jsonl", '{"text": "a b", "label": 1}\n'))
    assert jsonl is not None and jsonl.names == ["text", "label"] and (jsonl.text, jsonl.label) == (0, 1)
    assert sniff_columns(_write(tmp_path / "kim.txt", "pos a fine film\n")) is None
