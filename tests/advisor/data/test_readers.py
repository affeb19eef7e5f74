"""Readers: every supported format, and a clear file:line error for every kind of bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from advisor.data import read_corpus, read_splits, summarize, to_iob2
from advisor.errors import InputError
from tests.helpers import write

CONLL = "John B-PER\nlives O\nin O\nNew B-LOC\nYork I-LOC\n\nMary B-PER\nsmiled O\n"


def ner_lines(n: int, tags: tuple[str, str] = ("B-PER", "I-PER")) -> str:
    return "".join(f"Ann\t{tags[0]}\nLee\t{tags[1]}\nsang\tO\n\n" for _ in range(n))


# --- NER -----------------------------------------------------------------------------------------


def test_conll_basic(tmp_path: Path) -> None:
    corpus, warnings = read_corpus(write(tmp_path / "a.conll", CONLL), "ner")
    assert corpus.tokens == [["John", "lives", "in", "New", "York"], ["Mary", "smiled"]]
    assert corpus.labels[0] == ["B-PER", "O", "O", "B-LOC", "I-LOC"]
    assert corpus.scheme == "IOB2"
    assert corpus.line_numbers == [1, 7]
    assert warnings == []


def test_conll_quirks_docstart_comments_tab_breaks_bom_crlf(tmp_path: Path) -> None:
    text = "-DOCSTART- -X- -X- O\n\n# sent_id = 1\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\t\n#Obama NNP B-NP O\n"
    raw = ("\ufeff" + text).replace("\n", "\r\n").encode("utf-8")
    corpus, _ = read_corpus(write(tmp_path / "b.conll", raw), "ner")
    assert corpus.tokens == [["EU", "rejects"], ["#Obama"]]
    assert corpus.labels == [["B-ORG", "O"], ["O"]]


def test_conll_iob1_is_detected_and_normalised(tmp_path: Path) -> None:
    text = "EU I-ORG\nrejects O\nGerman I-MISC\ncall O\n\nPeter I-PER\nPaul B-PER\n"
    corpus, _ = read_corpus(write(tmp_path / "c.conll", text), "ner")
    assert corpus.scheme == "IOB1"
    assert corpus.labels == [["B-ORG", "O", "B-MISC", "O"], ["B-PER", "B-PER"]]


@pytest.mark.parametrize(
    ("scheme", "tags", "expected"),
    [
        ("BIOES", ["B-LOC", "I-LOC", "E-LOC", "S-PER", "O"], ["B-LOC", "I-LOC", "I-LOC", "B-PER", "O"]),
        ("BILOU", ["B-LOC", "L-LOC", "U-PER", "U-PER"], ["B-LOC", "I-LOC", "B-PER", "B-PER"]),
    ],
)
def test_bioes_and_bilou(tmp_path: Path, scheme: str, tags: list[str], expected: list[str]) -> None:
    text = "".join(f"w{i} {t}\n" for i, t in enumerate(tags))
    corpus, _ = read_corpus(write(tmp_path / "d.conll", text), "ner")
    assert corpus.scheme == scheme
    assert corpus.labels == [expected]


def test_to_iob2_repairs_dangling_inside() -> None:
    assert to_iob2(["O", "I-PER", "I-LOC"]) == ["O", "B-PER", "B-LOC"]


def test_ner_jsonl(tmp_path: Path) -> None:
    rows = [{"tokens": ["Ann", "sang"], "tags": ["B-PER", "O"]}, {"tokens": ["Rome"], "tags": ["S-LOC"]}]
    path = write(tmp_path / "e.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    corpus, _ = read_corpus(path, "ner")
    assert corpus.labels == [["B-PER", "O"], ["B-LOC"]]
    assert corpus.scheme == "BIOES"


# --- classification --------------------------------------------------------------------------------


def test_csv_with_header_autodetects_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", 'id,sentence,label\n1,"Hello, world",pos\n2,Bad day,neg\n')
    corpus, _ = read_corpus(path, "classify")
    assert corpus.texts == ["Hello, world", "Bad day"]
    assert corpus.tokens[0] == ["Hello", ",", "world"]
    assert corpus.labels == ["pos", "neg"]
    assert corpus.line_numbers == [2, 3]


def test_tsv_with_explicit_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "a.tsv", "body\tgold\nI do n't know\tq\nfine\ts\n")
    corpus, _ = read_corpus(path, "classify", text_col="body", label_col="gold")
    assert corpus.tokens[0] == ["I", "do", "n't", "know"]
    assert corpus.labels == ["q", "s"]


def test_label_text_lines_with_cp1252_fallback_warns(tmp_path: Path) -> None:
    path = write(tmp_path / "kim.txt", b"0 caf\xe9 au lait \x85 good\n1\tplain text\n")
    corpus, warnings = read_corpus(path, "classify")
    assert corpus.labels == ["0", "1"]
    assert corpus.texts[0] == "café au lait … good"  # NEL-like byte 0x85 is not a line break
    assert corpus.encoding == "cp1252"
    assert len(warnings) == 1 and "kim.txt:1" in warnings[0] and "cp1252" in warnings[0]


def test_classification_jsonl(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", '{"text": "good film", "label": 1}\n{"text": "bad", "label": 0}\n')
    corpus, _ = read_corpus(path, "classify")
    assert corpus.labels == ["1", "0"]


def test_hf_saved_directory(tmp_path: Path) -> None:
    import datasets

    features = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=["O", "B-PER", "I-PER"])),
        }
    )
    rows = {"tokens": [["Ann", "Lee", "sang"]] * 12, "ner_tags": [[1, 2, 0]] * 12}
    dd = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict(rows, features=features),
            "validation": datasets.Dataset.from_dict(rows, features=features),
            "test": datasets.Dataset.from_dict(rows, features=features),
        }
    )
    dd.save_to_disk(str(tmp_path / "saved"))
    splits = read_splits(tmp_path / "saved", "ner")
    assert splits.sizes() == {"train": 12, "dev": 12, "test": 12}
    assert splits.train.labels[0] == ["B-PER", "I-PER", "O"]


def test_hf_classification_split_without_labels_is_left_out(tmp_path: Path) -> None:
    """GLUE's test splits carry label -1: read as class names[-1] they were a wrong gold label."""
    import datasets

    features = datasets.Features(
        {"sentence": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    texts = [f"film number {i} was {'fine' if i % 2 else 'dull'}" for i in range(20)]
    train = datasets.Dataset.from_dict(
        {"sentence": texts, "label": [i % 2 for i in range(20)]}, features=features
    )
    test = datasets.Dataset.from_dict({"sentence": texts, "label": [-1] * 20}, features=features)
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(tmp_path / "glue"))
    splits = read_splits(tmp_path / "glue", "classify")
    assert splits.test.source.endswith("(test split)") and set(splits.test.labels) <= {"neg", "pos"}
    assert splits.sizes()["train"] + splits.sizes()["dev"] + splits.sizes()["test"] == 20


def test_hf_hub_offline_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.errors import ConfigError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(ConfigError, match="could not load dataset 'hf:surely/not-a-dataset'"):
        read_splits("hf:surely/not-a-dataset", "ner")


# --- splits ------------------------------------------------------------------------------------


def test_seeded_stratified_split_is_reproducible(tmp_path: Path) -> None:
    lines = "".join(f"{i % 3} sentence number {i}\n" for i in range(90))
    path = write(tmp_path / "kim.txt", lines)
    a = read_splits(path, "classify", seed=1)
    b = read_splits(path, "classify", seed=1)
    assert a.sizes() == {"train": 72, "dev": 9, "test": 9}
    assert a.test.texts == b.test.texts
    assert sorted(a.test.label_counts().values()) == [3, 3, 3]  # stratified
    assert "stratified" in a.split_method
    assert not set(a.train.texts) & set(a.test.texts)


def test_given_dev_and_test_files(tmp_path: Path) -> None:
    train = write(tmp_path / "train.conll", ner_lines(12))
    dev = write(tmp_path / "dev.conll", ner_lines(3))
    test = write(tmp_path / "test.conll", ner_lines(4))
    splits = read_splits(train, "ner", dev=dev, test=test)
    assert splits.sizes() == {"train": 12, "dev": 3, "test": 4}
    assert splits.split_method == "given"


def test_summary_counts(tmp_path: Path) -> None:
    corpus, _ = read_corpus(write(tmp_path / "a.conll", CONLL), "ner")
    summary = summarize(corpus)
    assert (summary.items, summary.tokens, summary.vocabulary) == (2, 7, 7)
    assert summary.labels["O"] == 3 and summary.entity_counts == {"PER": 2, "LOC": 1}


# --- bad input: every case names file and line ---------------------------------------------------------

BAD_NER = {
    "empty file": ("", 1, "file is empty"),
    "whitespace only": ("  \n\t\n", 1, "file is empty"),
    "wrong column count": ("John B-PER\nlives VBZ O\n", 2, "row has 3 columns but line 1 has 2"),
    "single column": ("John B-PER\nlives\n", 2, "row has 1 column"),
    "unknown tag": ("John B-PER\nlives O\n\nAnn PERSON\n", 4, "tag 'PERSON' is outside any known scheme"),
    "mixed schemes": ("John I-PER\nsang O\n\nAnn B-PER\nsang O\n", 4, "mixed tag schemes"),
    "bioes and bilou": ("John S-PER\n\nAnn U-PER\n", 3, "mixed tag schemes"),
    "bad jsonl": None,
}


@pytest.mark.parametrize("case", [k for k, v in BAD_NER.items() if v])
def test_bad_ner_input(tmp_path: Path, case: str) -> None:
    text, line, message = BAD_NER[case]
    path = write(tmp_path / "bad.conll", text)
    with pytest.raises(InputError) as info:
        read_corpus(path, "ner")
    rendered = info.value.render()
    assert rendered.startswith(f"{path}:{line}: "), rendered
    assert message in rendered
    assert "hint:" in rendered or case == "unknown tag"


def test_binary_file(tmp_path: Path) -> None:
    path = write(tmp_path / "data.conll", gzip.compress(b"John B-PER\n" * 50))
    with pytest.raises(InputError, match="binary data"):
        read_corpus(path, "ner")


def test_bad_jsonl_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.jsonl", '{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["a", "b"], "tags": ["O"]}\n'
    )
    with pytest.raises(InputError) as info:
        read_corpus(path, "ner")
    assert info.value.render().startswith(f"{path}:2: 'tokens' has 2 items but 'tags' has 1")


def test_missing_label_column(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "text,comment\nhello,x\n")
    with pytest.raises(InputError) as info:
        read_corpus(path, "classify")
    assert info.value.render().startswith(f"{path}:1: cannot tell which column holds the label")
    assert "--label-col" in info.value.render()
    with pytest.raises(InputError, match="no column named 'gold'"):
        read_corpus(path, "classify", label_col="gold")


def test_csv_row_with_wrong_column_count(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "text,label\nfine,1\nnot, quoted,0\n")
    with pytest.raises(InputError) as info:
        read_corpus(path, "classify")
    assert info.value.render().startswith(f"{path}:3: row has 3 columns but the header has 2")


def test_single_class(tmp_path: Path) -> None:
    path = write(tmp_path / "kim.txt", "".join(f"pos sentence {i}\n" for i in range(30)))
    with pytest.raises(InputError) as info:
        read_splits(path, "classify")
    assert "single class 'pos'" in info.value.render()
    assert info.value.render().startswith(f"{path}:")


def test_too_few_items(tmp_path: Path) -> None:
    path = write(tmp_path / "kim.txt", "a one\nb two\na three\n")
    with pytest.raises(InputError) as info:
        read_splits(path, "classify")
    assert info.value.render().startswith(f"{path}:1: only 3 items, too few")


def test_no_entities(tmp_path: Path) -> None:
    path = write(tmp_path / "o.conll", ner_lines(20, ("O", "O")))
    with pytest.raises(InputError, match="every tag is O"):
        read_splits(path, "ner")


def test_classification_jsonl_invalid_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.jsonl", '{"text": "good", "label": 1}\n{"text": "oops", label: 0}\n[1, 2]\n')
    with pytest.raises(InputError) as info:
        read_corpus(path, "classify")
    assert info.value.render().startswith(f"{path}:2: invalid JSON")
    write(path, '{"text": "good", "label": 1}\n[1, 2]\n')
    with pytest.raises(InputError) as info:
        read_corpus(path, "classify")
    assert info.value.render().startswith(f"{path}:2: expected a JSON object")
