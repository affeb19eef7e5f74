"""bench_gpu_workers.py: its planted CoNLL-shaped cell, and a fixed-length cell really takes its steps."""

from __future__ import annotations

from tests.helpers import load_experiment


def test_planted_sentences_are_valid_iob2_of_the_stated_shape() -> None:
    features, corpus = load_experiment("bench_gpu_workers").planted(200, 0)
    assert len(corpus) == 200 and features.vectors.shape[1] == 50
    assert all(3 <= len(tokens) <= 30 for tokens in corpus.tokens)
    tags = [tag for sentence in corpus.labels for tag in sentence]
    assert {"O", "B-PER", "B-LOC", "B-ORG"} <= set(tags)
    for sentence in corpus.labels:
        for before, tag in zip(["O", *sentence], sentence, strict=False):
            assert not tag.startswith("I-") or before[2:] == tag[2:]


def test_one_cell_trains_exactly_the_steps_asked_for() -> None:
    start, end, steps = load_experiment("bench_gpu_workers").one_cell("cpu", steps=7, eval_every=7)
    assert steps == 7 and end > start
