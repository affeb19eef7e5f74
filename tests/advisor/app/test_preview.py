"""The upload preview: the inspect summary for good files, the rendered error for bad ones."""

from __future__ import annotations

from pathlib import Path

from advisor.app import preview_dataset, preview_frame, summary_rows
from advisor.data import read_corpus, read_splits, summarize


def _conll(path: Path, n: int) -> Path:
    blocks = [f"John\tB-PER\nSmith\tI-PER\nlives\tO\nin\tO\nParis{i}\tB-LOC" for i in range(n)]
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def test_preview_matches_what_inspect_reports(tmp_path: Path) -> None:
    path = _conll(tmp_path / "train.conll", 30)
    preview = preview_dataset(path, "ner", n_preview=5)
    assert preview.ok and preview.error is None
    corpus, warnings = read_corpus(path, "ner")
    assert preview.summary == summarize(corpus, read_splits(path, "ner"), warnings)
    rows = dict(summary_rows(preview.summary).itertuples(index=False))
    assert rows["sentences"] == "30" and rows["entities"] == "PER 30, LOC 30"
    assert list(preview.preview["line"]) == [1, 7, 13, 19, 25]
    assert preview.preview["tokens"][0] == "[John Smith]PER lives in [Paris0]LOC"


def test_malformed_file_gives_the_rendered_error_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"tokens": ["a", "b"], "tags": ["O"]}\n', encoding="utf-8")
    preview = preview_dataset(path, "ner")
    assert not preview.ok and preview.summary is None
    assert preview.error is not None and preview.error.startswith(f"{path}:1: ")
    assert "'tokens' has 2 items but 'tags' has 1" in preview.error and "[E105]" in preview.error


def test_classification_preview_shows_text_and_label(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text(
        "text,label\n" + "".join(f"item {i},{'ab'[i % 2]}\n" for i in range(20)), encoding="utf-8"
    )
    corpus, _ = read_corpus(path, "classify")
    frame = preview_frame(corpus, 3)
    assert list(frame.columns) == ["line", "text", "label"]
    assert frame.to_dict("list") == {
        "line": [2, 3, 4],
        "text": ["item 0", "item 1", "item 2"],
        "label": ["a", "b", "a"],
    }


def test_entity_brackets_follow_iob2_spans(tmp_path: Path) -> None:
    path = tmp_path / "t.conll"
    rows = "New B-LOC\nYork I-LOC\nand O\nParis B-LOC\nBerlin B-LOC\nis O\nbig O\nMary B-PER"
    path.write_text("\n\n".join([rows] * 12) + "\n", encoding="utf-8")
    corpus, _ = read_corpus(path, "ner")
    frame = preview_frame(corpus, 1)
    assert frame["tokens"][0] == "[New York]LOC and [Paris]LOC [Berlin]LOC is big [Mary]PER"
    assert frame["entities"][0] == 4
