"""Issue 28: readers stream (the first bad line stops the read), big NER files stay packed, and the
reader messages name what is wrong (binary data, NaN labels, one column for text and label, NER
JSONL hints, broken saved datasets, the row that breaks the column count)."""

from __future__ import annotations

import builtins
import io
import json
from pathlib import Path

import pytest

import advisor.data._ner as ner_module
import advisor.data._stream as stream_module
from advisor.data import read_corpus, read_splits, summarize
from advisor.data._packed import Packed, PackedBuilder
from advisor.errors import InputError
from tests.helpers import write

BLOCK = "John\tB-PER\nSmith\tI-PER\nflew\tO\nto\tO\nParis\tB-LOC\n.\tO\n\n"


def big_conll_with_error_at_line_9(path: Path, megabytes: int = 6) -> Path:
    """A few MB of valid CoNLL, but line 9 has a third column."""
    lines = (BLOCK * 2).split("\n")
    lines[8] = "Smith EXTRA\tI-PER"  # line 9 (the second sentence's second row)
    head = "\n".join(lines)
    return write(path, head + BLOCK * (megabytes * 1_000_000 // len(BLOCK)))


class CountingFile:
    """A binary file that counts the bytes read from it."""

    def __init__(self, handle: io.BufferedReader, counter: list[int]) -> None:
        self.handle, self.counter = handle, counter

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.counter[0] += len(data)
        return data

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


def test_an_error_on_line_9_stops_the_read_long_before_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_conll_with_error_at_line_9(tmp_path / "big.conll")
    read = [0]
    monkeypatch.setattr(
        stream_module, "open", lambda file, mode: CountingFile(builtins.open(file, mode), read), raising=False
    )
    with pytest.raises(InputError) as error:
        read_corpus(path, "ner")
    assert error.value.line == 9 and "row has 3 columns but line 1 has 2" in error.value.message
    assert 0 < read[0] <= 2 * stream_module._CHUNK < path.stat().st_size / 2  # rows, then the hint's sample


def test_big_ner_files_are_packed_and_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = BLOCK * 40 + "Ann\tb-per\nwent\to\n\n" + "".join(f"word{i}\tO\nAnn\tB-PER\n\n" for i in range(300))
    path = write(tmp_path / "d.conll", text)
    as_lists, warnings = read_corpus(path, "ner")
    monkeypatch.setattr(ner_module, "PACK_ABOVE_TOKENS", 10)
    packed, packed_warnings = read_corpus(path, "ner")
    assert isinstance(packed.tokens, Packed) and isinstance(packed.labels, Packed)
    assert isinstance(as_lists.tokens, list)
    assert packed.tokens == as_lists.tokens and as_lists.labels == packed.labels
    assert list(packed.texts) == as_lists.texts and list(packed.line_numbers) == as_lists.line_numbers
    assert packed_warnings == warnings and any("lower-case prefix" in w for w in warnings)
    assert packed.label_counts() == as_lists.label_counts() and packed.vocabulary() == as_lists.vocabulary()
    assert packed.n_tokens == as_lists.n_tokens and packed.content_hash() == as_lists.content_hash()
    subset = packed.subset([5, 1, 300])
    assert subset.tokens == [as_lists.tokens[i] for i in (5, 1, 300)]
    assert list(subset.line_numbers) == [as_lists.line_numbers[i] for i in (5, 1, 300)]
    assert subset.subset([2, 0]).labels == [as_lists.labels[300], as_lists.labels[5]]
    assert subset.label_counts() == subset.subset([0, 1, 2]).label_counts()
    splits = read_splits(path, "ner")
    assert splits.whole is not None and len(splits.whole) == len(as_lists)
    assert summarize(splits.whole, splits).entity_counts == summarize(as_lists).entity_counts


def test_the_packed_vocabulary_widens_past_one_and_two_bytes() -> None:
    builder = PackedBuilder()
    words = [f"w{i}" for i in range(70_000)]
    for start in range(0, len(words), 7):
        builder.add(words[start : start + 7])
    builder.add(["w3", "new", "w69999"])
    packed = builder.build()
    assert packed[0] == words[:7] and packed[-1] == ["w3", "new", "w69999"]
    assert builder.ids.typecode == "I" and len(packed) == 10_001
    assert packed[2:4] == [words[14:21], words[21:28]] and packed.lengths()[-1] == 3


def test_a_binary_file_without_nul_bytes_is_named_binary(tmp_path: Path, advisor_cli) -> None:
    """Compressed data (or random bytes) used to read as text: "row has 1 column"."""
    noise = bytes(b for b in range(1, 256) if b not in b"\n\r") * 40
    path = write(tmp_path / "data.conll", noise)
    with pytest.raises(InputError, match="binary data") as error:
        read_corpus(path, "ner")
    assert error.value.file == str(path) and error.value.line == 1 and error.value.hint
    code, _, err = advisor_cli("inspect", str(path), "--task", "ner")
    assert code == 2 and f"{path}:1: binary data" in err and "Traceback" not in err
    bz2 = write(tmp_path / "data.txt", b"BZh91AY&SY" + noise[:200])
    with pytest.raises(InputError, match="bzip2-compressed") as error:
        read_corpus(bz2, "classify")
    assert "bunzip2" in (error.value.hint or "")


def test_a_nul_byte_far_into_the_file_is_an_error_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "late.conll", (BLOCK * 20_000).encode() + b"x\x00y\tO\n")
    with pytest.raises(InputError, match="binary data") as error:
        read_corpus(path, "ner")
    assert error.value.line == 20_000 * 7 + 1


@pytest.mark.parametrize(
    "value, shown", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity")]
)
def test_jsonl_nan_and_infinite_labels_are_refused(
    tmp_path: Path, value: str, shown: str, advisor_cli
) -> None:
    rows = [json.dumps({"text": f"text {i}", "label": ["pos", "neg"][i % 2]}) for i in range(30)]
    rows[6] = f'{{"text": "a b", "label": {value}}}'
    path = write(tmp_path / "n.jsonl", "\n".join(rows) + "\n")
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify")
    assert error.value.code == "E106" and error.value.line == 7
    assert (
        f"label {shown} in field 'label' is not a finite number" in error.value.message and error.value.hint
    )
    code, _, err = advisor_cli("inspect", str(path), "--task", "classify")
    assert code == 2 and f"{path}:7: label {shown}" in err


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t"), (".jsonl", "")])
def test_one_column_for_text_and_label_is_refused(tmp_path: Path, suffix: str, sep: str, advisor_cli) -> None:
    if sep:
        body = f"text{sep}label\n" + "".join(f"item {i}{sep}{'ab'[i % 2]}\n" for i in range(30))
    else:
        body = "".join(json.dumps({"text": f"item {i}", "label": "ab"[i % 2]}) + "\n" for i in range(30))
    path = write(tmp_path / f"d{suffix}", body)
    with pytest.raises(InputError) as error:
        read_corpus(path, "classify", text_col="text", label_col="text")
    assert error.value.code == "E107" and error.value.line == 1
    assert "--text-col and --label-col both name 'text'" in error.value.message
    assert "text, label" in (error.value.hint or "")
    code, _, err = advisor_cli(
        "inspect", str(path), "--task", "classify", "--text-col", "text", "--label-col", "text"
    )
    assert code == 2 and f"{path}:1: --text-col and --label-col both name 'text'" in err


def test_a_first_row_narrower_than_the_rest_is_blamed_itself(tmp_path: Path, advisor_cli) -> None:
    rows = "John\tB-PER\n" + "lives\tVBZ\tO\nin\tIN\tO\n\nMary\tNNP\tB-PER\nsmiled\tVBD\tO\n\n" * 8
    path = write(tmp_path / "first.conll", rows)
    with pytest.raises(InputError) as error:
        read_corpus(path, "ner")
    assert error.value.line == 1
    assert error.value.message == "row has 2 columns but the rows after it have 3 (line 2 on)"
    code, _, err = advisor_cli("inspect", str(path), "--task", "ner")
    assert code == 2 and f"{path}:1: row has 2 columns but the rows after it have 3" in err
    shifted = write(
        tmp_path / "shifted.conll",
        rows.replace("John\tB-PER", "John\tNNP\tB-PER").replace("in\tIN\tO", "in O", 1),
    )
    with pytest.raises(InputError, match="row has 2 columns but line 1 has 3") as error:
        read_corpus(shifted, "ner")
    assert error.value.line == 3


@pytest.mark.parametrize(
    "record, hint",
    [
        (
            {"text": "John lives", "label": "pos"},
            "a text and a label, which is classification data: did you mean --task classify?",
        ),
        ({"sentence": "John", "words": ["John"], "ner_tags": ["B-PER"]}, "name the token list 'tokens'"),
        ({"tokens": ["John"], "entities": "PER"}, "it needs a 'tags' (or 'ner_tags') list too"),
        ({"sentence": "John", "id": 3}, 'NER JSONL needs e.g. {"tokens"'),
    ],
)
def test_ner_jsonl_hints_fit_the_object(tmp_path: Path, record: dict, hint: str, advisor_cli) -> None:
    """The hint said "did you mean --task classify?" for NER data with a 'sentence' field, or none at all."""
    good = json.dumps({"tokens": ["Ann", "sang", "well"], "tags": ["B-PER", "O", "O"]})
    path = write(tmp_path / "n.jsonl", f"{good}\n{json.dumps(record)}\n")
    with pytest.raises(InputError) as error:
        read_corpus(path, "ner")
    assert error.value.line == 2 and hint in (error.value.hint or "")
    assert ("--task classify" in hint) == ("--task classify" in (error.value.hint or ""))
    code, _, err = advisor_cli("inspect", str(path), "--task", "ner")
    assert code == 2 and f"{path}:2:" in err and " ".join(hint.split()[:4]) in " ".join(err.split())


def test_ner_jsonl_errors_other_than_the_fields_keep_their_own_hint(tmp_path: Path) -> None:
    """Any error in NER JSONL of multi-token sentences used to get "did you mean --task classify?"."""
    rows = [{"tokens": ["Ann", "sang", "in", "Rome"], "tags": ["B-PER", "O", "O", "B-LOC"]}] * 5
    rows.append({"tokens": ["Ann", "sang", "in", "Rome"], "tags": [1, 0, 0, 2]})
    path = write(tmp_path / "n.jsonl", "\n".join(map(json.dumps, rows)) + "\n")
    with pytest.raises(InputError) as error:
        read_corpus(path, "ner")
    assert error.value.line == 6 and "integer ids need a label list" in error.value.message
    assert error.value.hint and "--task classify" not in error.value.hint and "hf:NAME" in error.value.hint


@pytest.fixture(scope="module")
def saved_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path_factory.mktemp("saved") / "ds"
    rows = {"text": [f"text {i}" for i in range(30)], "label": ["ab"[i % 2] for i in range(30)]}
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(rows)}).save_to_disk(str(folder))
    return folder


@pytest.mark.parametrize(
    "damage, problem",
    [
        (
            "train/data-00000-of-00001.arrow",
            "train/data-00000-of-00001.arrow is missing (listed in state.json)",
        ),
        ("train/state.json", "train/state.json is missing"),
        ("train", "train/state.json is missing"),
        ("corrupt", "it cannot be loaded (ArrowInvalid"),
    ],
)
def test_a_broken_saved_dataset_says_what_is_missing(
    tmp_path: Path, saved_dataset: Path, damage: str, problem: str, advisor_cli
) -> None:
    import shutil

    folder = tmp_path / "ds"
    shutil.copytree(saved_dataset, folder)
    if damage == "corrupt":
        (folder / "train" / "data-00000-of-00001.arrow").write_bytes(b"garbage")
    elif damage == "train":
        shutil.rmtree(folder / "train")
    else:
        (folder / damage).unlink()
    with pytest.raises(InputError) as error:
        read_corpus(folder, "classify")
    assert error.value.code == "E116" and error.value.file == str(folder)
    assert f"a broken saved dataset: {problem}" in error.value.message
    assert "save_to_disk" in (error.value.hint or "") and "internet" not in (error.value.hint or "")
    code, _, err = advisor_cli("inspect", str(folder), "--task", "classify")
    assert code == 2 and f"{folder}: a broken saved dataset" in err and "internet" not in err


def test_a_saved_dataset_still_reads(saved_dataset: Path) -> None:
    corpus, _ = read_corpus(saved_dataset, "classify")
    assert len(corpus) == 30 and corpus.labels[:2] == ["a", "b"]


def test_a_late_line_that_is_not_utf8_reads_the_whole_file_as_cp1252(tmp_path: Path) -> None:
    """An earlier non-ASCII line read as UTF-8 is read again as cp1252, as when the whole file was decoded at once."""
    data = "caf\u00c3\u00a9 O\n".encode("cp1252") + (BLOCK * 5).encode() + "na\u00efve O\n".encode("cp1252")
    path = write(tmp_path / "mixed.conll", data)
    corpus, warnings = read_corpus(path, "ner")
    assert corpus.encoding == "cp1252" and corpus.tokens[0][0] == "caf\u00c3\u00a9"
    assert corpus.tokens[-1] == ["na\u00efve"]
    assert any("mixed.conll:37: not valid UTF-8 (byte 0xEF); read the file as cp1252" in w for w in warnings)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_line_breaks_split_across_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(stream_module, "_CHUNK", chunk)
    monkeypatch.setattr(stream_module, "_SAMPLE", 4)
    data = b"a\r\nb\rc\n\nd\xc3\xa9\r\n\r\re"
    path = write(tmp_path / "c.txt", data)
    stream = stream_module.LineStream(path, path)
    assert [text for _, text in stream] == ["a", "b", "c", "", "d\u00e9", "", "", "e"]
