"""The experiment grid: profiles, training-set sizes, seeds, and nested (stratified) subsets.

Subsets are *nested*: for one seed, each smaller training subset lies inside the larger one, so the
learning curve of a seed moves only by adding data. For classification the order is stratified:
classes are interleaved in proportion, so every prefix keeps the label distribution.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from advisor._error_codes import E211, E213, E214
from advisor.data import Corpus
from advisor.registry import Registry
from advisor.vocabulary import one_label_per_item
from trainers import TrainConfig, eval_interval

__all__ = [
    "DEFAULT_APP_PROFILE",
    "Cell",
    "CellKey",
    "GridPlan",
    "Profile",
    "StepCost",
    "Throughput",
    "cell_label",
    "duration_text",
    "estimate_seconds",
    "evidence_first",
    "evidence_rounds",
    "expected_steps",
    "plan_grid",
    "profiles",
    "subset_order",
    "tuning_seeds",
]

profiles: Registry[Profile] = Registry("profile")

#: The app's preselected profile: 3 seeds and 5 sizes, the least that lets the verdict decide (2 seeds
#: leave one degree of freedom, and fewer than 4 sizes rule out learning-curve extrapolation).
DEFAULT_APP_PROFILE = "default"

# Fallbacks for what this machine has not measured yet (2 CPU cores: README and DESIGN); the estimate
# before Run uses ``Throughput`` (advisor.pipeline._speed) wherever there is a measurement.
_ENCODER_ITEMS_PER_S = 150.0  # packaged MiniLM, sentences/s, cold feature cache
_SECONDS_PER_STEP = 0.05  # downstream model, one worker, per optimizer step of 64 items (dev passes included)
_EXPECTED_EPOCHS = 15  # where early stopping typically ends a cell between its floor and ceiling
_BATCH = TrainConfig.batch_size  # the cells' batch: steps per epoch and the evaluation interval
_FIXED_S = 30.0  # reading, serving pass, analysis, report


@dataclass(frozen=True)
class Profile:
    """How much of the grid to run and how hard to train: the speed/evidence trade-off in one name."""

    name: str
    n_sizes: int  # powers of two below the full size: full, full/2, full/4, ...
    seeds: int
    max_steps: int  # the step ceiling of a cell (trainers._budget); reaching it while dev improves is flagged
    min_steps: int  # the floor: no early stop before this many steps (capped at max_steps)
    patience: int  # dev evaluations without improvement before the rate is halved or the cell stops
    random_dim: int
    min_size: int = 32
    lr_grid: tuple[float, ...] = (1e-3, 3e-3, 1e-2)  # learning rates tried per family on dev (mid size)
    lr_seeds: int = 2  # each rate is tried with the grid's first N seeds; the best mean dev wins
    anneals: int = TrainConfig.anneals  # plateaus that halve the rate before the next one stops a cell
    #: Widths of the learnt map in front of every family (trainers.TrainConfig.projection), tried on dev
    #: jointly with ``lr_grid`` (advisor.pipeline._tune); the first is the width when nothing is tuned.
    projections: tuple[int, ...] = (64,)
    description: str = ""
    finetune: tuple[str, ...] = ()  # sizes of the fine-tuned reference (advisor.finetune): "full", "mid", N


for _profile in (
    Profile(
        "quick",
        n_sizes=3,
        seeds=2,
        # Ceiling and patience as in default: at 2,000 steps / patience 3, TREC-6's larger cells stopped
        # 2-3 pts short of the 4x audit (README, "How each cell is trained").
        max_steps=4000,
        min_steps=400,
        patience=5,
        random_dim=300,
        description="a first look",
    ),
    Profile(
        "default",
        n_sizes=5,
        seeds=3,
        max_steps=4000,
        min_steps=600,
        patience=5,  # per learning rate: 2 anneals, so a plateau of >= 15 evaluations before a stop
        random_dim=800,
        projections=(64, 256),  # TREC-6: dev picks 256 for static, +2.6 pts at full size (README)
        description="paper-style curves",
    ),
    Profile(
        "thorough",
        n_sizes=7,
        seeds=5,
        max_steps=12000,
        min_steps=1000,
        patience=8,
        random_dim=800,
        projections=(64, 256),
        description="tight intervals",
        finetune=("mid", "full"),
    ),
):
    profiles.register(_profile.name, description=_profile.description)(_profile)


#: A cell's identity, (embedding, size, seed): the key of its predictions, scores and layer weights.
CellKey = tuple[str, int, int]


@dataclass(frozen=True)
class Cell:
    """One training run of the grid."""

    embedding: str
    size: int
    seed: int
    lr: float | None = None  # a learning-rate trial (advisor.pipeline._tune); None: the family's chosen rate
    projection: int | None = None  # a trial's projection width; None: the family's chosen width

    @property
    def key(self) -> CellKey:
        """What the cell's results are kept under everywhere (a rate trial is not part of it)."""
        return (self.embedding, self.size, self.seed)


def cell_label(key: CellKey) -> str:
    """``embedding/size/seed``: a cell's key written as one name (a table column, a reference entry)."""
    embedding, size, seed = key
    return f"{embedding}/{size}/{seed}"


@dataclass(frozen=True)
class GridPlan:
    sizes: list[int]
    seeds: list[int]
    embeddings: list[str]
    full_size: int
    cells: list[Cell] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "cells"}


def powers_of_two_sizes(full: int, n_sizes: int, min_size: int) -> list[int]:
    sizes = sorted({max(1, round(full / 2**k)) for k in range(n_sizes)})
    kept = [s for s in sizes if s >= min(min_size, full)]
    return kept or [full]


def plan_grid(
    full_size: int,
    embeddings: list[str],
    profile: Profile,
    sizes: list[int] | None = None,
    fractions: list[float] | None = None,
    seeds: int | None = None,
) -> GridPlan:
    """Sizes ascending, then seeds, then embeddings: a stopped run leaves whole curve prefixes behind."""
    if sizes and fractions:
        raise E213()
    if fractions:
        bad = [f for f in fractions if not 0 < f <= 1]
        if bad:
            raise E211(option="fractions", requirement=f"lie in (0, 1], got {bad}")
        sizes = [max(1, round(f * full_size)) for f in fractions]
    if sizes:
        too_big = [s for s in sizes if s > full_size or s < 1]
        if too_big:
            raise E214(sizes=too_big, full_size=full_size)
        chosen = sorted(set(sizes))
    else:
        chosen = powers_of_two_sizes(full_size, profile.n_sizes, profile.min_size)
    n_seeds = profile.seeds if seeds is None else seeds
    if n_seeds < 1:
        raise E211(option="--seeds", requirement="be at least 1")
    seed_list = list(range(n_seeds))
    cells = [Cell(e, s, seed) for s in chosen for seed in seed_list for e in embeddings]
    return GridPlan(
        sizes=chosen, seeds=seed_list, embeddings=list(embeddings), full_size=full_size, cells=cells
    )


def evidence_first(cells: list[Cell]) -> list[Cell]:
    """The cells in the order the decision needs them (``--until decided``): one seed of every family
    at the largest size, then the next seed there, then the smaller sizes descending, seed by seed.

    The verdict is decided at the largest size; the smaller sizes feed the curves and the extrapolation.
    Stable: within a round (one size, one seed) the families keep their order in ``cells``.
    """
    return sorted(cells, key=lambda cell: (-cell.size, cell.seed))


def evidence_rounds(cells: list[Cell]) -> list[list[Cell]]:
    """:func:`evidence_first` cut into rounds, one per (size, seed): after each the early verdict is looked at."""
    rounds: list[list[Cell]] = []
    for cell in evidence_first(cells):
        if rounds and (rounds[-1][0].size, rounds[-1][0].seed) == (cell.size, cell.seed):
            rounds[-1].append(cell)
        else:
            rounds.append([cell])
    return rounds


def subset_order(corpus: Corpus, seed: int) -> np.ndarray:
    """A permutation of the training items whose every prefix is a (stratified) random subset."""
    rng = np.random.default_rng(10_007 + seed)
    n = len(corpus)
    if not one_label_per_item(corpus.task):
        return rng.permutation(n)
    labels = np.asarray(corpus.labels, dtype=object)
    # Give each item a position key (rank within its class + jitter) / class size: sorting by key
    # interleaves classes in proportion, so any prefix matches the full label distribution.
    keys = np.empty(n, dtype=np.float64)
    for label in sorted(set(corpus.labels)):
        members = np.flatnonzero(labels == label)
        members = rng.permutation(members)
        keys[members] = (np.arange(len(members)) + rng.random(len(members))) / len(members)
    return np.argsort(keys, kind="stable")


def subset_indices(order: np.ndarray, size: int) -> np.ndarray:
    """The first ``size`` items of a seed's order, sorted (nested across sizes by construction)."""
    return np.sort(order[:size])


def tuning_seeds(grid: GridPlan, profile: Profile) -> list[int]:
    """The seeds each learning rate is tried with: the grid's first ``profile.lr_seeds`` (features exist)."""
    return list(grid.seeds[: profile.lr_seeds])


def tuned_widths(profile: Profile, projection: int | None) -> tuple[int, ...]:
    """The projection widths tried on dev: ``--projection`` when given (one width), else the profile's."""
    return (projection,) if projection is not None else profile.projections


def expected_steps(size: int, profile: Profile, max_steps: int | None = None) -> int:
    """Steps a cell of ``size`` items is expected to take under the stopping rule (``trainers._budget``):
    its best dev score after ~15 epochs (never stopping before the floor), ``patience`` evaluations to
    see the plateau, as many again after each anneal, all within the ceiling.

    Why the plateau windows: without them the rule said 600 steps where a CoNLL-size run's small cells
    took 800 (floor, then two anneals of 5 evaluations of 20 steps) and 1,650 at 7,020 sentences where
    they took 2,766-3,600, so a cold run's first estimate was a third of its wall time."""
    ceiling = max_steps or profile.max_steps
    window = profile.patience * eval_interval(size, _BATCH)
    best = _EXPECTED_EPOCHS * -(-size // _BATCH)
    stop = max(min(profile.min_steps, ceiling), best + window) + profile.anneals * window
    return min(stop, ceiling)


@dataclass(frozen=True)
class StepCost:
    """A family's training pace timed on this machine: one optimizer step, and one dev item evaluated.

    Why two parts: a cell evaluates the whole dev set every ``eval_interval(size)`` steps, so its
    seconds per step grow with the dev set and shrink with the size (a 3,250-sentence dev set made
    small cells' steps twice as slow as large ones')."""

    step_s: float
    dev_item_s: float

    def seconds_per_step(self, size: int, n_dev: int) -> float:
        return self.step_s + n_dev * self.dev_item_s / eval_interval(size, _BATCH)


@dataclass(frozen=True)
class Throughput:
    """Speeds measured on this machine; what is missing falls back to the 2-core constants above."""

    words_per_s: float | None = None  # the contextual encoder, words of text per second
    seconds_per_step: dict[str, float] = field(default_factory=dict)  # family -> s per optimizer step
    steps_ratio: dict[str, float] = field(default_factory=dict)  # family -> steps taken / expected_steps
    based_on: str = "constants for 2 CPU cores (nothing measured on this machine yet)"
    contention: float = 1.0  # how much the machine's load now slows the constant (idle cores: 1)
    # (family, projection width) -> the pace timed on a sample, scaled to the load now
    step_costs: dict[tuple[str, int], StepCost] = field(default_factory=dict)
    n_dev: int = 0  # dev items each evaluation passes over (for ``step_costs``)

    def step_seconds(self, family: str, size: int, width: int | None = None) -> float:
        """Seconds per step of a ``size``-item cell: what earlier runs measured, else the pace timed on a
        sample at the cell's projection ``width`` (None: the narrowest timed, a grid cell's width being
        chosen during the run), else the constant."""
        known = self.seconds_per_step
        if known:
            return known.get(family) or sum(known.values()) / len(known)
        timed = self._timed(family, width)
        if timed:
            return sum(c.seconds_per_step(size, self.n_dev) for c in timed) / len(timed)
        return _SECONDS_PER_STEP * self.contention

    def _timed(self, family: str, width: int | None) -> list[StepCost]:
        """The family's cost at ``width``; else at its narrowest; else the other families' at ``width``."""
        if not self.step_costs:
            return []
        width = width if width is not None else min(w for _, w in self.step_costs)
        mine = {w: cost for (f, w), cost in self.step_costs.items() if f == family}
        if mine:
            return [mine.get(width, mine[min(mine)])]
        at_width = [cost for (_, w), cost in self.step_costs.items() if w == width]
        return at_width or list(self.step_costs.values())

    def steps(self, size: int, family: str, profile: Profile, max_steps: int | None) -> float:
        """The rule's steps, scaled by how many steps this family's cells took here, within floor and ceiling."""
        rule = expected_steps(size, profile, max_steps)
        ratio = self.steps_ratio.get(family, 1.0)
        return min(max(rule * ratio, expected_steps(1, profile, max_steps)), max_steps or profile.max_steps)


def estimate_seconds(
    plan: GridPlan,
    profile: Profile,
    n_eval: int,
    workers: int = 2,
    max_steps: int | None = None,
    tune_lr: bool = True,
    throughput: Throughput | None = None,
    n_words: int | None = None,
    projection: int | None = None,
) -> float:
    """Wall time of a run with a cold cache: encoder pass + cells (learning-rate trials included) + fixed costs.

    ``throughput``: what this machine measured (``n_words``: words in train + dev + test, for the
    encoder's words/s); without it, the 2-core constants. ``tune_lr``: each family first trains one
    model per rate of ``profile.lr_grid``, width of :func:`tuned_widths` (``projection``: ``--projection``)
    and seed of ``profile.lr_seeds`` at the middle size.
    """
    speed = throughput or Throughput()
    encoder = 0.0
    if "contextual" in plan.embeddings:
        measured = speed.words_per_s and n_words
        encoder = (
            n_words / speed.words_per_s if measured else (plan.full_size + n_eval) / _ENCODER_ITEMS_PER_S
        )
    cells: list[tuple[str, int, int | None]] = [(c.embedding, c.size, None) for c in plan.cells]
    if tune_lr and plan.sizes:
        middle = plan.sizes[(len(plan.sizes) - 1) // 2]
        per_width = len(profile.lr_grid) * len(tuning_seeds(plan, profile))
        widths = tuned_widths(profile, projection)
        cells += [(e, middle, w) for e in plan.embeddings for w in widths for _ in range(per_width)]
    train = sum(speed.steps(z, e, profile, max_steps) * speed.step_seconds(e, z, w) for e, z, w in cells)
    return encoder + train / max(workers, 1) + _FIXED_S


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{max(seconds, 10):.0f} s"


def duration_text(seconds: float, plan: GridPlan, based_on: str, rough: bool = False) -> str:
    """One line for the app before Run: the expected duration, the grid, and what the estimate rests on
    (``rough``: training speed not measured here yet, so the line says it is a first guess)."""
    about = "a rough first guess of about" if rough else "about"
    seeds = f"{len(plan.seeds)} seed" + "s" * (len(plan.seeds) != 1)
    return (
        f"Expected duration: {about} {_duration(seconds)} for {len(plan.cells)} cells "
        f"({len(plan.embeddings)} embeddings × {len(plan.sizes)} sizes × {seeds}); "
        f"based on {based_on}."
    )
