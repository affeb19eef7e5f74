"""Adding a family is one module plus its registration: a toy family declared in this test alone runs
through plan, train, serving costs, verdict and report like the built-in ones (issue 27 item 2)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.embeddings import Embedding
from advisor.features import TokenFeatures, offsets_from_lengths
from advisor.pipeline import embedding_options
from advisor.plots import embedding_colors
from advisor.registry import embeddings
from advisor.report import write_report
from advisor.runner import run_analysis
from advisor.verdict import recommend
from advisor.vocabulary import Family, FamilySettings, featurize_order, register_family, unregister_family
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
    with pytest.raises(AdvisorError, match="E201"):
        embedding_options(settings, "finetuned", 16, "cpu")  # planned by its grid extension
