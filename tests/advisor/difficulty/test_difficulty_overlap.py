"""Unseen items are not "unambiguous", and the overlap table catches metrics that split alike."""

from __future__ import annotations

import numpy as np
import pandas as pd

from advisor.data._corpus import Corpus
from advisor.difficulty import item_metrics, overlap_warnings, slice_overlap


def _corpora() -> tuple[Corpus, Corpus]:
    """20 evaluation entities never seen in training, 20 seen twice: 10 always as a person (1 label),
    10 once as a person and once as plain words (2 labels)."""
    train_tokens, train_tags = [], []
    for k in range(20):
        name = f"Seen{k}"
        train_tokens += [[name], [name]]
        train_tags += [["B-per"], ["B-per"] if k < 10 else ["O"]]
    names = [f"Seen{k}" for k in range(20)] + [f"New{k}" for k in range(20)]
    train = Corpus("ner", train_tokens, train_tags)
    evaluation = Corpus("ner", [[n] for n in names], [["B-per"] for _ in names])
    return train, evaluation


def _pair(overlap: pd.DataFrame, a: str, b: str) -> pd.Series:
    rows = overlap[(overlap.metric_a == a) & (overlap.metric_b == b)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_unseen_entities_are_excluded_from_ambiguity() -> None:
    train, evaluation = _corpora()
    table = item_metrics(train, evaluation)
    unseen = table["train_count"].to_numpy() == 0
    assert unseen.sum() == 20
    assert np.isnan(table.loc[unseen, "ner_ambiguity"]).all()
    assert sorted(set(table.loc[~unseen, "ner_ambiguity"])) == [1.0, 2.0]


def test_overlap_warning_fires_when_unseen_is_scored_as_ambiguity_zero() -> None:
    train, evaluation = _corpora()
    table = item_metrics(train, evaluation)
    confounded = table.copy()
    confounded["ner_ambiguity"] = confounded["ner_ambiguity"].fillna(0.0)  # the old definition
    metrics = ["ner_ambiguity", "ner_unseen"]
    old = _pair(slice_overlap(confounded, metrics), "ner_ambiguity", "ner_unseen")
    assert old["warn"] and old["direction"] == "mirror" and old["mirror"] == 1.0 and old["kappa"] < -0.9
    assert "mirror-image" in overlap_warnings(slice_overlap(confounded, metrics))[0]
    new = _pair(slice_overlap(table, metrics), "ner_ambiguity", "ner_unseen")
    assert not new["warn"] and new["n_items"] == 20  # only the seen entities have an ambiguity


def test_overlap_is_not_flagged_for_chance_agreement_of_unbalanced_splits() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    table = pd.DataFrame({"a": (rng.random(n) < 0.1).astype(float), "b": (rng.random(n) < 0.1).astype(float)})
    row = _pair(slice_overlap(table, ["a", "b"]), "a", "b")
    assert row["same"] > 0.8 and abs(row["kappa"]) < 0.1 and not row["warn"]
