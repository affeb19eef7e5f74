"""A small MLflow store holding one synthetic NER analysis, written with the run's own tracker.

No training: predictions are gold tags with entities dropped at an embedding- and size-dependent
rate (contextual best, random worst), and every score is computed from those predictions with
seqeval, so scores, per-item tables and difficulty gaps agree with each other as in a real run.
"""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from advisor.data import Corpus
from advisor.difficulty import gap_analysis, item_metrics
from advisor.tracking import AnalysisTracker, load_analysis
from advisor.verdict import recommend

NAMES = {"John": "PER", "Mary": "PER", "Paris": "LOC", "London": "LOC", "Google": "ORG", "Apple": "ORG"}
FILLER = "the a of in on with went saw said visited likes works lives good bad".split()
#: Chance that an entity is recognised at full data; halves of the data cost 0.08 each.
SKILL = {"random": 0.45, "static": 0.6, "contextual": 0.9}
SIZES = (16, 32, 64)
SEEDS = (0, 1, 2)


def make_corpus(n: int, seed: int, unseen: bool = False) -> Corpus:
    rng = random.Random(seed)
    tokens, labels = [], []
    for _ in range(n):
        words, tags = [], []
        for _ in range(rng.randint(4, 8)):
            if rng.random() < 0.35:
                if unseen and rng.random() < 0.4:
                    words += ["Zorbania", "City"]
                    tags += ["B-LOC", "I-LOC"]
                else:
                    name = rng.choice(sorted(NAMES))
                    words.append(name)
                    tags.append(f"B-{NAMES[name]}")
            else:
                words.append(rng.choice(FILLER))
                tags.append("O")
        tokens.append(words)
        labels.append(tags)
    return Corpus("ner", tokens, labels, source=f"synthetic-{seed}.conll", scheme="IOB2")


def predict(gold: list[list[str]], skill: float, rng: np.random.Generator) -> list[list[str]]:
    """Gold tags with each entity kept with probability ``skill`` (lower on multi-token entities)."""
    out = []
    for tags in gold:
        pred = list(tags)
        i = 0
        while i < len(tags):
            if tags[i].startswith("B-"):
                end = i + 1
                while end < len(tags) and tags[end].startswith("I-"):
                    end += 1
                keep = skill if end - i == 1 else skill * 0.6
                if rng.random() > keep:
                    pred[i:end] = ["O"] * (end - i)
                i = end
            else:
                i += 1
        out.append(pred)
    return out


@dataclass(frozen=True)
class Store:
    uri: str
    finished: str  # run id of the finished analysis (newest)
    partial: str  # run id of an analysis left RUNNING after PARTIAL_CELLS cells (older)


PARTIAL_CELLS = 5
TOTAL_CELLS = len(SKILL) * len(SIZES) * len(SEEDS)


def build_store(root: Path) -> Store:
    """``sqlite:///root/mlflow.db`` with a half-done analysis (as if its run were still going) and a
    finished one, tagged ``app.session`` = ``partial-session`` / ``finished-session``."""
    root.mkdir(parents=True, exist_ok=True)
    uri = f"sqlite:///{root}/mlflow.db"
    partial = log_analysis(uri, "partial", stop_after=PARTIAL_CELLS)
    finished = log_analysis(uri, "finished")
    return Store(uri=uri, finished=finished, partial=partial)


def log_analysis(uri: str, name: str, experiment: str = "app-test", stop_after: int | None = None) -> str:
    """Log one synthetic analysis the way ``advisor run`` does; with ``stop_after`` it stays RUNNING."""
    from seqeval.metrics import f1_score
    from seqeval.scheme import IOB2

    train, test = make_corpus(64, 1), make_corpus(40, 2, unseen=True)
    tracker = AnalysisTracker(uri, experiment)
    dataset_info = {
        "name": "synthetic.conll",
        "n_train": 64,
        "n_dev": 0,
        "n_test": 40,
        "labels": train.label_set(),
    }
    params = {
        "task": "ner",
        "dataset": "synthetic.conll",
        "n_train": 64,
        "n_test": 40,
        "primary_metric": "f1",
        "profile": "quick",
        "sizes": list(SIZES),
        "seeds": len(SEEDS),
        "dataset_info": json.dumps(dataset_info),
        "embedding_info": json.dumps(
            [
                {"embedding": e, "model": e, "dim": d, "embedding_bytes": d * 4000}
                for e, d in (("random", 16), ("static", 8), ("contextual", 32))
            ]
        ),
    }
    tags = {
        "advisor.task": "ner",
        "advisor.dataset": "synthetic.conll",
        "advisor.profile": "quick",
        "app.session": f"{name}-session",
    }
    tracker.open(f"synthetic-{name}", f"synthetic.conll-{name}", params, tags)
    tracker.log_parent_tags({"advisor.total_cells": str(TOTAL_CELLS)})
    predictions: dict[tuple[str, int, int], list[list[str]]] = {}
    for embedding, skill in SKILL.items():
        for seed in SEEDS:
            tracker.child(embedding, seed, {"embedding": embedding})
            for size in SIZES:
                rng = np.random.default_rng(zlib.crc32(f"{embedding}/{size}/{seed}".encode()))
                halvings = np.log2(max(SIZES) / size)
                pred = predict(test.labels, max(skill - 0.08 * halvings, 0.05), rng)
                predictions[(embedding, size, seed)] = pred
                score = float(f1_score(test.labels, pred, mode="strict", scheme=IOB2))
                frame = pd.DataFrame(
                    {
                        "item": np.arange(len(test)),
                        "line": test.line_numbers,
                        "gold": [" ".join(t) for t in test.labels],
                        "prediction": [" ".join(p) for p in pred],
                        "correct": [float(g == p) for g, p in zip(test.labels, pred, strict=True)],
                        "gold_prob": 0.5,
                    }
                )
                cost = {"contextual": 10.0, "static": 1.0, "random": 1.0}[embedding]
                metrics = {
                    "score": score,
                    "f1": score,
                    "train_seconds": cost * size / 64,
                    "inference_ms_per_item": cost * 0.3,
                    "peak_memory_mb": 100 * cost,
                    "n_params": 5000.0,
                    "epochs": 5.0,
                }
                tracker.log_cell(embedding, size, seed, metrics, frame)
                if stop_after is not None and len(predictions) >= stop_after:
                    # Left RUNNING, like a run in flight; its owner (this process) stays alive, so it is
                    # not stale. Only the heartbeat thread is stopped: tests must not leak threads.
                    if tracker._heartbeat is not None:
                        tracker._heartbeat.stop()
                    return tracker.parent_id
    items = item_metrics(train, test)
    gaps = gap_analysis("ner", train, test, predictions, n_boot=200)
    tracker.log_table(items, "analysis/items.json")
    tracker.log_table(gaps, "analysis/gaps.json")
    analysis = load_analysis(tracker.parent_id, uri)
    tracker.log_table(analysis.curves, "analysis/curves.json")
    tokens = pd.DataFrame({"item": np.arange(len(test)), "tokens": [" ".join(t) for t in test.tokens]})
    tracker.log_table(tokens, "analysis/test_tokens.json")
    verdict = recommend(analysis).to_dict()
    tracker.log_parent_tags({"advisor.verdict": str(verdict["verdict"])})
    tracker.client.log_dict(tracker.parent_id, verdict, "analysis/verdict.json")
    tracker.close("FINISHED")
    return tracker.parent_id
