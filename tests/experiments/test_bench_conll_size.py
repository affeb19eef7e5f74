"""The CoNLL-size proxy of bench_conll_size.py: the requested shape, and no two sentences alike."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import load_experiment


def test_distinct_copies_cycles_and_never_repeats_a_sentence() -> None:
    bench = load_experiment("bench_conll_size")
    source = [[("a", "O"), ("b", "B-PER")], [("c", "O")], [("a", "O"), ("b", "B-PER")]]
    copies = list(bench.distinct_copies(source, 7))
    token_tuples = [tuple(t for t, _ in s) for s in copies]
    assert len(copies) == 7
    assert len(set(token_tuples)) == 7
    assert copies[0] == source[0] and copies[1] == source[1]
    assert copies[2][:-1] == source[2] and copies[2][-1][1] == "O"  # a duplicate in the source is marked too


def test_write_proxy_has_the_conll2003_shape(tmp_path: Path) -> None:
    bench = load_experiment("bench_conll_size")
    data = tmp_path / "data"
    data.mkdir()
    for name in bench.SOURCES.values():
        (data / name).write_text("Paris\tB-location\nis\tO\n\t\nBob\tB-person\n\n", encoding="utf-8")
    bench.CONLL2003_SHAPE = {"train": 9, "dev": 4, "test": 5}
    paths = bench.write_proxy(data, tmp_path)
    for part, n in bench.CONLL2003_SHAPE.items():
        sentences = bench.read_conll_sentences(paths[part])
        assert len(sentences) == n
        assert len({tuple(t for t, _ in s) for s in sentences}) == n


def test_stage_rows_name_every_stage_and_its_parts() -> None:
    bench = load_experiment("bench_conll_size")
    timings = {
        "read": 1.0,
        "featurize.contextual": 50.0,
        "featurize.static": 2.0,
        "tune": 30.0,
        "train_wall": 200.0,
        "train.static": 150.0,
        "train.contextual": 120.0,
        "evaluate": 10.0,
        "analysis": 40.0,
        "serving": 12.0,
    }
    rows = dict(bench.stage_rows(timings, 400.0))
    assert rows["featurize contextual"] == 50.0 and rows["featurize static"] == 2.0
    assert rows["tune learning rates (wall)"] == 30.0 and rows["train (wall)"] == 200.0
    assert rows["  cells static (sum)"] == 150.0 and rows["  cells contextual (sum)"] == 120.0
    assert rows["  evaluation (sum over cells)"] == 10.0 and rows["  serving"] == 12.0
    assert rows["wall"] == 400.0 and "  contextuality" not in rows  # a part not timed is not invented


def test_steps_per_family_counts_cells_sums_steps_and_takes_the_median() -> None:
    import pandas as pd

    bench = load_experiment("bench_conll_size")
    curves = pd.DataFrame(
        {"embedding": ["static", "static", "static", "contextual"], "steps": [800, 1000, 3000, 600]}
    )
    assert bench.steps_per_family(curves) == {"contextual": (1, 600, 600.0), "static": (3, 4800, 1000.0)}
    assert bench.steps_per_family(curves.drop(columns="steps")) == {}  # an old store: no steps logged


def test_progress_printer_says_the_stage_the_cell_and_its_steps(capsys) -> None:
    from advisor.grid import Cell
    from advisor.runner import ProgressEvent

    show = load_experiment("bench_conll_size").progress_printer()
    show(ProgressEvent(stage="tune", cell=Cell("static", 3510, 1, lr=0.01), steps=2420))
    show(ProgressEvent(stage="featurize", message="featurizing with contextual"))
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("[") and first.endswith("s] tune static size 3510 seed 1 2420 steps ")
    assert second.endswith("s] featurize featurizing with contextual")
