"""``advisor run`` with the distilled family beside the others, on the tiny BERT: one grid, one verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import load_analysis
from tests.helpers import NewStore, write_ner


def test_distilled_runs_through_the_same_grid_and_serving_pass(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    files = {
        part: str(write_ner(tmp_path / f"{part}.conll", n, i))
        for i, (part, n) in enumerate((("train", 40), ("dev", 10), ("test", 12)))
    }
    settings = RunSettings(
        data=files["train"],
        task="ner",
        dev=files["dev"],
        test=files["test"],
        embeddings=["static", "distilled", "contextual"],
        distill_layer="2",
        sizes=[20, 40],
        seeds=2,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        max_steps=2,
        tracking_uri=new_store(tmp_path / "mlruns"),
        experiment="test",
        cache_dir=str(tmp_path / "cache"),
        device="cpu",
        difficulty=False,
    )
    outcome = run_analysis(settings)
    assert len(outcome.computed) == 3 * 2 * 2
    analysis = load_analysis(outcome.run_id, settings.tracking_uri)
    assert set(analysis.curves["embedding"]) == {"static", "distilled", "contextual"}
    info = analysis.embeddings.set_index("embedding")
    assert info.loc["distilled", "info_layer"] == 2 and info.loc["distilled", "dim"] == 32
    assert info.loc["distilled", "cache_hit"]  # read contextual's all-layer cache: no second corpus pass
    assert info.loc["distilled", "serving_ms_per_item_b1"] > 0  # its own serving row beside the others
    assert analysis.embedding_names == ["static", "distilled", "contextual"]


@pytest.mark.parametrize(("layer", "message"), [("9", "out of range"), ("mix", "not a single layer")])
def test_a_bad_distill_layer_stops_the_cli_before_any_run(
    advisor_cli, tmp_path: Path, tiny_bert_dir: Path, layer: str, message: str
) -> None:
    train = write_ner(tmp_path / "train.conll", 20, 0)
    store = tmp_path / "mlruns" / "mlflow.db"
    code, _, err = advisor_cli(
        "run",
        str(train),
        "--task",
        "ner",
        "--embeddings",
        "static,distilled",
        "--contextual",
        str(tiny_bert_dir),
        "--distill-layer",
        layer,
        "--tracking-uri",
        f"sqlite:///{store}",
    )
    assert code == 2 and message in err and "E231" in err
    assert not store.exists()


def test_difficulty_slices_of_a_distilled_only_run_are_empty_not_an_error() -> None:
    from advisor.data import Corpus
    from advisor.difficulty import GAP_COLUMNS, gap_analysis

    tokens = [["John", "visited", "Paris"], ["the", "bank"]]
    labels = [["B-PER", "O", "B-LOC"], ["O", "O"]]
    train = Corpus(task="ner", tokens=tokens, labels=labels)
    gaps = gap_analysis("ner", train, train, {("distilled", 2, 0): labels}, n_boot=10)
    assert gaps.empty and list(gaps.columns) == GAP_COLUMNS
