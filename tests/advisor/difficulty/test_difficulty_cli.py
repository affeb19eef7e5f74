"""``advisor metrics`` as a user runs it (in-process through the console-script entry point)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def _conll(path: Path, sentences: list[list[tuple[str, str]]]) -> Path:
    path.write_text("".join("".join(f"{t}\t{g}\n" for t, g in s) + "\n" for s in sentences), encoding="utf-8")
    return path


def test_ner_metrics_print_distributions_and_slices(advisor_cli, tmp_path: Path) -> None:
    train = _conll(tmp_path / "train.conll", [[("Ann", "B-PER"), ("Lee", "I-PER"), ("sang", "O")]] * 20)
    test = _conll(
        tmp_path / "test.conll",
        [
            [("Ann", "B-PER"), ("sang", "O")],
            [("Bo", "B-PER"), ("Ek", "I-PER"), ("Li", "I-PER"), ("sang", "O")],
        ]
        * 15,
    )
    out = tmp_path / "items.csv"
    code, stdout, stderr = advisor_cli(
        "metrics", str(train), "--task", "ner", "--test", str(test), "--out", str(out)
    )
    assert code == 0, stderr
    for name in ("ner_complexity", "ner_ambiguity", "ner_unseen", "difficult / easy"):
        assert name in stdout
    # 30 entities: 15 "Ann" (span 1, seen 20x) and 15 "Bo Ek Li" (span 3, never seen) -> 15/15 splits
    assert "30 evaluation entities" in stdout
    assert "15 / 15" in stdout
    table = pd.read_csv(out)
    assert len(table) == 30 and set(table["ner_complexity"]) == {1, 3}


def test_level_not_available_for_task_exits_2(advisor_cli, tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_text("".join(f"{i % 2} some words here {i}\n" for i in range(40)), encoding="utf-8")
    code, _, stderr = advisor_cli("metrics", str(path), "--task", "classify", "--level", "token")
    assert code == 2 and "not available" in stderr and "Traceback" not in stderr


def test_classify_metrics_with_a_local_parser(advisor_cli, tmp_path: Path) -> None:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("parser")
    nlp.initialize()
    nlp.to_disk(tmp_path / "parser")
    path = tmp_path / "data.txt"
    path.write_text("".join(f"{i % 2} some words here w{i}\n" for i in range(60)), encoding="utf-8")
    args = ["metrics", str(path), "--task", "classify", "--spacy-model", str(tmp_path / "parser")]
    code, stdout, stderr = advisor_cli(*args, "--cache-dir", str(tmp_path / "cache"))
    assert code == 0, stderr
    for name in ("classify_complexity", "classify_ambiguity", "classify_unseen"):
        assert name in stdout
    # --cache-dir is the cache root, as on run: the parses sit in its parses/ folder, shared with run
    parses = list((tmp_path / "cache").rglob("*.spacy"))
    assert parses and all(p.relative_to(tmp_path / "cache").parts[0] == "parses" for p in parses)
    # every evaluation sentence has exactly one new word out of four
    assert "100% at 0.25" in stdout
