"""NER difficulty metrics (Arora et al. 2020, section 3): span complexity, label ambiguity, unseen tokens.

Units and aggregation (one value per row of the table at each level):

- ``token``: every token of the evaluation split. complexity = length of the gold entity the token is
  part of (0 outside entities); ambiguity = number of distinct labels the token carries in training;
  unseen = 1 / training count of the token.
- ``entity``: every gold entity. The entity *string* (its exact token sequence) is scored as the
  token is: complexity = its span length; ambiguity = number of distinct labels its occurrences carry
  in training; unseen = 1 / training count of the token sequence.
- ``sentence``: every evaluation sentence gets the maximum over its tokens (the hardest token decides;
  empty sentences get 0).

A "label" is the entity type with the B-/I- prefix stripped, or ``O``: ``B-loc`` and ``I-loc`` mark a
position, not a different use of the word. For an entity string, each training occurrence of the
token sequence is labelled with the entity type when it is exactly a gold entity there, ``O`` when all
its tokens are ``O``, and ``partial`` otherwise (part of a longer or shifted entity).

Never-seen tokens or strings have count 0: their unseen value is ``inf`` (1/0, so they sort above
anything seen once and never tie with it) and their ambiguity is NaN, "not applicable: unseen" (no
training evidence; scoring them 0 would make them the *easiest* items and turn the ambiguity slice
into a mirror image of the unseen slice). NaN items sit in neither ambiguity slice; a sentence takes
the maximum over its seen tokens. The ``train_count`` column carries the raw count, so
``train_count == 0`` is the unseen flag.

Matching is case-sensitive: "Apple" and "apple" are different tokens, as they are to a cased encoder.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Sequence

import numpy as np

from advisor.difficulty._context import MetricContext
from advisor.registry import metrics
from advisor.stats import gold_entities, tag_type

__all__ = [
    "label_count",
    "ner_ambiguity",
    "ner_complexity",
    "ner_extra_columns",
    "ner_units",
    "ner_unseen",
]


def ner_units(evaluation_labels: Sequence[Sequence[str]], level: str) -> list[tuple[int, int, int, str]]:
    """Rows of the NER table as ``(item, start, end, gold)``: entities, tokens (end = start + 1) or sentences."""
    rows: list[tuple[int, int, int, str]] = []
    for item, tags in enumerate(evaluation_labels):
        if level == "entity":
            rows.extend((e.item, e.start, e.end, e.type) for e in gold_entities(tags, item))
        elif level == "token":
            rows.extend((item, i, i + 1, tag) for i, tag in enumerate(tags))
        else:
            rows.append((item, 0, len(tags), ""))
    return rows


class _NerStatistics:
    """Training-set token labels and counts, and (on demand) the same for evaluation entity strings."""

    def __init__(self, context: MetricContext) -> None:
        self.context = context
        self.token_counts = context.train_token_counts
        labels: defaultdict[str, set[str]] = defaultdict(set)
        for tokens, tags in zip(context.train.tokens, context.train.labels, strict=True):
            for token, tag in zip(tokens, tags, strict=True):
                labels[token].add(tag_type(tag))
        self.token_labels = labels
        self._string_stats: tuple[Counter[tuple[str, ...]], dict[tuple[str, ...], set[str]]] | None = None

    def string_stats(self) -> tuple[Counter[tuple[str, ...]], dict[tuple[str, ...], set[str]]]:
        """Training counts and label sets of every evaluation entity string (exact token sequence)."""
        if self._string_stats is not None:
            return self._string_stats
        wanted: set[tuple[str, ...]] = set()
        for tokens, tags in zip(self.context.evaluation.tokens, self.context.evaluation.labels, strict=True):
            wanted.update(tuple(tokens[e.start : e.end]) for e in gold_entities(tags))
        lengths = sorted({len(s) for s in wanted})
        counts: Counter[tuple[str, ...]] = Counter()
        labels: defaultdict[tuple[str, ...], set[str]] = defaultdict(set)
        for tokens, tags in zip(self.context.train.tokens, self.context.train.labels, strict=True):
            exact = {(e.start, e.end): e.type for e in gold_entities(tags)}
            for length in lengths:
                for start in range(len(tokens) - length + 1):
                    key = tuple(tokens[start : start + length])
                    if key not in wanted:
                        continue
                    counts[key] += 1
                    if (start, start + length) in exact:
                        labels[key].add(exact[(start, start + length)])
                    elif all(tag == "O" for tag in tags[start : start + length]):
                        labels[key].add("O")
                    else:
                        labels[key].add("partial")
        self._string_stats = (counts, dict(labels))
        return self._string_stats


def _statistics(context: MetricContext) -> _NerStatistics:
    cached = context.__dict__.get("_ner_statistics")
    if cached is None:
        cached = _NerStatistics(context)
        context.__dict__["_ner_statistics"] = cached
    return cached


def _inverse(count: int) -> float:
    return 1.0 / count if count else float("inf")


def _per_token(context: MetricContext, token_value) -> np.ndarray:
    """Token-level values, or their per-sentence maximum over tokens with a value (0 for an empty
    sentence, NaN when no token has one)."""
    values = [
        [token_value(item, i) for i in range(len(toks))]
        for item, toks in enumerate(context.evaluation.tokens)
    ]
    if context.level == "token":
        return np.array([v for sentence in values for v in sentence], dtype=float).reshape(-1)
    return np.array([_max_present(sentence) for sentence in values], dtype=float)


def _max_present(values: list[float]) -> float:
    present = [v for v in values if not np.isnan(v)]
    return max(present) if present else (float("nan") if values else 0.0)


def label_count(labels: Collection[str] | None) -> float:
    """Distinct training labels, NaN when never seen in training (not applicable, not unambiguous)."""
    return float(len(labels)) if labels else float("nan")


def _enclosing_span_lengths(tags: Sequence[str]) -> list[int]:
    lengths = [0] * len(tags)
    for e in gold_entities(tags):
        lengths[e.start : e.end] = [e.length] * e.length
    return lengths


@metrics.register("ner_complexity", task="ner", kind="difficulty", property="complexity", unit="tokens",
                  higher_is_harder=True)  # fmt: skip
def ner_complexity(context: MetricContext) -> np.ndarray:
    """Span length: complexity(entity) = end - start, in tokens.

    Tokens take the length of the gold entity they belong to (0 outside entities); sentences the
    length of their longest gold entity (0 when they have none).
    """
    if context.level == "entity":
        return np.array(
            [end - start for _, start, end, _ in ner_units(context.evaluation.labels, "entity")], float
        )
    spans = [_enclosing_span_lengths(tags) for tags in context.evaluation.labels]
    return _per_token(context, lambda item, i: float(spans[item][i]))


@metrics.register("ner_ambiguity", task="ner", kind="difficulty", property="ambiguity",
                  unit="distinct training labels", higher_is_harder=True)  # fmt: skip
def ner_ambiguity(context: MetricContext) -> np.ndarray:
    """Label ambiguity: ambiguity(w) = |{label(o) : o an occurrence of w in training}|.

    Labels are entity types without B-/I- prefix, or O; for an entity string an occurrence that is not
    exactly a gold entity is ``O`` (all tokens O) or ``partial``. Never-seen tokens/strings are NaN
    (not applicable: unseen). Sentences take the maximum over their seen tokens.
    """
    stats = _statistics(context)
    if context.level == "entity":
        _, labels = stats.string_stats()
        tokens = context.evaluation.tokens
        return np.array(
            [label_count(labels.get(tuple(tokens[item][start:end]))) for item, start, end, _ in
             ner_units(context.evaluation.labels, "entity")],
            dtype=float,
        )  # fmt: skip
    tokens = context.evaluation.tokens
    return _per_token(context, lambda item, i: label_count(stats.token_labels.get(tokens[item][i])))


@metrics.register("ner_unseen", task="ner", kind="difficulty", property="unseen",
                  unit="1 / training count (inf = never seen)", higher_is_harder=True)  # fmt: skip
def ner_unseen(context: MetricContext) -> np.ndarray:
    """Rarity: unseen(w) = 1 / count_train(w), and ``inf`` when count_train(w) = 0.

    For an entity, w is its exact token sequence (counted wherever it occurs in training, any label);
    sentences take the maximum over their tokens (``inf`` when any token is new).
    """
    stats = _statistics(context)
    tokens = context.evaluation.tokens
    if context.level == "entity":
        counts, _ = stats.string_stats()
        return np.array(
            [_inverse(counts.get(tuple(tokens[item][start:end]), 0)) for item, start, end, _ in
             ner_units(context.evaluation.labels, "entity")],
            dtype=float,
        )  # fmt: skip
    return _per_token(context, lambda item, i: _inverse(stats.token_counts.get(tokens[item][i], 0)))


def ner_extra_columns(context: MetricContext) -> dict[str, np.ndarray]:
    """Raw evidence behind ``ner_unseen``: ``train_count`` per token/entity (0 = never seen), or
    ``n_unseen_tokens`` per sentence."""
    stats = _statistics(context)
    tokens = context.evaluation.tokens
    if context.level == "entity":
        counts, _ = stats.string_stats()
        units = ner_units(context.evaluation.labels, "entity")
        return {
            "train_count": np.array(
                [counts.get(tuple(tokens[it][s:e]), 0) for it, s, e, _ in units], np.int64
            )
        }
    per_token = [[stats.token_counts.get(t, 0) for t in sentence] for sentence in tokens]
    if context.level == "token":
        return {"train_count": np.array([c for sentence in per_token for c in sentence], dtype=np.int64)}
    return {"n_unseen_tokens": np.array([sum(c == 0 for c in sentence) for sentence in per_token], np.int64)}
