"""Adding a family is one module plus its registration: a toy family declared in this test alone runs
through plan, train, serving costs, verdict and report like the built-in ones (issue 27 item 2).

Two toys: a frozen embedding of the grid (``hashed``: an embedding class and its family), and a family
that is not (``memorised``: its own planner, trainer and serving hooks, as the fine-tuned reference).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from advisor.data import Corpus, DataSplits
from advisor.embeddings import Embedding
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.grid import Cell, GridPlan, subset_indices, subset_order
from advisor.pipeline import embedding_options, plan_run
from advisor.plots import embedding_colors
from advisor.registry import embeddings
from advisor.report import write_report
from advisor.runner import run_analysis
from advisor.verdict import recommend
from advisor.vocabulary import (
    Family,
    FamilySettings,
    featurize_order,
    register_family,
    task_spec,
    unregister_family,
)
from tests.helpers import NewStore, tiny_run_settings, write_ner_splits

TOY = "hashed"
TOY_DIM = 8


class HashedEmbedding(Embedding):
    """A frozen embedding with no table: each word's vector is drawn from a hash of the word."""

    name = TOY
    family = TOY

    def __init__(self, *, dim: int = TOY_DIM, salt: str = "") -> None:
        super().__init__()
        self._dim, self.salt = int(dim), salt

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def storage_bytes(self) -> int:
        return 0

    def _vector(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256((self.salt + word).encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self._dim).astype(np.float32)

    def featurize(self, corpus: Corpus) -> TokenFeatures:
        start = time.perf_counter()
        words = [tok for sent in corpus.tokens for tok in sent]
        vectors = (
            np.stack([self._vector(w) for w in words]) if words else np.zeros((0, self._dim), np.float32)
        )
        self.last_featurize_seconds = time.perf_counter() - start
        return TokenFeatures(vectors=vectors, offsets=offsets_from_lengths([len(s) for s in corpus.tokens]))

    def describe(self) -> dict[str, str | int | float]:
        return {"family": TOY, "dim": self._dim, "salt": self.salt}


def _toy_options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, object]:
    return {"dim": TOY_DIM, "salt": "toy"}


@pytest.fixture()
def toy_family() -> Iterator[Family]:
    """The toy family registered for one test (embedding class and family declaration), then removed."""
    embeddings.register(TOY, family=TOY)(HashedEmbedding)
    declared = register_family(
        Family(
            TOY, 15, "hashed word vectors", "Hashed embeddings", "#9467bd", _toy_options, after=("static",)
        )
    )
    try:
        yield declared
    finally:
        unregister_family(TOY)
        embeddings.unregister(TOY)


def test_a_family_registered_in_a_test_runs_through_plan_train_costs_verdict_and_report(
    toy_family: Family,
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store: NewStore,
) -> None:
    files = write_ner_splits(tmp_path / "data")
    settings = tiny_run_settings(
        tmp_path, files, tiny_bert_dir, tiny_vectors_file, new_store(tmp_path / "mlruns")
    )
    settings = replace(settings, embeddings=["random", TOY, "static", "contextual"])
    assert embedding_options(settings, TOY, 16, "cpu") == {"dim": TOY_DIM, "salt": "toy"}
    assert featurize_order(settings.embeddings) == ["static", "random", TOY, "contextual"]
    assert embedding_colors()[TOY] == "#9467bd"

    outcome = run_analysis(settings)  # plan, featurize, tune, train, serving costs, verdict, report

    assert {c.embedding for c in outcome.computed} == {"random", TOY, "static", "contextual"}
    analysis = outcome.analysis
    assert analysis is not None
    assert analysis.embedding_names == ["random", TOY, "static", "contextual"]  # cost order places it
    info = analysis.embeddings.set_index("embedding")
    assert info.loc[TOY, "dim"] == TOY_DIM and info.loc[TOY, "serving_ms_per_item_b1"] > 0
    recommendation = recommend(analysis)
    assert ("contextual", TOY) in {(gap.a, gap.b) for gap in recommendation.gaps}  # judged like the others
    assert recommendation.costs is not None and TOY in recommendation.costs.table.index
    html, _ = write_report(analysis, tmp_path / "report", recommendation=recommendation)
    assert TOY in html.read_text(encoding="utf-8")


# -- a family that is no frozen embedding of the grid: its own cells, trainer and serving -------------

MEMO = "memorised"


class Memorised:
    """Each word's most frequent training tag (unseen words: ``O``): a model with no features at all."""

    def __init__(self, train: Any) -> None:
        counts: dict[str, Counter[str]] = {}
        for words, tags in zip(train.tokens, train.labels, strict=True):
            for word, tag in zip(words, tags, strict=True):
                counts.setdefault(word.lower(), Counter())[tag] += 1
        self.table = {word: tags.most_common(1)[0][0] for word, tags in counts.items()}

    def predict(self, corpus: Any) -> list[list[str]]:
        return [[self.table.get(word.lower(), "O") for word in words] for words in corpus.tokens]


def _memo_cells(settings: FamilySettings, grid: GridPlan) -> list[Cell]:
    """Its planner: the full size only, every seed of the grid (not the grid's sizes x seeds)."""
    return [Cell(MEMO, grid.full_size, seed) for seed in grid.seeds]


def _memo_train(
    cells: Sequence[Cell], options: dict[str, Any], splits: DataSplits
) -> Iterator[tuple[Cell, Any, float]]:
    """Its trainer: memorise the cell's nested subset (the frozen families' subsets) and score the test set."""
    from trainers import TrainResult

    spec = task_spec(splits.task)
    for cell in cells:
        started = time.perf_counter()
        model = Memorised(
            splits.train.subset(subset_indices(subset_order(splits.train, cell.seed), cell.size))
        )
        predicted = model.predict(splits.test)
        scores = spec.scorer(splits.test.labels, predicted)
        seconds = time.perf_counter() - started
        result = TrainResult(
            task=splits.task,
            primary_metric=spec.primary_metric,
            score=scores[spec.primary_metric],
            scores=scores,
            dev_score=spec.scorer(splits.dev.labels, model.predict(splits.dev))[spec.primary_metric],
            predictions=predicted,
            gold_probs=[
                [float(p == g) for p, g in zip(ps, gs, strict=True)]
                for ps, gs in zip(predicted, splits.test.labels, strict=True)
            ],
            steps=1,
            train_seconds=seconds,
            inference_ms_per_item=seconds * 1000 / len(splits.test),
            n_params=len(model.table),
            device="cpu",
            peak_memory_mb=0.0,
            epochs=1.0,
        )
        yield cell, result, seconds


def _memo_serve(
    options: dict[str, Any], splits: DataSplits, sample: Corpus, device: str, repeats: int
) -> Any:
    """Its serving: the table looked up from raw text, timed by the loop every family is timed with."""
    from advisor.costs import ServingCost, serving_provenance, time_serving

    model = Memorised(splits.train)
    b1, b64 = time_serving(model.predict, sample, repeats, 1)
    weights_mb = sum(len(w) + len(t) for w, t in model.table.items()) / 1e6
    return ServingCost(
        embedding=MEMO,
        ms_per_item_b1=b1,
        ms_per_item_b64=b64,
        memory_mb=weights_mb,
        weights_mb=weights_mb,
        batch_features_mb=0.0,
        provenance=serving_provenance(device, len(sample), repeats, 1),
    )


@pytest.fixture()
def memorised_family() -> Iterator[Family]:
    """The non-grid toy registered for one test (no embedding class: the family alone), then removed."""
    declared = register_family(
        Family(
            MEMO,
            12,
            "each word's most frequent training tag",
            "Memorised tags",
            "#17becf",
            lambda settings, random_dim, device: {"fallback": "O"},
            chosen=lambda settings: True,
            cells=_memo_cells,
            train=_memo_train,
            serve=_memo_serve,
        )
    )
    try:
        yield declared
    finally:
        unregister_family(MEMO)


def test_a_family_with_its_own_planner_trainer_and_serving_runs_through_the_whole_run(
    memorised_family: Family,
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store: NewStore,
) -> None:
    from advisor.data import read_splits

    files = write_ner_splits(tmp_path / "data")
    settings = tiny_run_settings(
        tmp_path, files, tiny_bert_dir, tiny_vectors_file, new_store(tmp_path / "mlruns")
    )
    settings = replace(settings, embeddings=["static", "contextual"], difficulty=False)
    plan = plan_run(settings, read_splits(files["train"], "ner", dev=files["dev"], test=files["test"]))
    assert plan.grid.cells[-2:] == [Cell(MEMO, 40, 0), Cell(MEMO, 40, 1)]  # after the grid's cells
    assert plan.options[MEMO] == {"fallback": "O"}
    assert plan.grid.embeddings == ["static", "contextual"]  # planned by the family, not the grid

    outcome = run_analysis(settings)  # plan, featurize, tune, train (executor, then its own), costs, verdict

    assert [c for c in outcome.computed if c.embedding == MEMO] == [Cell(MEMO, 40, 0), Cell(MEMO, 40, 1)]
    assert len(outcome.computed) == 2 * 2 * 2 + 2
    analysis = outcome.analysis
    assert analysis is not None
    assert analysis.embedding_names == [MEMO, "static", "contextual"]  # cost order places it
    rows = analysis.curves[analysis.curves["embedding"] == MEMO]
    assert list(rows["size"]) == [40, 40] and (rows["score"] > 0).all()  # it learns the tiny data's names
    info = analysis.embeddings.set_index("embedding")
    assert info.loc[MEMO, "serving_ms_per_item_b1"] > 0  # measured by its own hook, from raw text
    recommendation = recommend(analysis)
    assert ("contextual", MEMO) in {(gap.a, gap.b) for gap in recommendation.gaps}  # judged like the others
    assert recommendation.costs is not None and MEMO in recommendation.costs.table.index
    html, _ = write_report(analysis, tmp_path / "report", recommendation=recommendation)
    assert MEMO in html.read_text(encoding="utf-8")


def test_an_unknown_family_has_no_options(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path
) -> None:
    """Before, an unknown name fell through to random's options; now it is an error naming the families."""
    from advisor.errors import AdvisorError

    settings = tiny_run_settings(
        tmp_path, {p: "x" for p in ("train", "dev", "test")}, tiny_bert_dir, tiny_vectors_file, ""
    )
    with pytest.raises(AdvisorError, match="E201"):
        embedding_options(settings, "no-such-family", 16, "cpu")
    tuned = embedding_options(settings, "finetuned", 16, "cpu")  # one more family: options from the settings
    assert tuned["model"] == str(tiny_bert_dir) and tuned["device"] == "cpu" and tuned["max_epochs"] == 10
