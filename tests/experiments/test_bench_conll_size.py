"""bench_conll_size.py: the proxy (the requested shape, no two sentences alike, written once), its tables and its sittings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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


def write_sources(bench: Any, data: Path) -> Path:
    """Tiny WNUT-17 files under ``data`` (a lone-TAB line ends a sentence, as in WNUT-17)."""
    data.mkdir()
    for name in bench.SOURCES.values():
        (data / name).write_text("Paris\tB-location\nis\tO\n\t\nBob\tB-person\n\n", encoding="utf-8")
    return data


def test_write_proxy_has_the_conll2003_shape(tmp_path: Path) -> None:
    bench = load_experiment("bench_conll_size")
    data = write_sources(bench, tmp_path / "data")
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


def test_the_cold_run_is_every_sitting_up_to_the_first_that_finished() -> None:
    segments = load_experiment("_segments")
    bench = load_experiment("bench_conll_size")
    ran = [segments.Segment("cold", "killed", 10.0), segments.Segment("cold", "interrupted", 20.0)]
    done = [*ran, segments.Segment("cold", "finished", 30.0)]
    assert bench.cold_segments(ran) == ran  # still unfinished: all of them, so far
    assert bench.cold_segments([*done, segments.Segment("cold", "finished", 1.0)]) == done


def test_the_proxy_is_written_once_so_every_sitting_reads_the_same_files(tmp_path: Path) -> None:
    bench = load_experiment("bench_conll_size")
    data = write_sources(bench, tmp_path / "data")
    bench.CONLL2003_SHAPE = {"train": 5, "dev": 3, "test": 3}
    paths = bench.proxy_in(data, tmp_path / "out")
    paths["train"].write_text("kept\tO\n\n", encoding="utf-8")
    assert bench.proxy_in(data, tmp_path / "out")["train"].read_text(encoding="utf-8") == "kept\tO\n\n"


def test_stage_shares_take_the_featurize_stages_together() -> None:
    bench = load_experiment("bench_conll_size")
    stages = {"featurize static": 10.0, "featurize contextual": 30.0, "train": 60.0}
    assert bench.stage_shares(stages, 200.0) == {"featurize": 0.2, "train": 0.3}
    assert bench.stage_shares(stages, 0.0) == {}


def test_a_folder_keeps_one_set_of_options(tmp_path: Path, capsys) -> None:
    import argparse

    bench = load_experiment("bench_conll_size")
    options = {"data_dir": tmp_path, "profile": "default", "workers": None, "precision": "auto"}
    options |= {"device": None, "no_difficulty": False}
    bench.check_options(tmp_path, argparse.Namespace(**options))
    bench.check_options(tmp_path, argparse.Namespace(**options))  # the same options: the next sitting
    with pytest.raises(SystemExit) as stopped:
        bench.check_options(tmp_path, argparse.Namespace(**(options | {"profile": "quick"})))
    assert stopped.value.code == 2
    assert "profile" in capsys.readouterr().err


@pytest.mark.parametrize(("stop", "ended"), [(KeyboardInterrupt, "interrupted"), (RuntimeError, "failed")])
def test_a_sitting_that_stops_is_kept_with_how_it_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: type[BaseException], ended: str
) -> None:
    import advisor.runner
    from advisor.runner import ProgressEvent

    def stopped_run(settings: Any, progress: Any) -> None:
        progress(ProgressEvent(stage="read", message="proxy_train.conll"))
        raise stop

    monkeypatch.setattr(advisor.runner, "run_analysis", stopped_run)
    bench = load_experiment("bench_conll_size")
    ledger = load_experiment("_segments").Ledger(tmp_path, lambda: 0.0)
    with pytest.raises(stop):
        bench.sit(ledger, "cold", settings=None, show=False)
    [segment] = ledger.segments("cold")
    assert segment.ended == ended and "start-up" in segment.stages and not ledger.finished("cold")
