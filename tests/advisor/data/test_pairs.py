"""Sentence-pair readers (``--task pair``, issue 32): each layout, ``--text-col A,B``, and the bad-input
promise (file, line, what is wrong, a hint; a single-text file as pair and a pair file as classify)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.data import check_columns, read_corpus, read_splits, summarize, task_mismatch_hint, word_overlap
from advisor.errors import InputError
from tests.helpers import write

PAIRS = [
    ("The cat sat on the mat .", "A cat was sitting on the mat .", "1"),
    ("He bought a car .", "She sold her house .", "0"),
    ("Prices rose sharply today .", "Prices went up fast today .", "1"),
    ("The team lost the final .", "The team won the final .", "0"),
] * 4  # 16 pairs: enough for a seeded split

HEADERS = [
    ("sentence1", "sentence2", "label"),
    ("question1", "question2", "is_duplicate"),
    ("question", "sentence", "label"),
    ("premise", "hypothesis", "gold_label"),
    ("text_a", "text_b", "label"),
]


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], sep: str = "\t") -> str:
    return "".join(sep.join(cells) + "\n" for cells in [header, *rows])


def _check_pairs(corpus, rows=PAIRS) -> None:
    """The contract's layout: the first text's words then the second's, split where the second begins."""
    assert corpus.task == "pair" and len(corpus) == len(rows)
    for i, (a, b, label) in enumerate(rows):
        words_a, words_b = corpus.sides(i)
        assert words_a == a.split() and words_b == b.split()
        assert corpus.pair_split[i] == len(a.split()) and corpus.tokens[i] == a.split() + b.split()
        assert corpus.texts[i] == a and corpus.texts_b[i] == b and corpus.labels[i] == label


@pytest.mark.parametrize("header", HEADERS, ids=lambda h: h[0])
def test_glue_style_tsv_with_each_known_header(tmp_path: Path, header: tuple[str, str, str]) -> None:
    columns = ("index", header[0], header[1], header[2])
    rows = [(str(i), a, b, label) for i, (a, b, label) in enumerate(PAIRS)]
    corpus, warnings = read_corpus(write(tmp_path / "glue.tsv", _table(columns, rows)), "pair")
    _check_pairs(corpus)
    assert warnings == [] and corpus.line_numbers[:2] == [2, 3]


def test_mrpc_layout_with_bom_and_unbalanced_quotes(tmp_path: Path) -> None:
    """MRPC: a UTF-8 BOM, ``#1 String`` / ``#2 String``, ``Quality`` first, and quotes that never close."""
    rows = [
        ("1", "101", "102", 'He called it " a mess .', 'He said " it was a mess .'),
        ("0", "103", "104", '" Quoted start and no end', "A plain sentence ."),
        *[(label, str(i), str(i + 1), a, b) for i, (a, b, label) in enumerate(PAIRS[:10])],
    ]
    text = "\ufeff" + _table(("Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"), rows)
    corpus, warnings = read_corpus(write(tmp_path / "msr.tsv", text.encode("utf-8")), "pair")
    assert len(corpus) == 12 and warnings == []
    assert corpus.texts[0] == 'He called it " a mess .' and corpus.texts_b[1] == "A plain sentence ."
    assert corpus.sides(1)[0] == ['"', "Quoted", "start", "and", "no", "end"]
    assert corpus.labels[:2] == ["1", "0"]


def test_csv_with_quoted_commas(tmp_path: Path) -> None:
    rows = [(f'"{a.replace(" .", ", indeed .")}"', b, label) for a, b, label in PAIRS]
    corpus, _ = read_corpus(
        write(tmp_path / "p.csv", _table(("sentence1", "sentence2", "label"), rows, ",")), "pair"
    )
    assert corpus.texts[0] == "The cat sat on the mat, indeed ." and corpus.sides(0)[0][-3:] == [
        ",",
        "indeed",
        ".",
    ]
    assert corpus.texts_b[0] == PAIRS[0][1] and corpus.labels == [label for *_, label in PAIRS]


def test_jsonl_pairs(tmp_path: Path) -> None:
    lines = [json.dumps({"sentence1": a, "sentence2": b, "label": int(label)}) for a, b, label in PAIRS]
    corpus, warnings = read_corpus(write(tmp_path / "p.jsonl", "\n".join(lines) + "\n"), "pair")
    _check_pairs(corpus)
    assert warnings == []


@pytest.mark.parametrize("text_col", ["left,right", "1,2", "left, right"])
def test_text_col_names_the_two_columns_by_name_or_position(tmp_path: Path, text_col: str) -> None:
    rows = [(label, a, b, "x") for a, b, label in PAIRS]
    path = write(tmp_path / "p.tsv", _table(("target", "left", "right", "note"), rows))
    corpus, _ = read_corpus(path, "pair", text_col=text_col)
    _check_pairs(corpus)
    reversed_, _ = read_corpus(path, "pair", text_col="right,left", label_col="0")
    assert reversed_.texts[0] == PAIRS[0][1] and reversed_.texts_b[0] == PAIRS[0][0]


def test_a_headerless_pair_file_is_read_by_content_and_said_so(tmp_path: Path) -> None:
    path = write(tmp_path / "p.tsv", _table(PAIRS[0], PAIRS[1:]))
    corpus, warnings = read_corpus(path, "pair")
    _check_pairs(corpus)
    assert any("no header" in w and "texts from columns 0 and 1, label from column 2" in w for w in warnings)


def test_pairs_with_an_empty_side_are_skipped_and_listed(tmp_path: Path) -> None:
    rows = [*PAIRS[:3], ("Only the first .", "", "1"), ("", "Only the second .", "0"), ("?!", " ", "1")]
    path = write(tmp_path / "p.tsv", _table(("sentence1", "sentence2", "label"), rows))
    corpus, warnings = read_corpus(path, "pair")
    assert len(corpus) == 3 and corpus.skipped_lines == (5, 6, 7)
    assert any(
        "skipped 3 pairs with a label but an empty text on one side (lines 5, 6, 7)" in w for w in warnings
    )
    assert summarize(corpus).skipped == 3
    with pytest.raises(InputError) as error:
        read_corpus(path, "pair", strict=True)
    assert error.value.line == 5 and "one of its two texts is empty" in error.value.message


def test_snli_pairs_without_annotator_consensus_are_left_out_and_said(tmp_path: Path) -> None:
    rows = [
        {"premise": "A dog runs .", "hypothesis": "An animal moves .", "gold_label": "entailment"},
        {"premise": "A cat sleeps .", "hypothesis": "A cat runs .", "gold_label": "-"},
        {"premise": "Two men talk .", "hypothesis": "People speak .", "gold_label": "entailment"},
        {"premise": "A boy sings .", "hypothesis": "A girl sings .", "gold_label": "contradiction"},
    ]
    path = write(tmp_path / "snli.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    corpus, warnings = read_corpus(path, "pair", strict=True)
    assert corpus.labels == ["entailment", "entailment", "contradiction"] and "-" not in corpus.label_counts()
    assert corpus.line_numbers == [1, 3, 4]
    assert any(
        "1 pair labelled '-' (no annotator consensus, as in SNLI/MNLI) left out (lines 2)" in w
        for w in warnings
    )


def test_hf_saved_directory_with_class_names_and_unlabelled_test(tmp_path: Path) -> None:
    import datasets

    features = datasets.Features(
        {
            "sentence1": datasets.Value("string"),
            "sentence2": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["not_equivalent", "equivalent"]),
        }
    )
    rows = {"sentence1": [a for a, _, _ in PAIRS], "sentence2": [b for _, b, _ in PAIRS]}
    labelled = datasets.Dataset.from_dict({**rows, "label": [int(x) for *_, x in PAIRS]}, features=features)
    unlabelled = datasets.Dataset.from_dict({**rows, "label": [-1] * len(PAIRS)}, features=features)
    dd = datasets.DatasetDict({"train": labelled, "validation": labelled, "test": unlabelled})
    dd.save_to_disk(str(tmp_path / "saved"))
    splits = read_splits(tmp_path / "saved", "pair")
    assert splits.dev.source.endswith("[validation]") and len(splits.dev) == len(PAIRS)
    assert "test: stratified" in splits.split_method  # GLUE's unlabelled test is left out, split from train
    names = {"1": "equivalent", "0": "not_equivalent"}
    _check_pairs(splits.dev, [(a, b, names[x]) for a, b, x in PAIRS])


# -- bad input ---------------------------------------------------------------------------------------


def _error(path: Path, task: str, **options: str) -> InputError:
    with pytest.raises(InputError) as error:
        read_corpus(path, task, **options)
    assert error.value.file == str(path) and error.value.hint
    return error.value


def test_a_row_missing_the_second_text_names_its_line(tmp_path: Path) -> None:
    rows = [*PAIRS[:4], ("Only one text", "1"), *PAIRS[4:]]
    path = write(tmp_path / "p.tsv", _table(("sentence1", "sentence2", "label"), rows))
    error = _error(path, "pair")
    assert error.line == 6 and "row has 2 columns but the header has 3" in error.message


def test_a_header_with_one_side_of_the_pair_says_which_is_missing(tmp_path: Path) -> None:
    path = write(tmp_path / "p.tsv", _table(("id", "sentence1", "label"), [("1", a, x) for a, _, x in PAIRS]))
    error = _error(path, "pair")
    assert error.line == 1 and "'sentence1' has no second one ('sentence2')" in error.message
    assert "--text-col A,B" in error.hint


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("single.csv", "text,label\n" + "".join(f"{a},{x}\n" for a, _, x in PAIRS)),
        (
            "single.tsv",
            "id\tsentence\tlabel\n" + "".join(f"{i}\t{a}\t{x}\n" for i, (a, _, x) in enumerate(PAIRS)),
        ),
        ("single.jsonl", "".join(json.dumps({"text": a, "label": x}) + "\n" for a, _, x in PAIRS)),
        ("kim.txt", "".join(f"{x} {a}\n" for a, _, x in PAIRS)),
    ],
)
def test_a_single_text_file_given_as_pair_says_so(tmp_path: Path, name: str, text: str) -> None:
    path = write(tmp_path / name, text)
    error = _error(path, "pair")
    assert error.code == "E113" and error.line == 1 and "this looks like a single-text file" in error.message
    assert "--task classify" in error.hint
    if not name.endswith(".txt"):
        assert "--text-col A,B" in error.hint
        with pytest.raises(InputError, match="single-text file"):  # the run's validation, before any run
            check_columns(path, None, None, "pair")
    assert (
        task_mismatch_hint(path, "pair")
        == "this looks like a single-text file: did you mean --task classify?"
    )


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl"])
def test_a_pair_file_given_as_classify_is_refused_not_read_as_one_text(tmp_path: Path, suffix: str) -> None:
    if suffix == ".jsonl":
        text = "".join(json.dumps({"question": a, "sentence": b, "label": x}) + "\n" for a, b, x in PAIRS)
    else:
        text = _table(("question", "sentence", "label"), PAIRS, "\t" if suffix == ".tsv" else ",")
    path = write(tmp_path / f"qnli{suffix}", text)
    error = _error(path, "classify")
    assert error.code == "E113" and error.line == 1
    assert "two text columns, 'question' and 'sentence'" in error.message and "--task pair" in error.hint
    with pytest.raises(InputError, match="sentence-pair file"):
        check_columns(path, None, None, "classify")
    assert task_mismatch_hint(path, "classify") == "the file has two text columns: did you mean --task pair?"
    chosen, _ = read_corpus(path, "classify", text_col="question")  # one text named on purpose: read
    assert chosen.task == "classify" and chosen.texts[0] == PAIRS[0][0]


@pytest.mark.parametrize(
    ("text_col", "message"),
    [
        ("sentence1,nope", "no column named 'nope'"),
        ("sentence1", "--text-col 'sentence1' names 1 column(s), but --task pair reads two texts"),
        ("a,b,c", "names 3 column(s)"),
        ("sentence1,sentence1", "--text-col's two columns both name column 'sentence1'"),
        ("label,sentence2", "a text column and the label both name column 'label'"),
        ("0,7", "no column at position 7: the rows have 3 columns"),
    ],
)
def test_bad_text_col_for_pairs_is_an_error_at_line_1(tmp_path: Path, text_col: str, message: str) -> None:
    path = write(tmp_path / "p.tsv", _table(("sentence1", "sentence2", "label"), PAIRS))
    error = _error(path, "pair", text_col=text_col)
    assert error.code == "E107" and error.line == 1 and message in error.message
    with pytest.raises(InputError) as checked:  # validation resolves the options the same way
        check_columns(path, text_col, None, "pair")
    assert checked.value.render() == error.render()


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (("left", "right", "label"), "cannot tell which two columns hold the texts"),
        (None, "cannot tell which two columns hold the texts (the file has no header"),
    ],
)
def test_unclear_text_columns_ask_for_text_col(tmp_path: Path, header, message: str) -> None:
    rows = [(a, b, a.upper(), label) for a, b, label in PAIRS]  # headerless: three free-text columns
    text = _table(header, [r[:2] + r[3:] for r in rows]) if header else _table(rows[0], rows[1:])
    error = _error(write(tmp_path / "p.tsv", text), "pair")
    assert (
        error.code == "E107"
        and error.line == 1
        and message in error.message
        and "--text-col A,B" in error.hint
    )
    if header:  # named, the same file reads
        corpus, _ = read_corpus(tmp_path / "p.tsv", "pair", text_col="left,right")
        _check_pairs(corpus)


def test_jsonl_object_without_the_second_text_names_its_line(tmp_path: Path) -> None:
    lines = [json.dumps({"sentence1": a, "sentence2": b, "label": x}) for a, b, x in PAIRS[:3]]
    lines.append(json.dumps({"sentence1": "alone", "label": "1"}))
    error = _error(write(tmp_path / "p.jsonl", "\n".join(lines) + "\n"), "pair")
    assert error.line == 4 and "object lacks 'sentence2'" in error.message


def test_conll_given_as_pair_points_to_ner(tmp_path: Path) -> None:
    path = write(tmp_path / "a.tsv", "John\tB-PER\nlives\tO\nin\tO\nParis\tB-LOC\n\nMary\tB-PER\nsmiled\tO\n")
    error = _error(path, "pair")
    assert error.code == "E113" and "not sentence pairs" in error.message and "--task ner" in error.hint


def test_validation_refuses_a_bad_pair_file_before_any_run(tmp_path: Path) -> None:
    from advisor.settings import RunSettings
    from advisor.validate import validate_settings

    path = write(tmp_path / "single.csv", "text,label\n" + "".join(f"{a},{x}\n" for a, _, x in PAIRS))
    store = tmp_path / "store"
    settings = RunSettings(data=str(path), task="pair", tracking_uri=f"sqlite:///{store}.db")
    with pytest.raises(InputError, match="single-text file"):
        validate_settings(settings)
    assert not store.with_suffix(".db").exists()  # no MLflow store was touched


# -- what inspect reports --------------------------------------------------------------------------


def test_word_overlap_is_the_share_of_the_second_texts_words_in_the_first() -> None:
    assert word_overlap(["The", "cat", "sat", "."], ["the", "cat", "ran", "."]) == pytest.approx(2 / 3)
    assert word_overlap(["a"], ["b", "c"]) == 0.0
    assert word_overlap(["x", "!"], ["!"]) == 1.0  # punctuation counts only when it is all there is


def test_summary_of_pairs_has_both_sides_and_the_overlap(tmp_path: Path) -> None:
    path = write(tmp_path / "p.tsv", _table(("sentence1", "sentence2", "label"), PAIRS))
    splits = read_splits(path, "pair")
    summary = summarize(splits.whole, splits)
    pair = summary.pair
    assert pair is not None and summary.item_name == "pairs" and summary.labels == {"0": 8, "1": 8}
    assert pair.first.mean == pytest.approx((7 + 5 + 5 + 6) / 4) and pair.first.maximum == 7
    assert pair.second.minimum == 5 and pair.second.maximum == 8
    # Per distinct pair: cat on the mat of {a cat was sitting on the mat}, nothing, prices today, the team final.
    assert pair.overlap_mean == pytest.approx((4 / 7 + 0 + 2 / 5 + 3 / 4) / 4)
    assert pair.overlap_high == pytest.approx(0.5)
    assert summary.to_dict()["pair"]["second"]["maximum"] == 8
