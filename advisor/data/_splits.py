"""Putting a dataset together: format dispatch, dev/test files or a seeded (stratified) split, checks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from advisor._error_codes import E109, E112, E112_NO_ENTITIES, E201
from advisor.data._classify import read_classification
from advisor.data._corpus import TASKS, Corpus, DataSplits
from advisor.data._hf import is_hf_spec, read_hf
from advisor.data._ner import read_conll, read_ner_jsonl
from advisor.data._pairs import read_pairs

__all__ = ["MIN_EVAL_ITEMS", "MIN_TRAIN_ITEMS", "read_corpus", "read_splits"]

MIN_TRAIN_ITEMS = 10
MIN_EVAL_ITEMS = 2


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise E201(kind="task", name=task, choices=", ".join(TASKS))


def read_corpus(
    path: str | Path,
    task: str,
    text_col: str | None = None,
    label_col: str | None = None,
    strict: bool = False,
) -> tuple[Corpus, list[str]]:
    """Read one file into a :class:`Corpus`; returns it with the warnings raised on the way.

    ``strict`` turns skipped empty items (a label with no text) into an error.
    """
    _check_task(task)
    if is_hf_spec(path):
        return read_hf(str(path), task, text_col, label_col)["train"], []
    suffix = Path(path).suffix.lower()
    if task == "ner":
        if suffix in (".jsonl", ".json", ".ndjson"):
            return read_ner_jsonl(path, strict=strict)
        return read_conll(path)
    if task == "pair":
        return read_pairs(path, text_col, label_col, strict=strict)
    return read_classification(path, text_col, label_col, strict=strict)


def _random_split(corpus: Corpus, n_held: int, seed: int) -> tuple[list[int], list[int], bool]:
    """Hold out ``n_held`` items, stratified by label for classification and pairs when every class allows it."""
    from sklearn.model_selection import train_test_split

    indices = np.arange(len(corpus))
    stratify = None
    if corpus.task != "ner":
        counts = corpus.label_counts()
        if min(counts.values()) >= 2 and n_held >= len(counts):
            stratify = corpus.labels
    keep, held = train_test_split(
        indices, test_size=n_held, random_state=seed, shuffle=True, stratify=stratify
    )
    return sorted(keep.tolist()), sorted(held.tolist()), stratify is not None


def read_splits(
    path: str | Path,
    task: str,
    dev: str | Path | None = None,
    test: str | Path | None = None,
    text_col: str | None = None,
    label_col: str | None = None,
    seed: int = 0,
    dev_fraction: float = 0.1,
    test_fraction: float = 0.1,
    strict: bool = False,
) -> DataSplits:
    """Train / dev / test from given files, the dataset's own splits, or a seeded split of the training file."""
    _check_task(task)
    warnings: list[str] = []
    parts: dict[str, Corpus] = {}
    if is_hf_spec(path):
        parts.update(read_hf(str(path), task, text_col, label_col))
    else:
        parts["train"], found = read_corpus(path, task, text_col, label_col, strict=strict)
        warnings += found
    for role, given in (("dev", dev), ("test", test)):
        if given is not None:
            parts[role], found = read_corpus(given, task, text_col, label_col, strict=strict)
            warnings += found
    methods = []
    whole = parts["train"]
    n_total = len(parts["train"])  # fractions are of the whole file, so dev and test get the same share
    for role, fraction in (("test", test_fraction), ("dev", dev_fraction)):
        if role in parts:
            continue
        train = parts["train"]
        if len(train) < MIN_TRAIN_ITEMS + MIN_EVAL_ITEMS:
            _too_few(train, f"to hold out a {role} split")
        n_held = max(MIN_EVAL_ITEMS, round(fraction * n_total))
        keep, held, stratified = _random_split(train, n_held, seed)
        parts[role] = train.subset(held, source=f"{train.source} ({role} split)")
        parts["train"] = train.subset(keep)
        methods.append(
            f"{role}: {'stratified ' if stratified else ''}{fraction:.0%} of the file, seed {seed}"
        )
    for role in ("dev", "test"):  # given files, or a split that drew a rare label out of training
        warnings += unseen_label_warnings(parts["train"], parts[role])
    splits = DataSplits(
        train=parts["train"],
        dev=parts["dev"],
        test=parts["test"],
        split_method="; ".join(methods) or "given",
        warnings=warnings,
        whole=whole,
    )
    validate(splits)
    return splits


def _kinds(corpus: Corpus) -> Counter[str]:
    """Entity types (NER, counted per entity) or labels (classification, pairs)."""
    if corpus.task != "ner":
        return corpus.label_counts()
    return Counter({tag[2:]: n for tag, n in corpus.label_counts().items() if tag.startswith("B-")})


def unseen_label_warnings(train: Corpus, other: Corpus) -> list[str]:
    """Labels or entity types of a dev/test file that training never saw: no model can predict them."""
    seen = _kinds(train)
    unseen = {k: n for k, n in _kinds(other).items() if k not in seen}
    if not unseen:
        return []
    kind = "entity type(s)" if train.task == "ner" else "label(s)"
    listed = ", ".join(f"{k!r} ({n})" for k, n in sorted(unseen.items(), key=lambda kv: -kv[1])[:10])
    return [
        f"{other.source}: {len(unseen)} {kind} never seen in training: {listed}; "
        "items with them cannot be predicted right"
    ]


def _too_few(corpus: Corpus, purpose: str) -> None:
    raise E109(
        n=len(corpus),
        purpose=purpose,
        file=corpus.source,
        line=corpus.line_numbers[0] if corpus.line_numbers else 1,
        hint=f"a run needs at least {MIN_TRAIN_ITEMS} training and {MIN_EVAL_ITEMS} dev and test items",
    )


def validate(splits: DataSplits) -> None:
    """Refuse data no model can be trained or evaluated on, before any time is spent."""
    train = splits.train
    if len(train) < MIN_TRAIN_ITEMS:
        _too_few(train, "to train on")
    for part in (splits.dev, splits.test):
        if len(part) < MIN_EVAL_ITEMS:
            _too_few(part, "to evaluate on")
    first_line = train.line_numbers[0] if train.line_numbers else 1
    if train.task != "ner":
        labels = train.label_counts()
        if len(labels) < 2:
            raise E112(label=next(iter(labels)), n=len(train), file=train.source, line=first_line)
    else:
        if set(train.label_counts()) <= {"O"}:
            raise E112_NO_ENTITIES(file=train.source, line=first_line)
