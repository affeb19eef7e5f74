"""Sentence-classification difficulty metrics (Arora et al. 2020, section 3), one value per sentence.

- complexity: mean dependency-arc length of the sentence's parse (see :func:`dependency_distance`).
- ambiguity: entropy (bits) of the sentence-average of p(label | word) estimated on training data.
- unseen: share of the sentence's tokens that never occur in training.

p(label | word) is smoothed towards the training label prior with one pseudo-count (a Dirichlet
prior of strength ``alpha`` = 1 centred on the prior):

    p(y | w) = (c(w, y) + alpha * p(y)) / (c(w) + alpha)

where c(w, y) counts the occurrences of w in training sentences labelled y. The estimate never hits
0 or 1 on one observation and works unchanged for two or many labels. Ambiguity averages over the
sentence's *seen* words only: a never-seen word has no p(label | word) (its smoothed estimate would
be the prior, which pulls the entropy towards the label distribution and so mixes "unseen" into
"ambiguous"). A sentence with no seen word (or no word) has no ambiguity: NaN, "not applicable:
unseen", and it sits in neither slice. Words are matched case-sensitively, as the other metrics do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.difficulty._context import MetricContext
from advisor.difficulty._parse import dependency_distance
from advisor.registry import metrics

__all__ = [
    "classify_ambiguity",
    "classify_complexity",
    "classify_unseen",
    "label_entropy",
    "smoothed_label_table",
    "unseen_share",
    "word_label_probabilities",
]

ALPHA = 1.0


def word_label_probabilities(
    tokens: Sequence[Sequence[str]], labels: Sequence[str], alpha: float = ALPHA
) -> tuple[dict[str, int], np.ndarray, np.ndarray, list[str]]:
    """Smoothed p(label | word) from training data.

    Returns ``(index, table, prior, label_names)``: ``table[index[w]]`` is p(. | w) and ``prior`` is
    p(.), the row used for words not in ``index``.
    """
    label_names = sorted(set(labels))
    label_index = {label: k for k, label in enumerate(label_names)}
    index: dict[str, int] = {}
    rows: list[int] = []
    columns: list[int] = []
    for sentence, label in zip(tokens, labels, strict=True):
        k = label_index[label]
        for word in sentence:
            rows.append(index.setdefault(word, len(index)))
            columns.append(k)
    counts = np.zeros((len(index), len(label_names)))
    np.add.at(counts, (np.array(rows, dtype=np.int64), np.array(columns, dtype=np.int64)), 1.0)
    prior = np.bincount([label_index[label] for label in labels], minlength=len(label_names)) / len(labels)
    return index, smoothed_label_table(counts, prior, alpha), prior, label_names


def smoothed_label_table(counts: np.ndarray, prior: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """p(label | word) = (c(w, y) + alpha p(y)) / (c(w) + alpha), one row per word of ``counts``.

    The one formula behind the ambiguity metric and the gain model's feature of the same name.
    """
    return (counts + alpha * prior) / (counts.sum(axis=1, keepdims=True) + alpha)


def unseen_share(train_counts: Sequence[int]) -> float:
    """Share of a sentence's tokens never seen in training (training counts given); 0 for no tokens."""
    return sum(c == 0 for c in train_counts) / len(train_counts) if len(train_counts) else 0.0


def _entropy_bits(distribution: np.ndarray) -> float:
    positive = distribution[distribution > 0]
    return float(-(positive * np.log2(positive)).sum())


def label_entropy(
    sentence: Sequence[str], index: dict[str, int], table: np.ndarray, prior: np.ndarray
) -> float:
    """Entropy in bits of mean_w p(. | w) over the sentence's seen tokens; NaN when none was seen."""
    rows = [table[index[w]] for w in sentence if w in index]
    if not rows:
        return float("nan")
    return _entropy_bits(np.mean(rows, axis=0))


@metrics.register("classify_complexity", task="classify", kind="difficulty", property="complexity",
                  unit="tokens per arc", higher_is_harder=True)  # fmt: skip
def classify_complexity(context: MetricContext) -> np.ndarray:
    """Mean dependency distance: complexity(s) = mean over non-root tokens t of |t.i - head(t).i|.

    From a spaCy parse of the sentence's tokens (``spacy_model``, default en_core_web_sm); 0 for a
    sentence without arcs.
    """
    return np.array([dependency_distance(doc) for doc in context.eval_docs], dtype=float)


@metrics.register("classify_ambiguity", task="classify", kind="difficulty", property="ambiguity",
                  unit="bits", higher_is_harder=True)  # fmt: skip
def classify_ambiguity(context: MetricContext) -> np.ndarray:
    """Label entropy: ambiguity(s) = H(mean_{w in s} p(. | w)) in bits.

    p(y | w) = (c(w, y) + p(y)) / (c(w) + 1) on training data, w over the sentence's seen words only;
    NaN (not applicable) for a sentence without a seen word.
    """
    index, table, prior, _ = word_label_probabilities(context.train.tokens, context.train.labels)
    return np.array([label_entropy(s, index, table, prior) for s in context.evaluation.tokens], dtype=float)


@metrics.register("classify_unseen", task="classify", kind="difficulty", property="unseen",
                  unit="share of tokens", higher_is_harder=True)  # fmt: skip
def classify_unseen(context: MetricContext) -> np.ndarray:
    """Unseen share: unseen(s) = |{t in s : count_train(t) = 0}| / |s|; 0 for an empty sentence."""
    counts = context.train_token_counts
    return np.array([unseen_share([counts.get(t, 0) for t in s]) for s in context.evaluation.tokens], float)
