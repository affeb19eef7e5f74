"""Uploads: the user's own names, size cap, any text format, one folder per upload, task detection, demo data."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.app import (
    DEMO_DIR,
    demo_datasets,
    detect_task,
    max_upload_mb,
    sanitize_filename,
    store_upload,
    upload_root,
)
from advisor.errors import ConfigError, InputError


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("train.conll", "train.conll"),
        ("../../etc/passwd.csv", "passwd.csv"),
        ("C:\\Users\\me\\my data (1).tsv", "my data (1).tsv"),
        (".hidden.jsonl", "hidden.jsonl"),
        ("données été.csv", "données été.csv"),
        ("TREC.train.all", "TREC.train.all"),
        ("tab\there\n.txt", "tabhere.txt"),
        ("../..", "upload"),
        ("evil\u202etxt.csv", "eviltxt.csv"),  # a right-to-left override would disguise the suffix
        ("a\u200bb\u2066c\u2069\ufeff.tsv", "abc.tsv"),  # zero-width, isolates, BOM: invisible, gone
        ("line\u2028break.txt", "linebreak.txt"),
        ("  ../ .csv", "upload.csv"),  # only a suffix: the reader still knows the format
        (" . .jsonl", "upload.jsonl"),
    ],
)
def test_sanitize_filename_keeps_the_users_name_without_directories(name: str, expected: str) -> None:
    assert sanitize_filename(name) == expected


def test_sanitize_filename_caps_the_length_but_keeps_the_suffix() -> None:
    cleaned = sanitize_filename("x" * 500 + ".conll")
    assert len(cleaned) == 120 and cleaned.endswith(".conll")


def test_store_upload_writes_inside_a_fresh_folder_under_the_root(tmp_path: Path) -> None:
    first = store_upload("../evil/train.csv", b"text,label\nhi,a\n", tmp_path, max_mb=1)
    second = store_upload("train.csv", b"text,label\nho,b\n", tmp_path, max_mb=1)
    assert first.path.parent == first.folder and first.folder.parent == tmp_path
    assert first.path.name == "train.csv" and first.path.read_bytes() == b"text,label\nhi,a\n"
    assert first.folder != second.folder  # uploads never overwrite each other, whatever their names
    odd = store_upload("TREC.train.all", b"DESC:manner How did serfdom develop ?\n", tmp_path, max_mb=1)
    assert odd.path.name == "TREC.train.all" and odd.folder not in (first.folder, second.folder)


def test_store_upload_refuses_big_empty_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="over the 1 MB limit") as big:
        store_upload("big.csv", b"a" * (1024 * 1024 + 1), tmp_path, max_mb=1)
    assert big.value.code == "E150"
    with pytest.raises(InputError, match="empty"):
        store_upload("empty.csv", b"  \n", tmp_path, max_mb=1)
    with pytest.raises(InputError, match="binary file, not text") as kind:
        store_upload("model.pkl", b"\x80\x04K\x01\x00\x00.", tmp_path, max_mb=1)
    assert kind.value.code == "E152" and "any extension" in (kind.value.hint or "")
    assert "model.pkl" in kind.value.render()
    assert list(tmp_path.iterdir()) == []  # nothing refused was written
    utf16 = store_upload("u16.txt", "pos nice film\n".encode("utf-16"), tmp_path, max_mb=1)
    assert utf16.path.exists()  # NUL bytes, but a byte-order mark: text for the readers


def test_max_upload_mb_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADVISOR_MAX_UPLOAD_MB", raising=False)
    assert max_upload_mb() == 50
    monkeypatch.setenv("ADVISOR_MAX_UPLOAD_MB", "7")
    assert max_upload_mb() == 7
    monkeypatch.setenv("ADVISOR_MAX_UPLOAD_MB", "lots")
    with pytest.raises(ConfigError, match="ADVISOR_MAX_UPLOAD_MB must be a whole number"):
        max_upload_mb()
    for bad, words in (
        ("-3", "must be positive"),
        ("0", "must be positive"),
        ("99999999", "must be at most 10,240"),
    ):
        monkeypatch.setenv("ADVISOR_MAX_UPLOAD_MB", bad)
        with pytest.raises(ConfigError, match=rf"^\[E2\d\d\] ADVISOR_MAX_UPLOAD_MB {words}"):
            max_upload_mb()  # the variable the value came from is named, not --max-upload-mb


def test_upload_root_sits_beside_a_sqlite_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ADVISOR_UPLOAD_DIR", raising=False)
    assert upload_root(f"sqlite:///{tmp_path}/store/mlflow.db") == (tmp_path / "store" / "uploads").resolve()
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "elsewhere"))
    assert upload_root("sqlite:///x/mlflow.db") == (tmp_path / "elsewhere").resolve()


@pytest.mark.parametrize(
    ("name", "head", "task"),
    [
        ("a.conll", b"John B-PER\n", "ner"),
        ("a.txt", b"John\tB-PER\nlives\tO\nin\tO\nParis\tB-LOC\n", "ner"),
        ("a.tsv", b"EU NNP B-ORG\nrejects VBZ O\n", "ner"),
        ("a.txt", b"positive a fine film\nnegative dull and long\n", "classify"),
        ("a.tsv", b"text\tlabel\nnice one\tpos\n", "classify"),
        ("a.csv", b"text,label\nnice,pos\n", "classify"),
        ("a.jsonl", b'{"tokens": ["John"], "tags": ["B-PER"]}\n', "ner"),
        ("a.jsonl", b'{"text": "nice", "label": "pos"}\n', "classify"),
        ("a.jsonl", b"not json\n", None),
        ("a.txt", b"\n\n", None),
        ("TREC.train.all", b"DESC:manner How did serfdom develop ?\nENTY:cremat What films ?\n", "classify"),
        (
            "mrpc.tsv",
            b"\xef\xbb\xbfQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA b .\tA c .\n",
            "pair",
        ),
        ("qqp.csv", b'id,question1,question2,is_duplicate\n1,"Why?","How?",0\n', "pair"),
        (
            "snli.jsonl",
            b'{"premise": "A dog runs.", "hypothesis": "An animal moves.", "label": "entailment"}\n',
            "pair",
        ),
        ("one.csv", b"sentence,label\nfine,pos\n", "classify"),
    ],
)
def test_detect_task_from_suffix_and_content(name: str, head: bytes, task: str | None) -> None:
    assert detect_task(name, head) == task


def test_demo_datasets_lists_the_bundled_files(tmp_path: Path) -> None:
    demos = demo_datasets(DEMO_DIR)
    assert set(demos) == {"ner", "classify", "pair"}
    assert demos["ner"].train.name == "ner_train.conll" and demos["classify"].test.exists()
    assert demos["pair"].dev.name == "pair_dev.tsv" and demos["pair"].test.exists()
    (tmp_path / "ner_train.conll").write_text("x O\n")
    assert demo_datasets(tmp_path) == {}  # dev and test missing: not offered


def test_upload_root_creates_no_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ADVISOR_UPLOAD_DIR", raising=False)
    upload_root(f"sqlite:///{tmp_path}/new/mlflow.db")
    assert list(tmp_path.iterdir()) == []  # the app shows where uploads go before any exists
