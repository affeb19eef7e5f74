"""The app's encoder-layer views against the numbers planted in the store (written by the real writers)."""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from advisor.app import (
    CONTEXTUALITY_LABELS,
    contextuality_table,
    display_command,
    find_layer_sweeps,
    layers_command,
    load_layer_sweep,
    mix_weights_by_cell,
    sweep_label,
    sweep_table,
)
from advisor.tracking import load_analysis

from .layer_store import CONTEXTUALITY, N_LAYERS, SWEEP_DEV, SWEEP_SIZE, LayerStore, planted_weights
from .synthetic_store import SEEDS, SIZES


def test_mix_weights_by_cell_gives_each_cells_weights_and_top_layer(layer_store: LayerStore) -> None:
    frame = mix_weights_by_cell(load_analysis(layer_store.analysis, layer_store.uri))
    assert len(frame) == len(SIZES) * len(SEEDS) and set(frame["embedding"]) == {"contextual"}
    layers = [f"layer {i}" for i in range(N_LAYERS)]
    assert list(frame.columns) == ["embedding", "size", "seed", "top layer", *layers]
    for row in frame.itertuples(index=False):
        expected = planted_weights(row.size, row.seed)
        assert np.allclose([getattr(row, f"_{4 + i}") for i in range(N_LAYERS)], expected)
        assert row[3] == int(np.argmax(expected)) == SIZES.index(row.size)


def test_contextuality_table_shows_every_layer_with_readable_columns(layer_store: LayerStore) -> None:
    table = contextuality_table(load_analysis(layer_store.analysis, layer_store.uri))
    assert list(table.columns) == list(CONTEXTUALITY_LABELS.values())
    assert list(table["layer"]) == [0, 1, 2]
    for column, label in CONTEXTUALITY_LABELS.items():
        assert np.allclose(table[label].astype(float), CONTEXTUALITY[column].astype(float)), column


def test_a_run_without_layer_tables_has_empty_views(app_store) -> None:
    analysis = load_analysis(app_store.finished, app_store.uri)
    assert mix_weights_by_cell(analysis).empty and contextuality_table(analysis).empty


def test_layer_sweep_is_found_and_read_back_with_the_mix_beside_each_layer(layer_store: LayerStore) -> None:
    sweeps = find_layer_sweeps(layer_store.uri)
    assert [r.info.run_id for r in sweeps] == [layer_store.sweep]  # the analysis run is not a sweep
    view = load_layer_sweep(layer_store.sweep, layer_store.uri)
    assert (view.task, view.metric, view.size, view.n_seeds) == ("ner", "f1", SWEEP_SIZE, 2)
    assert view.encoder == "tiny-encoder" and Path(view.data).name == "synthetic.conll"
    table = sweep_table(view).set_index("layer")
    assert list(table.index) == ["0", "1", "2", "scalar mix"]
    mean = {k: 100 * float(np.mean(v)) for k, v in SWEEP_DEV.items()}
    assert np.allclose(table["dev mean"], [mean["0"], mean["1"], mean["2"], mean["mix"]])
    assert np.allclose(table["dev − mix"][:3], [mean[k] - mean["mix"] for k in ("0", "1", "2")])
    assert np.isnan(table.loc["scalar mix", "dev − mix"])  # the mix is the reference, not a row to compare
    assert table["best layer"].tolist() == [False, True, False, False]
    assert table.loc["1", "dev (seeds)"] == "70.0 72.0"
    assert not view.mix_weights.empty


def test_a_sweep_is_labelled_with_its_size_in_thousands(layer_store: LayerStore) -> None:
    [run] = find_layer_sweeps(layer_store.uri)
    assert f" · {SWEEP_SIZE} items · " in sweep_label(run)
    params = {"data": "/data/wnut17train.conll", "task": "ner", "size": "1730"}
    big = SimpleNamespace(
        data=SimpleNamespace(params=params), info=SimpleNamespace(start_time=0, run_id="ab" * 16)
    )
    assert sweep_label(big) == "wnut17train.conll · ner · 1,730 items · 1970-01-01 00:00 · abababab"


def test_layers_command_runs_advisor_layers_on_the_pages_dataset(tmp_path: Path) -> None:
    dataset = {
        "data": str(tmp_path / "train.csv"),
        "task": "classify",
        "dev": str(tmp_path / "dev.csv"),
        "test": None,
        "text_col": "text",
        "label_col": None,
    }
    command = layers_command(
        dataset, tracking_uri="sqlite:///x.db", experiment="advisor", profile="quick", seeds=2, size=64
    )
    shown = shlex.split(display_command(command))
    assert shown[:5] == ["advisor", "layers", dataset["data"], "--task", "classify"]
    options = dict(zip(shown[5::2], shown[6::2], strict=True))
    assert options == {
        "--dev": dataset["dev"],
        "--text-col": "text",
        "--size": "64",
        "--pooling": "first",
        "--seeds": "2",
        "--profile": "quick",
        "--tracking-uri": "sqlite:///x.db",
        "--experiment": "advisor",
    }
    from typer.testing import CliRunner

    from advisor.cli import app

    parsed = CliRunner().invoke(app, [*shown[1:], "--help"])
    assert parsed.exit_code == 0  # every option the app passes exists on `advisor layers`


def test_layers_command_passes_the_pair_encoding_for_pair_data_only(tmp_path: Path) -> None:
    dataset = {"data": str(tmp_path / "pairs.tsv"), "task": "pair", "text_col": "s1,s2"}
    common = {"tracking_uri": "sqlite:///x.db", "experiment": "advisor", "profile": "quick", "seeds": 1}
    shown = shlex.split(display_command(layers_command(dataset, **common, pair_encoding="separate")))
    options = dict(zip(shown[5::2], shown[6::2], strict=True))
    assert options["--pair-encoding"] == "separate" and options["--text-col"] == "s1,s2"
    plain = shlex.split(display_command(layers_command({**dataset, "task": "classify"}, **common)))
    assert "--pair-encoding" not in plain
