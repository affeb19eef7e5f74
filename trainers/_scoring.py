"""How a task is scored: the headline metric, every score of an evaluation, and the dev scorer.

The caller says which metric is the headline (``advisor`` passes its task vocabulary's
``primary_metric``), so the rule lives with the task spec, not in the training loop. Without one the
task's default (:func:`default_primary`: strict entity F1 for NER, accuracy otherwise) keeps direct
``trainers`` users working.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trainers._errors import T102
from trainers._evaluate import StrictF1, classification_scores, ner_scores

__all__ = ["TaskScoring", "default_primary", "scoring_for"]

#: The scores :meth:`TaskScoring.scores` returns for every task (NER also adds ``f1_<TYPE>``).
_METRICS = {
    "ner": ("f1", "precision", "recall", "conlleval_f1", "repaired_f1"),
    "classify": ("accuracy", "macro_f1"),
    "pair": ("accuracy", "macro_f1"),  # one label per pair of texts: scored like a text
}


def default_primary(task: str) -> str:
    """The headline a task has when the caller names none: ``f1`` for NER, else ``accuracy``."""
    return "f1" if task == "ner" else "accuracy"


@dataclass(frozen=True)
class TaskScoring:
    """The scorer of one task with its headline metric (one of the names :meth:`scores` returns)."""

    task: str
    primary_metric: str

    def __post_init__(self) -> None:
        known = _METRICS.get(self.task, _METRICS["classify"])
        if self.primary_metric not in known:
            requirement = f"be one of {', '.join(known)} for task {self.task!r}"
            raise T102(name="primary_metric", requirement=requirement, value=self.primary_metric)

    def scores(self, gold: Sequence[Any], predictions: Sequence[Any]) -> dict[str, float]:
        """Every score of ``predictions`` against ``gold``; an empty set scores 0 on the headline."""
        if not len(gold):
            return {self.primary_metric: 0.0}
        return self._all_scores(gold, predictions)

    def _all_scores(self, gold: Sequence[Any], predictions: Sequence[Any]) -> dict[str, float]:
        if self.task == "ner":
            return ner_scores(gold, predictions)
        return classification_scores(gold, predictions)

    def dev_scorer(self, gold: Sequence[Any]) -> Callable[[Sequence[Any]], float]:
        """The headline against one fixed gold set, as early stopping reads it after every epoch.

        Strict entity F1 finds the gold entities once (:class:`StrictF1`); other headlines score in full.
        """
        if self.task == "ner" and self.primary_metric == "f1":
            return StrictF1(gold)
        return lambda predictions: self._all_scores(gold, predictions)[self.primary_metric]


def scoring_for(task: str, scoring: TaskScoring | None = None) -> TaskScoring:
    """``scoring`` when given (it must be for ``task``), else the task's default headline."""
    if scoring is None:
        return TaskScoring(task, default_primary(task))
    if scoring.task != task:
        raise T102(name="scoring.task", requirement=f"match the corpora's task {task!r}", value=scoring.task)
    return scoring
