"""The domain's words, defined once: embedding families, the pairs the verdict compares, the tasks.

Why one module: the CLI, the app, the runner, the difficulty slices, the verdict and the gain model
all name the same families in the same order and score the same units the same way; copies of these
tuples had drifted (two orders of the families, three "task -> primary metric" rules).

- :class:`Family`: an embedding family and its place in the cost order (cheapest first). Costs leave
  gaps so a new family slots in without renumbering (``distilled`` between static and contextual,
  ``finetuned`` after contextual).
- :func:`pairs`: (costlier, cheaper) pairs in the order the verdict reads them.
- :class:`TaskSpec`: per task its primary metric, unit of analysis, scorer and unit correctness,
  registered in :data:`advisor.registry.tasks`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from advisor._error_codes import E201, E210, E211
from advisor.registry import tasks
from advisor.stats import EntitySpan, recognised_exactly

__all__ = [
    "FAMILIES",
    "PAIRS",
    "PAPER_FAMILIES",
    "Family",
    "TaskSpec",
    "family",
    "ordered",
    "pairs",
    "parse_list",
    "primary_metric",
    "task_choices",
    "task_spec",
    "units_correct",
]


@dataclass(frozen=True)
class Family:
    """An embedding family; ``cost`` orders families cheapest first (gaps leave room for new ones)."""

    name: str
    cost: int
    description: str


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("random", 10, "fixed random vectors per training word"),
        Family("static", 20, "pretrained word vectors (GloVe, word2vec, fastText)"),
        Family("distilled", 30, "static vectors distilled from a contextual encoder"),
        Family("contextual", 40, "a frozen pretrained encoder (BERT-class)"),
        Family("finetuned", 50, "an encoder fine-tuned on the training split"),
    )
}

#: The three families of Arora et al. (2020): the default grid of a run.
PAPER_FAMILIES: tuple[str, ...] = ("random", "static", "contextual")


def family(name: str) -> Family:
    """The :class:`Family` called ``name``; unknown names raise an error listing the families."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise E201(kind="embedding family", name=name, choices=", ".join(FAMILIES)) from None


def ordered(names: Iterable[str]) -> list[str]:
    """``names`` cheapest family first; names that are no family keep their order, after the families."""
    names = list(names)
    known = sorted((n for n in names if n in FAMILIES), key=lambda n: FAMILIES[n].cost)
    return known + [n for n in names if n not in FAMILIES]


def pairs(names: Iterable[str] = PAPER_FAMILIES) -> tuple[tuple[str, str], ...]:
    """(costlier, cheaper) pairs of ``names``: costliest first, then against each cheaper one in turn."""
    costliest_first = ordered(names)[::-1]
    return tuple((a, b) for i, a in enumerate(costliest_first) for b in costliest_first[i + 1 :])


#: (better-or-costlier, cheaper) pairs of the paper's families, in the order the verdict reads them.
PAIRS: tuple[tuple[str, str], ...] = pairs(PAPER_FAMILIES)


# -- tasks ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskSpec:
    """What a task means for every room: how it is scored and what one unit of analysis is.

    ``unit`` is the unit of the difficulty slices (entities for NER, as the paper's span metrics),
    ``gain_unit`` the gain model's (NER tokens: gold entities do not exist on unlabelled text).
    ``unit_correct(level, gold, predicted, start, end)`` says whether one unit is right.
    """

    name: str
    primary_metric: str
    metric_label: str
    unit: str
    levels: tuple[str, ...]
    gain_unit: str
    scorer: Callable[[Sequence[Any], Sequence[Any]], dict[str, float]]
    unit_correct: Callable[[str, Any, Sequence[Any], int, int], bool]


def _ner_scores(gold: Sequence[Any], predicted: Sequence[Any]) -> dict[str, float]:
    from trainers import ner_scores

    return ner_scores(gold, predicted)


def _classification_scores(gold: Sequence[Any], predicted: Sequence[Any]) -> dict[str, float]:
    from trainers import classification_scores

    return classification_scores(gold, predicted)


def _ner_unit_correct(level: str, gold: Any, predicted: Sequence[Any], start: int, end: int) -> bool:
    """Entity: strict IOB2 span (type and both bounds); token: its tag; sentence: every tag."""
    if level == "entity":
        span = EntitySpan(0, int(start), int(end), str(gold))
        return int(end) <= len(predicted) and recognised_exactly(span, predicted)
    if level == "token":
        return int(start) < len(predicted) and predicted[int(start)] == gold
    return list(predicted) == list(gold)


def _classify_unit_correct(level: str, gold: Any, predicted: Any, start: int, end: int) -> bool:
    """A sentence is right when its predicted label is the gold label (compared as text)."""
    return str(predicted) == str(gold)


for _spec in (
    TaskSpec(
        name="ner",
        primary_metric="f1",
        metric_label="strict IOB2 entity micro-F1",
        unit="entity",
        levels=("entity", "token", "sentence"),
        gain_unit="token",
        scorer=_ner_scores,
        unit_correct=_ner_unit_correct,
    ),
    TaskSpec(
        name="classify",
        primary_metric="accuracy",
        metric_label="accuracy",
        unit="sentence",
        levels=("sentence",),
        gain_unit="sentence",
        scorer=_classification_scores,
        unit_correct=_classify_unit_correct,
    ),
):
    tasks.register(_spec.name, primary_metric=_spec.primary_metric, unit=_spec.unit)(_spec)


def task_spec(task: str) -> TaskSpec:
    """The registered :class:`TaskSpec` of ``task`` (unknown tasks raise an error listing the choices)."""
    return tasks.get(task)


def task_choices() -> list[str]:
    """The registered task names: what the CLI and the app offer."""
    return tasks.names()


def units_correct(
    task: str, level: str, units: Iterable[tuple[int, int, int, Any]], predicted: Callable[[int], Any]
) -> np.ndarray:
    """Per unit ``(item, start, end, gold)``: is it right under ``predicted(item)``? (one bool each).

    The single definition the difficulty slices, the gain model and the app's item explorer share.
    """
    correct = task_spec(task).unit_correct
    return np.array(
        [
            correct(level, gold, predicted(int(item)), int(start), int(end))
            for item, start, end, gold in units
        ],
        dtype=bool,
    )


def primary_metric(task: str) -> str:
    """The headline metric of ``task``: ``f1`` (strict IOB2 entity micro-F1) for NER, else ``accuracy``."""
    return tasks.get(task).primary_metric if task in tasks else "accuracy"


# -- small parsers shared by the CLI and the app ------------------------------------------------------


def parse_list(
    text: str | None, cast: Callable[[str], Any], what: str, *, positive: bool = False
) -> list[Any] | None:
    """``"100, 200;400"`` -> ``[100, 200, 400]``; None or blank text -> None (the profile decides)."""
    if text is None:
        return None
    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if not parts:
        return None
    try:
        values = [cast(p) for p in parts]
    except ValueError:
        raise E210(text=text, what=what) from None
    if positive and any(v <= 0 for v in values):
        raise E211(option=what, requirement=f"be positive, got {text!r}")
    return values
