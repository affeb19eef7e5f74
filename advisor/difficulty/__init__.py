"""Linguistic difficulty of evaluation items, and where the contextual-embedding gap comes from.

After Arora et al. (ACL 2020), section 3: each evaluation unit is scored for complexity of structure,
ambiguity of word usage and unseen words (metrics registered in ``advisor.registry.metrics`` with
``kind="difficulty"``; sentence pairs add the lexical overlap of their two texts); each metric
splits the evaluation set into a difficult and an easy slice (:func:`partition`), and :func:`gap_analysis` compares embedding families on both slices with a
sentence-level bootstrap. :func:`plot_gaps` draws the result.

    items = item_metrics(train, evaluation)               # one row per entity / sentence
    split = partition(items["ner_unseen"])                # masks + description
    gaps = gap_analysis("ner", train, evaluation, predictions)
"""

from __future__ import annotations

from advisor.difficulty._classify import (
    classify_ambiguity,
    classify_complexity,
    classify_unseen,
    label_entropy,
    smoothed_label_table,
    unseen_share,
    word_label_probabilities,
)
from advisor.difficulty._context import LEVELS, MetricContext
from advisor.difficulty._gaps import FAMILIES, GAP_COLUMNS, PAIRS, SLICES, gap_analysis, item_correctness
from advisor.difficulty._items import difficulty_metric_names, item_metrics
from advisor.difficulty._ner import label_count, ner_ambiguity, ner_complexity, ner_unseen
from advisor.difficulty._overlap import OVERLAP_COLUMNS, overlap_warnings, slice_overlap
from advisor.difficulty._pair import (
    lexical_overlap,
    overlap_words,
    pair_ambiguity,
    pair_complexity,
    pair_overlap,
    pair_unseen,
    pooled_arc_length,
)
from advisor.difficulty._parse import DEFAULT_SPACY_MODEL, dependency_distance, parse_tokens
from advisor.difficulty._partition import (
    Partition,
    PartitionRule,
    harder_when_higher,
    metric_label,
    partition,
)
from advisor.difficulty._plot import plot_gaps
from advisor.difficulty._spacy_check import check_parser_model
from advisor.difficulty._summary import summarize_metrics
from advisor.stats import EntitySpan, gold_entities, recognised_exactly  # the span rule, re-exported

__all__ = [
    "DEFAULT_SPACY_MODEL",
    "FAMILIES",
    "GAP_COLUMNS",
    "LEVELS",
    "OVERLAP_COLUMNS",
    "PAIRS",
    "SLICES",
    "EntitySpan",
    "MetricContext",
    "Partition",
    "PartitionRule",
    "check_parser_model",
    "classify_ambiguity",
    "classify_complexity",
    "classify_unseen",
    "dependency_distance",
    "difficulty_metric_names",
    "gap_analysis",
    "gold_entities",
    "harder_when_higher",
    "item_correctness",
    "item_metrics",
    "label_count",
    "label_entropy",
    "lexical_overlap",
    "metric_label",
    "ner_ambiguity",
    "ner_complexity",
    "ner_unseen",
    "overlap_warnings",
    "overlap_words",
    "pair_ambiguity",
    "pair_complexity",
    "pair_overlap",
    "pair_unseen",
    "parse_tokens",
    "partition",
    "plot_gaps",
    "pooled_arc_length",
    "recognised_exactly",
    "slice_overlap",
    "smoothed_label_table",
    "summarize_metrics",
    "unseen_share",
    "word_label_probabilities",
]
