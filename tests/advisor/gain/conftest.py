"""Generated corpora with a planted contextual advantage (only on items with unseen words) and noise."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from advisor.data._corpus import Corpus
from advisor.gain import GainResult, default_features, fit_gain_model

SEEN = [f"w{i}" for i in range(60)]
NEW = [f"u{i}" for i in range(300)]
OTHER = {"pos": "neg", "neg": "pos"}


def classify_corpus(n: int, rng: random.Random, unseen_rate: float) -> Corpus:
    """Sentences of seen words; a share ``unseen_rate`` get 2+ words never seen in training."""
    tokens, labels = [], []
    for _ in range(n):
        sentence = [rng.choice(SEEN) for _ in range(rng.randint(4, 10))]
        if rng.random() < unseen_rate:
            for j in rng.sample(range(len(sentence)), rng.randint(2, len(sentence))):
                sentence[j] = rng.choice(NEW)
        tokens.append(sentence)
        labels.append(rng.choice(("pos", "neg")))
    return Corpus("classify", tokens, labels)


def ner_corpus(n: int, rng: random.Random, unseen_rate: float) -> Corpus:
    """Names (B-PER) among filler words (O); a share ``unseen_rate`` of the names are new words."""
    tokens, labels = [], []
    for _ in range(n):
        sentence, tags = [], []
        for _ in range(rng.randint(4, 8)):
            if rng.random() < 0.3:
                sentence.append(rng.choice(NEW) if rng.random() < unseen_rate else rng.choice(SEEN[:10]))
                tags.append("B-PER")
            else:
                sentence.append(rng.choice(SEEN[10:]))
                tags.append("O")
        tokens.append(sentence)
        labels.append(tags)
    return Corpus("ner", tokens, labels)


def classify_predictions(
    evaluation: Corpus, planted: bool, rng: random.Random, seeds: int = 3, size: int = 100
) -> dict[tuple[str, int, int], list[Any]]:
    """Planted: static is right 30 % of the time on sentences with unseen words, 90 % elsewhere;
    contextual 90 % everywhere. Noise: fixed accuracies, unrelated to the text."""
    seen = set(SEEN)
    predictions: dict[tuple[str, int, int], list[Any]] = {}
    for seed in range(seeds):
        for family in ("contextual", "static"):
            predicted = []
            for sentence, gold in zip(evaluation.tokens, evaluation.labels, strict=True):
                has_unseen = any(t not in seen for t in sentence)
                if planted:
                    accuracy = 0.9 if family == "contextual" or not has_unseen else 0.3
                else:
                    accuracy = 0.8 if family == "contextual" else 0.7
                predicted.append(gold if rng.random() < accuracy else OTHER[gold])
            predictions[(family, size, seed)] = predicted
    return predictions


def ner_predictions(
    train: Corpus, evaluation: Corpus, rng: random.Random, seeds: int = 2, size: int = 50
) -> dict[tuple[str, int, int], list[Any]]:
    """Static tags unseen tokens right 20 % of the time, everything else 95 %; contextual 95 % everywhere."""
    seen = set(train.vocabulary())
    predictions: dict[tuple[str, int, int], list[Any]] = {}
    for seed in range(seeds):
        for family in ("contextual", "static"):
            predictions[(family, size, seed)] = [
                [
                    gold
                    if rng.random() < (0.95 if family == "contextual" or token in seen else 0.2)
                    else ("O" if gold != "O" else "B-PER")
                    for token, gold in zip(tokens, tags, strict=True)
                ]
                for tokens, tags in zip(evaluation.tokens, evaluation.labels, strict=True)
            ]
    return predictions


@pytest.fixture(scope="session")
def planted_classify() -> tuple[Corpus, Corpus, dict]:
    rng = random.Random(1)
    train = classify_corpus(200, rng, 0.0)
    evaluation = classify_corpus(300, rng, 0.5)
    return train, evaluation, classify_predictions(evaluation, True, rng)


@pytest.fixture(scope="session")
def noise_classify() -> tuple[Corpus, Corpus, dict]:
    rng = random.Random(2)
    train = classify_corpus(200, rng, 0.0)
    evaluation = classify_corpus(300, rng, 0.5)
    return train, evaluation, classify_predictions(evaluation, False, rng)


@pytest.fixture(scope="session")
def planted_ner() -> tuple[Corpus, Corpus, dict]:
    rng = random.Random(0)
    train = ner_corpus(100, rng, 0.0)
    evaluation = ner_corpus(80, rng, 0.5)
    return train, evaluation, ner_predictions(train, evaluation, rng)


@pytest.fixture(scope="session")
def planted_classify_result(planted_classify) -> GainResult:
    train, evaluation, predictions = planted_classify
    return fit_gain_model(
        "classify", train, evaluation, predictions, features=default_features("classify", parse=False)
    )


@pytest.fixture(scope="session")
def texts() -> Callable[[bool, int], list[list[str]]]:
    """Production-like texts, all words unseen (True) or all seen (False)."""

    def make(unseen: bool, n: int = 40) -> list[list[str]]:
        rng = random.Random(5)
        pool = NEW if unseen else SEEN
        return [[rng.choice(pool) for _ in range(6)] for _ in range(n)]

    return make
