"""The plan of one run: a pure function of the settings and the data, computed before MLflow is opened.

Everything that decides *what* is computed lives in :class:`RunPlan`: the grid, the embedding
options, the training config, the resume key (data + every setting that changes a result), and the
params and tags the parent run is logged with. The grid is the chosen embeddings x sizes x seeds;
then every registered family with a planner of its own (``Family.cells``: the fine-tuned reference)
that the settings choose adds its cells after the grid's, and its options.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import advisor.finetune  # noqa: F401  completes the fine-tuned family's declaration with its hooks
from advisor._error_codes import E201
from advisor.data import DataSplits
from advisor.grid import Cell, GridPlan, plan_grid, profiles, tuned_widths
from advisor.pipeline._tune import LR_CHOICE, WIDTH_CHOICE
from advisor.settings import DECISION_INPUTS, RunSettings, default_of
from advisor.tracking import DECISION_TAG, UNTIL_TAG, environment_info
from advisor.vocabulary import FAMILIES, family, family_runs, primary_metric

__all__ = ["RunPlan", "decision_inputs", "embedding_options", "plan_run", "resolve_device", "resume_key"]


@dataclass(frozen=True)
class RunPlan:
    """What one ``advisor run`` computes and how its parent run is identified and described."""

    grid: GridPlan
    device: str
    options: dict[str, dict[str, Any]]  # embedding -> its options (model, layer, cache, ...)
    train_config: Any  # trainers.TrainConfig
    key: str  # resume key: a run with the same key is resumed
    name: str  # the data file's name
    primary: str  # the task's headline metric
    params: dict[str, Any]
    tags: dict[str, str]


def resolve_device(requested: str | None) -> str:
    if requested:
        return requested
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def embedding_options(settings: RunSettings, name: str, random_dim: int, device: str) -> dict[str, Any]:
    """The options of embedding ``name`` as its family declares them (an unknown family is an error)."""
    declared = family(name)
    if declared.options is None:  # a declaration its module has not completed
        planned = [f for f, d in FAMILIES.items() if d.options is not None]
        raise E201(kind="embedding family", name=name, choices=", ".join(planned))
    return declared.options(settings, random_dim, device)


def _own_cells(
    settings: RunSettings, grid: GridPlan, random_dim: int, device: str
) -> tuple[list[Cell], dict[str, dict[str, Any]]]:
    """The cells and options of every family that plans its own cells and runs under ``settings``
    (registry order); a family its planner gives no cells has no options either."""
    cells: list[Cell] = []
    options: dict[str, dict[str, Any]] = {}
    for name, declared in FAMILIES.items():
        if declared.cells is None or not family_runs(declared, settings):
            continue
        planned = declared.cells(settings, grid)
        if planned:
            cells += planned
            options[name] = embedding_options(settings, name, random_dim, device)
    return cells, options


def resume_key(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _key_for(
    settings: RunSettings, splits: DataSplits, options: dict[str, Any], config_for_key: dict[str, Any]
) -> str:
    key_options = {
        e: {k: v for k, v in o.items() if k not in ("device", "cache_dir")} for e, o in options.items()
    }
    return resume_key(
        {
            "task": settings.task,
            "data": splits.content_hash(),
            "embeddings": key_options,
            "train": config_for_key,
            "split_seed": settings.split_seed,
            "random_table": "per seed",
        }
    )


def _dataset_info(settings: RunSettings, splits: DataSplits, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "path": str(settings.data),
        "content_hash": splits.content_hash(),
        "n_train": len(splits.train),
        "n_dev": len(splits.dev),
        "n_test": len(splits.test),
        "labels": splits.train.label_set(),
        "scheme": splits.train.scheme,
        "split_method": splits.split_method,
    }


def _params(
    settings: RunSettings, splits: DataSplits, plan: RunPlan, random_dim: int, config_for_key: dict
) -> dict[str, Any]:
    """The parent run's params (immutable in MLflow: a resumed run keeps the first ones)."""
    return {
        "task": settings.task,
        "dataset": plan.name,
        "dataset_hash": splits.content_hash(),
        "n_train": len(splits.train),
        "n_dev": len(splits.dev),
        "n_test": len(splits.test),
        "primary_metric": plan.primary,
        "profile": settings.profile,
        "sizes": plan.grid.sizes,
        "seeds": len(plan.grid.seeds),
        "embeddings": plan.grid.embeddings,
        "contextual_model": settings.contextual or "packaged all-MiniLM-L6-v2",
        "static_vectors": settings.static or "packaged GloVe 6B 50d",
        "random_dim": random_dim,
        "layer": settings.layer,
        "pooling": settings.pooling,
        **({"pair_encoding": settings.pair_encoding} if settings.task == "pair" else {}),
        "device": plan.device,
        "train_config": json.dumps(config_for_key),
        "dataset_info": json.dumps(_dataset_info(settings, splits, plan.name)),
        "environment": json.dumps(environment_info()),
    }


def _tags(settings: RunSettings, name: str) -> dict[str, str]:
    tags = {
        **settings.tags,
        "advisor.task": settings.task,
        "advisor.dataset": name,
        "advisor.profile": settings.profile,
    }
    if settings.price_per_hour is not None:
        tags["advisor.price_per_hour"] = str(settings.price_per_hour)
    tags[DECISION_TAG] = json.dumps(decision_inputs(settings), sort_keys=True)
    tags[UNTIL_TAG] = settings.until  # a tag: a resume with --until complete finishes the grid
    return tags


def decision_inputs(settings: RunSettings) -> dict[str, float]:
    """The decision inputs given to this run (those not at their default): what the final verdict weighs."""
    given = {name: getattr(settings, name) for name in DECISION_INPUTS}
    return {name: value for name, value in given.items() if value is not None and value != default_of(name)}


def plan_run(settings: RunSettings, splits: DataSplits) -> RunPlan:
    """The run's plan from ``settings`` and the read ``splits``: the registered families decide."""
    from trainers import TrainConfig, resolve_precision

    profile = profiles.get(settings.profile)
    grid = plan_grid(
        len(splits.train), settings.embeddings, profile, settings.sizes, settings.fractions, settings.seeds
    )
    device = resolve_device(settings.device)
    random_dim = settings.random_dim or profile.random_dim
    options = {e: embedding_options(settings, e, random_dim, device) for e in grid.embeddings}
    own_cells, own_options = _own_cells(settings, grid, random_dim, device)
    grid, options = replace(grid, cells=[*grid.cells, *own_cells]), {**options, **own_options}
    max_steps = settings.max_steps or profile.max_steps
    widths = tuned_widths(profile, settings.projection)  # the first: the width when nothing is tuned
    train_config = TrainConfig(
        max_steps=max_steps,
        min_steps=min(profile.min_steps, max_steps),
        patience=settings.patience or profile.patience,
        anneals=profile.anneals,
        projection=widths[0],
        lr=settings.lr if settings.lr is not None else TrainConfig.lr,
        device=device,
        precision=resolve_precision(settings.precision, device),  # resolved: part of the resume key
    )
    config_for_key = {
        k: v for k, v in train_config.to_dict().items() if k not in ("seed", "device", "num_threads")
    }
    if settings.lr is None:  # chosen on dev per family (advisor.pipeline._tune): the grid is the setting
        config_for_key |= {
            "lr": None,
            "lr_grid": list(profile.lr_grid),
            "lr_seeds": profile.lr_seeds,
            "lr_choice": LR_CHOICE,
        }
        if len(widths) > 1:  # the width is chosen with the rate: the widths and the rule are the setting
            config_for_key |= {"projection": None, "projection_grid": list(widths), "lr_choice": WIDTH_CHOICE}
    name = Path(str(settings.data)).name
    plan = RunPlan(
        grid=grid,
        device=device,
        options=options,
        train_config=train_config,
        key=_key_for(settings, splits, options, config_for_key),
        name=name,
        primary=primary_metric(settings.task),
        params={},
        tags=_tags(settings, name),
    )
    return replace(plan, params=_params(settings, splits, plan, random_dim, config_for_key))
