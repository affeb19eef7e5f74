"""The domain's words, defined once: embedding families, the pairs the verdict compares, the tasks.

Why one module: the CLI, the app, the runner, the difficulty slices, the verdict and the gain model
all name the same families in the same order and score the same units the same way; copies of these
tuples had drifted (two orders of the families, three "task -> primary metric" rules).

- :class:`Family`: an embedding family, declared once with everything the rooms ask of it (its options
  from the settings, checks, featurize order, serving, colour, label, verdict rule) and registered in
  :data:`FAMILIES` with :func:`register_family`; its cost places it in the cost order (cheapest first).
  Costs leave gaps so a new family slots in without renumbering (``distilled`` between static and
  contextual, ``finetuned`` after contextual). A family that is not a frozen embedding of the grid
  (the fine-tuned reference) declares hooks: whether the settings choose it, its cells, its trainer,
  its serving. Hooks that need modules above this one come from the family's own module, which adds
  them with :func:`complete_family` when imported (``finetuned``: :mod:`advisor.finetune`, imported by
  the orchestration).
- :func:`pairs`: (costlier, cheaper) pairs in the order the verdict reads them.
- :class:`TaskSpec`: per task its primary metric, unit of analysis, scorer and unit correctness,
  registered in :data:`advisor.registry.tasks`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from advisor._error_codes import E201, E210, E211
from advisor.registry import tasks
from advisor.stats import EntitySpan, recognised_exactly

__all__ = [
    "ENOUGH_AGAINST",
    "FAMILIES",
    "HOOKS",
    "PAIRS",
    "PAPER_FAMILIES",
    "Borrow",
    "Family",
    "FamilyOptions",
    "FamilySettings",
    "TaskSpec",
    "complete_family",
    "family",
    "family_label",
    "family_runs",
    "featurize_order",
    "is_frozen",
    "one_label_per_item",
    "ordered",
    "pairs",
    "parse_list",
    "primary_metric",
    "register_family",
    "task_choices",
    "task_spec",
    "units_correct",
    "unregister_family",
]


class FamilySettings(Protocol):
    """What families read from the run's settings (:class:`advisor.settings.RunSettings` has it all).

    A protocol, not the class: the settings sit above this module (they name the default families).
    """

    @property
    def static(self) -> str | None: ...
    @property
    def contextual(self) -> str | None: ...
    @property
    def layer(self) -> str: ...
    @property
    def pooling(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def pair_encoding(self) -> str: ...
    @property
    def distill_layer(self) -> str | None: ...
    @property
    def cache_dir(self) -> str | None: ...
    @property
    def embeddings(self) -> list[str]: ...
    @property
    def profile(self) -> str: ...
    @property
    def finetune_sizes(self) -> str | None: ...
    @property
    def finetune_epochs(self) -> int | None: ...
    @property
    def finetune_seeds(self) -> int | None: ...


#: A family's options from the run's settings: ``(settings, random_dim, device) -> options``.
FamilyOptions = Callable[[FamilySettings, int, str], dict[str, Any]]
#: Whether the settings choose a family ``settings.embeddings`` does not name: ``(settings) -> bool``.
FamilyChosen = Callable[[FamilySettings], bool]
#: A family's own cells: ``(settings, grid) -> [Cell]`` (:class:`advisor.grid.GridPlan`, ``Cell``).
FamilyCells = Callable[[FamilySettings, Any], list[Any]]
#: Trains a family's cells itself: ``(cells, its options, splits) -> iter of (cell, result, seconds)``.
FamilyTrainer = Callable[[Sequence[Any], dict[str, Any], Any], Iterator[tuple[Any, Any, float]]]
#: Times a family's serving from raw text: ``(its options, splits, sample, device, repeats) -> ServingCost``.
FamilyServing = Callable[[dict[str, Any], Any, Any, str, int], Any]


@dataclass(frozen=True)
class Borrow:
    """An option a family takes from another family fitted before it in the same run.

    Why: random vectors are scaled to static's mean norm, so the two differ in content, not scale.
    """

    family: str  # the family fitted first
    attribute: str  # read from its fitted embedding
    option: str  # set on this family's options unless the settings set it


@dataclass(frozen=True)
class Family:
    """An embedding family and everything the rooms ask about it, declared once.

    ``cost`` orders families cheapest first (gaps leave room for new ones). ``options`` builds the
    family's options from the settings (None only until its module completes it). ``checks`` names the
    setting checks :mod:`advisor.validate` runs when the family runs. ``after`` / ``borrows``:
    families featurized first and what is taken from them. ``per_seed``: one fitted embedding per
    cell seed. ``serving_options`` switch a fitted embedding to what a server loads. ``enough``:
    whether the verdict may say "<name> is enough" and which gap it states (None: never).

    The hooks, None for a frozen embedding of the grid: ``chosen`` (None: it runs when
    ``settings.embeddings`` names it), ``cells`` (None: the grid's embeddings x sizes x seeds; a
    family's own cells come after the grid's), ``train`` (None: the frozen-feature executor; a
    family's own trainer runs its cells in this process after the executor's), ``serve`` (None:
    :mod:`advisor.costs` times the frozen embedding + head).
    """

    name: str
    cost: int
    description: str
    label: str  # how the verdict names it: "Static embeddings are enough"
    colour: str  # the same in every figure
    options: FamilyOptions | None
    frozen: bool = True
    checks: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    borrows: tuple[Borrow, ...] = ()
    per_seed: bool = False
    serving_options: tuple[tuple[str, Any], ...] = ()
    enough: str | None = None  # its "… is enough" verdict is stated against: "costlier" | "contextual"
    enough_serving_share: bool = False  # that verdict also states its share of contextual's latency
    chosen: FamilyChosen | None = None
    cells: FamilyCells | None = None
    train: FamilyTrainer | None = None
    serve: FamilyServing | None = None


def _random_options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, Any]:
    options: dict[str, Any] = {"dim": random_dim}
    if settings.static:
        options["static_path"] = settings.static
    return options


def _static_options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, Any]:
    return {"path": settings.static} if settings.static else {}


def _contextual_options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, Any]:
    options: dict[str, Any] = {"layer": settings.layer, "pooling": settings.pooling, "device": device}
    options.update(_pair_options(settings))
    if settings.contextual:
        options["model"] = settings.contextual
    if settings.cache_dir:
        options["cache_dir"] = settings.cache_dir
    return options


def _pair_options(settings: FamilySettings) -> dict[str, Any]:
    """How an encoder reads a pair task's two texts (only for pairs: other runs keep their resume key)."""
    return {"pair_encoding": settings.pair_encoding} if settings.task == "pair" else {}


def _distilled_options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, Any]:
    """Same encoder and pooling as contextual: it reads contextual's feature cache."""
    options: dict[str, Any] = {"pooling": settings.pooling, "device": device, **_pair_options(settings)}
    for option, value in (
        ("model", settings.contextual),
        ("cache_dir", settings.cache_dir),
        ("layer", settings.distill_layer),
    ):
        if value is not None:
            options[option] = value
    return options


#: What a family's "… is enough" verdict is stated against (``Family.enough``): the worst gap of any
#: costlier family, or contextual's gap to it.
ENOUGH_AGAINST: tuple[str, ...] = ("costlier", "contextual")
#: What a family's own module may add to its declaration here (:func:`complete_family`).
HOOKS: tuple[str, ...] = ("options", "chosen", "cells", "train", "serve")

FAMILIES: dict[str, Family] = {}


def register_family(declared: Family) -> Family:
    """Add ``declared`` to :data:`FAMILIES` (a family module plus this call is a new family)."""
    if declared.name in FAMILIES:
        raise ValueError(f"embedding family {declared.name!r} registered twice")
    FAMILIES[declared.name] = declared
    return declared


def unregister_family(name: str) -> None:
    """Remove family ``name`` (tests that register a toy family clean up with this)."""
    FAMILIES.pop(name, None)


def complete_family(name: str, **hooks: Any) -> Family:
    """Add ``hooks`` (names of :data:`HOOKS`) to family ``name`` declared here.

    Why: the rooms below the orchestration read every family's name, cost, label and colour from
    here, but a family's options, cells, trainer and serving may need modules above this one (the
    fine-tuned reference's need the grid, the data and :mod:`advisor.costs`); its own module adds
    them when it is imported. The declaration keeps its place in :data:`FAMILIES`.
    """
    unknown = sorted(set(hooks) - set(HOOKS))
    if unknown:
        raise ValueError(f"not a family hook: {', '.join(unknown)} (hooks: {', '.join(HOOKS)})")
    FAMILIES[name] = completed = replace(family(name), **hooks)
    return completed


for _family in (
    Family(
        "random",
        10,
        "fixed random vectors per training word",
        label="Random embeddings",
        colour="#8c8c8c",
        options=_random_options,
        after=("static",),
        borrows=(Borrow("static", "mean_norm", "target_norm"),),
        per_seed=True,
        enough="costlier",
    ),
    Family(
        "static",
        20,
        "pretrained word vectors (GloVe, word2vec, fastText)",
        label="Static embeddings",
        colour="#1f77b4",
        options=_static_options,
        enough="contextual",
    ),
    Family(
        "distilled",
        30,
        "static vectors distilled from a contextual encoder",
        label="Distilled static vectors",
        colour="#2ca02c",
        options=_distilled_options,
        checks=("pooling", "distill_layer"),
        after=("contextual",),
        enough="contextual",
        enough_serving_share=True,
    ),
    Family(
        "contextual",
        40,
        "a frozen pretrained encoder (BERT-class)",
        label="Contextual embeddings",
        colour="#ff7f0e",
        options=_contextual_options,
        checks=("pooling", "layer"),
        serving_options=(("use_cache", False),),
    ),
    Family(
        "finetuned",
        50,
        "an encoder fine-tuned on the training split",
        label="Finetuned embeddings",
        colour="#d62728",
        options=None,  # options, chosen, cells, train, serve: completed by advisor.finetune
        frozen=False,
        checks=("encoder",),
    ),
):
    register_family(_family)

#: The three families of Arora et al. (2020): the default grid of a run.
PAPER_FAMILIES: tuple[str, ...] = ("random", "static", "contextual")


def family(name: str) -> Family:
    """The :class:`Family` called ``name``; unknown names raise an error listing the families."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise E201(kind="embedding family", name=name, choices=", ".join(FAMILIES)) from None


def family_runs(declared: Family, settings: FamilySettings) -> bool:
    """Whether ``declared`` runs under ``settings``: named in ``settings.embeddings``, or chosen by its
    own ``chosen`` hook (the fine-tuned reference: ``--finetune-sizes`` or the profile)."""
    if declared.chosen is None:
        return declared.name in settings.embeddings
    return declared.chosen(settings)


def is_frozen(name: str) -> bool:
    """Whether ``name`` is a frozen family (what the verdict decides on); a name that is no family is."""
    return name not in FAMILIES or FAMILIES[name].frozen


def family_label(name: str) -> str:
    """How the verdict names family ``name`` ("Static embeddings"); a name that is no family: "<Name> embeddings"."""
    return FAMILIES[name].label if name in FAMILIES else f"{name.capitalize()} embeddings"


def ordered(names: Iterable[str]) -> list[str]:
    """``names`` cheapest family first; names that are no family keep their order, after the families."""
    names = list(names)
    known = sorted((n for n in names if n in FAMILIES), key=lambda n: FAMILIES[n].cost)
    return known + [n for n in names if n not in FAMILIES]


def featurize_order(names: Iterable[str]) -> list[str]:
    """``names`` cheapest first, each after the families it declares in ``after`` (when present)."""
    names = ordered(names)
    done: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        for first in FAMILIES[name].after if name in FAMILIES else ():
            if first in names:
                visit(first)
        done.append(name)

    for name in names:
        visit(name)
    return done


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


_CLASSIFY = TaskSpec(
    name="classify",
    primary_metric="accuracy",
    metric_label="accuracy",
    unit="sentence",
    levels=("sentence",),
    gain_unit="sentence",
    scorer=_classification_scores,
    unit_correct=_classify_unit_correct,
)

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
    _CLASSIFY,
    # one label per pair of texts: scored and sliced as classification; the gain model speaks of pairs
    replace(_CLASSIFY, name="pair", gain_unit="pair"),
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


def one_label_per_item(task: str) -> bool:
    """Classification and pair tasks label whole items (stratified subsets, a floor per class); NER labels tokens."""
    return task_spec(task).levels == ("sentence",)


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
