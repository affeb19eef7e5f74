"""The Data page's column choice (issue 29): the file's own columns with their first values, the reader's
choice preselected, and only a changed choice passed on as ``--text-col`` / ``--label-col``."""

from __future__ import annotations

from pathlib import Path

from advisor.app._columns import column_choices
from advisor.data import read_corpus
from tests.helpers import headerless_questions, write_headerless


def test_a_headerless_file_offers_its_columns_by_position_with_first_values(tmp_path: Path) -> None:
    path = write_headerless(tmp_path / "q.tsv", headerless_questions(30))
    choices = column_choices(path, "classify")
    assert choices is not None and not choices.header
    assert choices.options == ["0", "1"] and (choices.text, choices.label) == ("0", "1")
    assert choices.labels["0"].startswith("column 0: 'What does the word river mean ?', 'What kind of")
    assert choices.labels["1"] == "column 1: '0', '1', '2'"
    assert (choices.index("text"), choices.index("label")) == (0, 1)
    assert choices.as_options("0", "1") == (None, None)  # the reader's own choice: no option needed
    assert choices.as_options("1", "0") == ("1", "0")


def test_an_unguessable_column_is_left_for_the_user_and_the_choice_reads(tmp_path: Path) -> None:
    path = tmp_path / "n.csv"
    path.write_text(
        "sentence,polarity\n" + "a long and dull film,neg\nwarm and funny,pos\n" * 6, encoding="utf-8"
    )
    choices = column_choices(path, "classify")
    assert choices is not None and choices.header and choices.options == ["sentence", "polarity"]
    assert choices.text == "sentence" and choices.label is None and choices.index("label") is None
    assert choices.labels["polarity"] == "polarity: 'neg', 'pos', 'neg'"
    text_col, label_col = choices.as_options("sentence", "polarity")
    assert (text_col, label_col) == (None, "polarity")
    corpus, _ = read_corpus(path, "classify", text_col, label_col)
    assert corpus.labels[:2] == ["neg", "pos"]


def test_long_values_are_cut_and_files_without_columns_offer_none(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"text": "' + "word " * 30 + '", "label": "x"}\n', encoding="utf-8")
    choices = column_choices(path, "classify")
    assert choices is not None and choices.labels["text"] == "text: '" + "word " * 7 + "word…'"
    kim = tmp_path / "kim.txt"
    kim.write_text("pos a fine film\n", encoding="utf-8")
    assert column_choices(kim, "classify") is None
    assert column_choices(path, "ner") is None
    broken = tmp_path / "b.jsonl"
    broken.write_text("not json\n", encoding="utf-8")
    assert column_choices(broken, "classify") is None  # the preview says why


def test_a_pair_file_offers_two_text_columns_and_passes_a_changed_choice_as_a_text_col_pair(
    tmp_path: Path,
) -> None:
    path = tmp_path / "p.tsv"
    rows = "".join(f"the cat sat number {i}\ta cat was sitting {i}\t{i % 2}\n" for i in range(12))
    path.write_text("sentence1\tsentence2\tlabel\n" + rows, encoding="utf-8")
    choices = column_choices(path, "pair")
    assert choices is not None and choices.pair and choices.roles == ("text", "second text", "label")
    assert (choices.text, choices.second_text, choices.label) == ("sentence1", "sentence2", "label")
    assert [choices.index(r) for r in choices.roles] == [0, 1, 2]
    assert choices.as_options("sentence1", "sentence2", "label") == (None, None)
    text_col, label_col = choices.as_options("sentence2", "sentence1", "label")
    assert (text_col, label_col) == ("sentence2,sentence1", None)
    corpus, _ = read_corpus(path, "pair", text_col, label_col)
    assert corpus.sides(0) == (["a", "cat", "was", "sitting", "0"], ["the", "cat", "sat", "number", "0"])


def test_a_pair_file_whose_columns_the_reader_cannot_tell_leaves_all_three_to_the_user(
    tmp_path: Path,
) -> None:
    path = tmp_path / "p.csv"
    rows = "".join(f"the cat sat number {i},a cat was sitting {i},{i % 2}\n" for i in range(12))
    path.write_text("left,right,gold\n" + rows, encoding="utf-8")
    choices = column_choices(path, "pair")
    assert choices is not None and choices.pair and choices.options == ["left", "right", "gold"]
    assert choices.index("text") is None and choices.index("second text") is None
    text_col, label_col = choices.as_options("left", "right", "gold")
    assert (text_col, label_col) == ("left,right", "gold")
    corpus, _ = read_corpus(path, "pair", text_col, label_col)
    assert len(corpus) == 12 and corpus.labels[:2] == ["0", "1"]
