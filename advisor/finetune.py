"""The fine-tuned reference family's module: which sizes, how its cells train, what serving it costs.

The frozen families answer "is contextual worth it?"; the fine-tuned reference answers the next
question, "how much does freezing the encoder leave on the table?". It is costly (the encoder is
trained end to end: forward *and* backward through every layer, every epoch), so it runs only at the
sizes asked for (``--finetune-sizes full`` or a list; the ``thorough`` profile runs the middle and
the full size) and is logged as its own family, ``finetuned``, with step = training-set size, the
same nested subsets and seeds as every other family, and its own serving measurement (raw text ->
tokenize -> fine-tuned encoder + head, with the same sample and provenance as the others).

One more family, not a side path: its name, cost, label, colour and checks are declared in
:mod:`advisor.vocabulary` with the others; importing this module completes that declaration with its
hooks (:func:`~advisor.vocabulary.complete_family`): its options, whether the settings choose it
(:func:`asked_sizes`), its cells (:func:`plan_cells`), its trainer (:func:`finetune_cells`) and its
serving (:func:`measure_finetuned_serving`). The plan, the runner and the serving stage ask the family.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from advisor._error_codes import E219, E219_RANGE
from advisor.data import Corpus, DataSplits
from advisor.grid import Cell, GridPlan, profiles, subset_indices, subset_order
from advisor.vocabulary import FamilySettings, complete_family, primary_metric

__all__ = [
    "FINETUNED",
    "asked_sizes",
    "finetune_cells",
    "finetune_config",
    "finetune_options",
    "measure_finetuned_serving",
    "parse_finetune_sizes",
    "plan_cells",
    "plan_finetune",
]

FINETUNED = "finetuned"
#: Size words ``--finetune-sizes`` understands beside integers.
SIZE_WORDS: tuple[str, ...] = ("full", "mid")
_OFF = ("off", "none", "")


def parse_finetune_sizes(value: str | Sequence[str | int] | None) -> tuple[str, ...] | None:
    """``--finetune-sizes`` as tokens; None = the profile decides, () = off. Bad tokens raise E219."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    tokens = [p.strip().lower() for p in parts]
    if len(tokens) == 1 and tokens[0] in _OFF:
        return ()
    bad = [t for t in tokens if t not in SIZE_WORDS and not (t.isdigit() and int(t) > 0)]
    if bad or not tokens:
        raise E219(values=", ".join(bad) or repr(value))
    return tuple(dict.fromkeys(tokens))


def plan_finetune(tokens: Sequence[str], plan: GridPlan, n_seeds: int | None = None) -> list[Cell]:
    """The fine-tuned cells: each asked size x the grid's first ``n_seeds`` seeds (default all), sizes
    ascending; out-of-range sizes raise E219. Fewer seeds than the grid still pair in the bootstrap."""
    sizes: set[int] = set()
    for token in tokens:
        if token == "full":
            sizes.add(plan.full_size)
        elif token == "mid":
            sizes.add(plan.sizes[(len(plan.sizes) - 1) // 2])
        else:
            sizes.add(int(token))
    bad = sorted(s for s in sizes if not 1 <= s <= plan.full_size)
    if bad:
        raise E219_RANGE(sizes=bad, full_size=plan.full_size)
    seeds = plan.seeds if n_seeds is None else plan.seeds[: max(1, n_seeds)]
    return [Cell(FINETUNED, size, seed) for size in sorted(sizes) for seed in seeds]


def asked_sizes(settings: FamilySettings) -> tuple[str, ...]:
    """The sizes asked for: ``--finetune-sizes``, else the profile's (() = the reference is off)."""
    tokens = parse_finetune_sizes(settings.finetune_sizes)
    return profiles.get(settings.profile).finetune if tokens is None else tokens


def plan_cells(settings: FamilySettings, plan: GridPlan) -> list[Cell]:
    """The family's planner: its cells for the run's grid (after the grid's cells), none when off."""
    return plan_finetune(asked_sizes(settings), plan, settings.finetune_seeds)


def finetune_config(max_epochs: int | None, device: str, seed: int = 0) -> Any:
    """The fine-tuning recipe: the BERT paper's lr 5e-5 and batch 16, up to 10 epochs early-stopped on dev.

    Why 10, not the paper's 3: its 3 epochs were for large GLUE sets; on WNUT-17 (3,394 sentences) 2
    epochs of MiniLM ended 9.5 F1 points below the frozen encoder, and a 6-epoch run still set its
    best dev score in its last two epochs (44.0 F1, level with frozen). Early stopping (patience 1)
    ends a run that has converged, so the cap costs time only while it helps.
    """
    from trainers import FineTuneConfig

    return FineTuneConfig(max_epochs=max_epochs or 10, device=device, seed=seed)


def finetune_options(model: str | None, max_epochs: int | None, device: str) -> dict[str, Any]:
    """What the child runs record, and what a fine-tuned cell needs to train."""
    from advisor.embeddings import default_encoder

    config = finetune_config(max_epochs, device).to_dict()
    kept = ("max_epochs", "patience", "batch_size", "lr", "weight_decay", "warmup_ratio", "max_length")
    return {"model": model or default_encoder(), **{k: config[k] for k in kept}, "device": device}


def finetune_cells(
    cells: Sequence[Cell], options: dict[str, Any], splits: DataSplits
) -> Iterator[tuple[Cell, Any, float]]:
    """Train each fine-tuned cell on the seed's nested subset (the frozen families' subsets); yields like the grid."""
    from trainers import TaskScoring, finetune_and_evaluate

    scoring = TaskScoring(splits.task, primary_metric(splits.task))  # the headline of the task spec
    for cell in cells:
        started = time.perf_counter()
        train = splits.train.subset(subset_indices(subset_order(splits.train, cell.seed), cell.size))
        config = finetune_config(options["max_epochs"], options["device"], seed=cell.seed)
        result = finetune_and_evaluate(
            options["model"], train, splits.dev, splits.test, config, scoring=scoring
        )
        yield cell, result, time.perf_counter() - started


def measure_finetuned_serving(
    options: dict[str, Any], splits: DataSplits, sample: Corpus, device: str, repeats: int, threads: int = 1
) -> Any:
    """Serving cost of the fine-tuned model, measured as :mod:`advisor.costs` measures every family.

    A freshly initialised head on the encoder: time and memory do not depend on the weight values.
    """
    from advisor.costs import ServingCost, raw_corpus, serving_provenance, time_serving
    from trainers import FineTuner, label_set

    labels = label_set(splits.train, splits.dev, splits.test)
    task = splits.train.task
    tuner = FineTuner(options["model"], task, labels, finetune_config(options["max_epochs"], device))
    pieces = {"n": 0}

    def predict(batch: Corpus) -> list[Any]:
        corpus = raw_corpus(task, batch)
        data = tuner.encode(corpus)
        pieces["n"] = max(len(x) for x in data.ids) * len(data.ids)
        return tuner.predict_encoded(data, corpus)[0]

    b1, b64 = time_serving(predict, sample, repeats, threads)
    batch_bytes = pieces["n"] * int(tuner.model.config.hidden_size) * 4  # last hidden states of one batch
    return ServingCost(
        embedding=FINETUNED,
        ms_per_item_b1=b1,
        ms_per_item_b64=b64,
        memory_mb=(tuner.weights_bytes + batch_bytes) / 1e6,
        weights_mb=tuner.weights_bytes / 1e6,
        batch_features_mb=batch_bytes / 1e6,
        provenance=serving_provenance(device, len(sample), repeats, threads),
    )


def _options(settings: FamilySettings, random_dim: int, device: str) -> dict[str, Any]:
    return finetune_options(settings.contextual, settings.finetune_epochs, device)


complete_family(
    FINETUNED,
    options=_options,
    chosen=lambda settings: bool(asked_sizes(settings)),
    cells=plan_cells,
    train=finetune_cells,
    serve=measure_finetuned_serving,
)
