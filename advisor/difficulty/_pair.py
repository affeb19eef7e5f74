"""Sentence-pair difficulty metrics: the classification metrics over both texts, plus lexical overlap.

A pair item is two texts with one label (paraphrase, entailment, question-answer matching); its words
are the first text's followed by the second's (``Corpus.tokens``), and ``Corpus.sides(i)`` splits them.

- complexity: mean dependency-arc length over the arcs of *both* texts, each text parsed alone (a parse
  of the concatenation would draw arcs from one sentence into the other). Pooled, so a long text
  weighs by its arcs as its words would in one sentence; 0 when neither text has an arc.
- ambiguity: label entropy of the mean smoothed p(label | word) over the seen words of both texts,
  exactly :func:`advisor.difficulty.classify_ambiguity` on the concatenated words (NaN: no seen word).
- unseen: share of the item's words (both texts) never seen in training.
- overlap: the share of the *shorter* text's distinct words that also occur in the other text (the
  overlap coefficient |A ∩ B| / min(|A|, |B|)), words lower-cased, tokens without a letter or digit
  (punctuation) left out. Why this one and not Jaccard: it does not depend on which column comes first
  (question/sentence and sentence/question layouts both exist), and a short hypothesis wholly contained
  in a long premise scores 1, where Jaccard would score it as low as a half-shared paraphrase; with
  the hypothesis the shorter text it is the share behind the lexical-overlap heuristic of McCoy et al.
  (2019). Pairs sharing most words are the known *easy* cases of paraphrase and entailment, so the
  metric is registered with ``higher_is_harder=False``: its difficult slice is the low-overlap pairs.
  A text with no word left after dropping punctuation has no overlap: NaN, in neither slice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from advisor.difficulty._classify import label_entropy, unseen_share, word_label_probabilities
from advisor.difficulty._context import MetricContext
from advisor.difficulty._parse import arc_lengths
from advisor.registry import metrics

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = [
    "lexical_overlap",
    "overlap_words",
    "pair_ambiguity",
    "pair_complexity",
    "pair_overlap",
    "pair_unseen",
    "pooled_arc_length",
]


def overlap_words(words: Sequence[str]) -> set[str]:
    """The words overlap compares: lower-cased, tokens without any letter or digit left out."""
    return {w.lower() for w in words if any(ch.isalnum() for ch in w)}


def lexical_overlap(words_a: Sequence[str], words_b: Sequence[str]) -> float:
    """|A ∩ B| / min(|A|, |B|) over :func:`overlap_words` of the two texts; NaN when a side has none."""
    a, b = overlap_words(words_a), overlap_words(words_b)
    if not (a and b):
        return float("nan")
    return len(a & b) / min(len(a), len(b))


def pooled_arc_length(docs: Sequence[Doc]) -> float:
    """Mean arc length over the arcs of all ``docs`` together; 0.0 when none has an arc."""
    arcs = np.concatenate([arc_lengths(doc) for doc in docs]) if docs else np.zeros(0)
    return float(arcs.mean()) if len(arcs) else 0.0


@metrics.register("pair_complexity", task="pair", kind="difficulty", property="complexity",
                  unit="tokens per arc", higher_is_harder=True)  # fmt: skip
def pair_complexity(context: MetricContext) -> np.ndarray:
    """Pooled dependency distance: complexity(a, b) = mean over non-root t in a and b of |t.i - head(t).i|.

    Each text parsed alone (``spacy_model``); 0 when neither text has an arc.
    """
    return np.array([pooled_arc_length(docs) for docs in context.eval_side_docs], dtype=float)


@metrics.register("pair_ambiguity", task="pair", kind="difficulty", property="ambiguity",
                  unit="bits", higher_is_harder=True)  # fmt: skip
def pair_ambiguity(context: MetricContext) -> np.ndarray:
    """Label entropy: ambiguity(a, b) = H(mean_{w in a + b} p(. | w)) in bits, over seen words only.

    p(y | w) = (c(w, y) + p(y)) / (c(w) + 1) on the training pairs' words; NaN without a seen word.
    """
    index, table, prior, _ = word_label_probabilities(context.train.tokens, context.train.labels)
    return np.array([label_entropy(s, index, table, prior) for s in context.evaluation.tokens], dtype=float)


@metrics.register("pair_unseen", task="pair", kind="difficulty", property="unseen",
                  unit="share of tokens", higher_is_harder=True)  # fmt: skip
def pair_unseen(context: MetricContext) -> np.ndarray:
    """Unseen share: unseen(a, b) = |{t in a + b : count_train(t) = 0}| / (|a| + |b|)."""
    counts = context.train_token_counts
    return np.array([unseen_share([counts.get(t, 0) for t in s]) for s in context.evaluation.tokens], float)


@metrics.register("pair_overlap", task="pair", kind="difficulty", property="overlap",
                  unit="share of the shorter text's words", higher_is_harder=False)  # fmt: skip
def pair_overlap(context: MetricContext) -> np.ndarray:
    """Lexical overlap: overlap(a, b) = |A ∩ B| / min(|A|, |B|), A and B the texts' lower-cased word sets.

    Punctuation left out; NaN when a text has no word. Higher overlap is easier (difficult = low overlap).
    """
    evaluation = context.evaluation
    return np.array([lexical_overlap(*evaluation.sides(i)) for i in range(len(evaluation))], dtype=float)
