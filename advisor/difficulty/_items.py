"""The per-item table: one row per evaluation unit with every difficulty metric of the task."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from advisor._error_codes import E505, E506
from advisor.data import Corpus
from advisor.difficulty._context import MetricContext, default_level
from advisor.difficulty._ner import ner_extra_columns, ner_units
from advisor.registry import metrics as metric_registry

__all__ = ["difficulty_metric_names", "item_metrics"]


def difficulty_metric_names(task: str) -> list[str]:
    """Registered difficulty metrics of ``task``, in registration order (complexity, ambiguity, unseen)."""
    return metric_registry.names(task=task, kind="difficulty")


def _chosen_metrics(task: str, names: Sequence[str] | None) -> list[str]:
    """The metrics to score (default: all of the task's); an unknown name is a configuration error."""
    available = difficulty_metric_names(task)
    chosen = list(names) if names is not None else available
    unknown = [n for n in chosen if n not in available]
    if unknown:
        raise E505(task=task, names=", ".join(unknown), choices=", ".join(available))
    return chosen


def _ner_units_table(evaluation: Corpus, level: str) -> pd.DataFrame:
    """One row per NER unit (entity, token or sentence) with its sentence, span, text and gold."""
    units = ner_units(evaluation.labels, level)
    tokens = evaluation.tokens
    return pd.DataFrame(
        {
            "item": [u[0] for u in units],
            "unit": range(len(units)),
            "text": [
                evaluation.texts[u[0]] if level == "sentence" else " ".join(tokens[u[0]][u[1] : u[2]])
                for u in units
            ],
            "gold": [u[3] for u in units],
            "start": [u[1] for u in units],
            "end": [u[2] for u in units],
        }
    )


def _sentence_units_table(evaluation: Corpus) -> pd.DataFrame:
    """One row per classified sentence or pair; the item is its own bootstrap group. A pair's second
    text goes in ``text_b``, beside the first, so a reader of the table sees the whole item."""
    table = pd.DataFrame(
        {
            "item": range(len(evaluation)),
            "unit": range(len(evaluation)),
            "text": list(evaluation.texts),
            "gold": [str(label) for label in evaluation.labels],
        }
    )
    if evaluation.task == "pair":
        table.insert(3, "text_b", list(evaluation.texts_b))
    return table


def item_metrics(
    train: Corpus,
    evaluation: Corpus,
    spacy_model: str | None = None,
    *,
    level: str | None = None,
    names: Sequence[str] | None = None,
    cache_dir: Path | str | None = None,
) -> pd.DataFrame:
    """Score every evaluation unit on the task's difficulty metrics, against training statistics.

    Units: classification -> sentences; pairs -> the pair (its second text in ``text_b``); NER -> gold
    entities (``level="entity"``, default), tokens (``"token"``) or sentences (``"sentence"``). Columns: ``item`` (evaluation sentence index, the
    bootstrap group), ``unit`` (row index), ``text`` (entity string / token / sentence), ``gold``
    (entity type / tag / label), for NER ``start`` and ``end`` (token span), one column per metric
    named as registered, and the raw evidence (NER: ``train_count`` or ``n_unseen_tokens``; sentences:
    ``n_tokens``).
    ``spacy_model`` only matters for the parse-based complexity metrics.
    """
    task = train.task
    context = MetricContext(
        train,
        evaluation,
        level=level or default_level(task),
        spacy_model=spacy_model,
        cache_dir=Path(cache_dir) if cache_dir is not None else None,
    )
    chosen = _chosen_metrics(task, names)
    if len(evaluation) == 0:
        raise E506()
    if task == "ner":
        table = _ner_units_table(evaluation, context.level)
        extras = ner_extra_columns(context)
    else:
        table = _sentence_units_table(evaluation)
        extras = {}
    for name in chosen:
        table[name] = metric_registry.get(name)(context)
    for column, values in extras.items():
        table[column] = values
    if context.level == "sentence":
        table["n_tokens"] = [len(t) for t in evaluation.tokens]
    table.attrs.update({"task": task, "level": context.level, "metrics": chosen})
    return table
