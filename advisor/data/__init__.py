"""Dataset readers: one in-memory :class:`Corpus` for NER, classification and sentence pairs, from files
or the hub.

``read_splits(path, task, dev=None, test=None)`` is the entry point for commands; ``read_corpus``
reads one file. Bad input raises :class:`advisor.errors.InputError` naming file and line.
"""

from __future__ import annotations

from advisor.data._classify import sniff_columns, tokenize
from advisor.data._columns import TableSniff
from advisor.data._corpus import TASKS, Corpus, DataSplits, check_predictions, check_task
from advisor.data._hf import is_hf_spec
from advisor.data._pair_columns import PAIR_COLUMNS, PAIR_LABEL_COLUMNS, pair_by_name
from advisor.data._pairs import check_columns, sniff_pair_columns
from advisor.data._schemes import SCHEMES, detect_scheme, to_iob2
from advisor.data._sniff import task_mismatch_hint
from advisor.data._splits import MIN_EVAL_ITEMS, MIN_TRAIN_ITEMS, read_corpus, read_splits, validate
from advisor.data._summary import (
    HIGH_OVERLAP,
    DatasetSummary,
    PairSummary,
    SideLengths,
    summarize,
    word_overlap,
)
from advisor.data._text import TextFile, check_file, read_text_file

__all__ = [
    "HIGH_OVERLAP",
    "MIN_EVAL_ITEMS",
    "MIN_TRAIN_ITEMS",
    "PAIR_COLUMNS",
    "PAIR_LABEL_COLUMNS",
    "SCHEMES",
    "TASKS",
    "Corpus",
    "DataSplits",
    "DatasetSummary",
    "PairSummary",
    "SideLengths",
    "TableSniff",
    "TextFile",
    "check_columns",
    "check_file",
    "check_predictions",
    "check_task",
    "detect_scheme",
    "is_hf_spec",
    "pair_by_name",
    "read_corpus",
    "read_splits",
    "read_text_file",
    "sniff_columns",
    "sniff_pair_columns",
    "summarize",
    "task_mismatch_hint",
    "to_iob2",
    "tokenize",
    "validate",
    "word_overlap",
]
