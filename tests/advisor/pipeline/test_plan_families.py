"""The fine-tuned reference planned as one more family (its own planner hook), not by a grid extension:
the plan's cells, options, resume key, params and tags are the ones the grid extension gave.

The keys and cells below were computed by the code before the change (``plan_run(settings, splits,
(runner._finetune_extension,))``); a changed key would start a new parent run instead of resuming.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.data import read_splits
from advisor.pipeline import RunPlan, plan_run
from advisor.settings import RunSettings
from tests.helpers import static_contextual_grid, write_ner_splits

FROZEN_OPTIONS = {
    "static": {"path": "vectors.txt"},
    "contextual": {"layer": "mix", "pooling": "first", "device": "cpu", "model": "org/encoder"},
}
FINETUNED_OPTIONS = {
    "model": "org/encoder",
    "max_epochs": 10,
    "patience": 1,
    "batch_size": 16,
    "lr": 5e-05,
    "weight_decay": 0.01,
    "warmup_ratio": 0.1,
    "max_length": 128,
    "device": "cpu",
}
GRID_20_40 = [(e, size, seed) for size in (20, 40) for seed in (0, 1) for e in ("static", "contextual")]


def _plan(tmp_path: Path, n_train: int = 40, **extra: object) -> RunPlan:
    files = write_ner_splits(tmp_path, (("train", n_train), ("dev", 10), ("test", 12)))
    # nothing is loaded: the plan only names the encoder and the vectors
    options = static_contextual_grid(files, "org/encoder", "vectors.txt") | {"precision": "float32"}
    settings = RunSettings(**(options | extra))  # type: ignore[arg-type]
    return plan_run(settings, read_splits(files["train"], "ner", dev=files["dev"], test=files["test"]))


def _cells(plan: RunPlan) -> list[tuple[str, int, int]]:
    return [(c.embedding, c.size, c.seed) for c in plan.grid.cells]


@pytest.mark.parametrize(
    ("extra", "key", "finetuned_cells", "finetuned_options"),
    [
        (
            {"finetune_sizes": "full", "finetune_epochs": 1},
            "1e9a40034299f1ae7c00",
            [("finetuned", 40, 0), ("finetuned", 40, 1)],
            FINETUNED_OPTIONS | {"max_epochs": 1},
        ),
        (
            {"finetune_sizes": "mid,20", "finetune_seeds": 1},
            "c08379cd97b55673695e",
            [("finetuned", 20, 0)],
            FINETUNED_OPTIONS,
        ),
        ({"finetune_sizes": "off"}, "54fc28ee8fed56fb8b0c", [], None),
        ({}, "54fc28ee8fed56fb8b0c", [], None),  # the quick profile asks for no reference
    ],
)
def test_the_finetuned_family_plans_what_its_grid_extension_planned(
    tmp_path: Path, extra: dict, key: str, finetuned_cells: list, finetuned_options: dict | None
) -> None:
    plan = _plan(tmp_path, **extra)
    assert plan.key == key
    assert _cells(plan) == GRID_20_40 + finetuned_cells  # after the grid's cells, sizes ascending
    expected = (
        FROZEN_OPTIONS if finetuned_options is None else FROZEN_OPTIONS | {"finetuned": finetuned_options}
    )
    assert plan.options == expected and list(plan.options) == list(expected)  # no entry when it has no cells
    assert plan.grid.embeddings == ["static", "contextual"]  # the grid stays the frozen families'
    assert (plan.params["embeddings"], plan.params["sizes"], plan.params["seeds"]) == (
        ["static", "contextual"], [20, 40], 2,
    )  # fmt: skip
    assert plan.tags == {
        "advisor.task": "ner",
        "advisor.dataset": "train.conll",
        "advisor.profile": "quick",
        "advisor.decision_inputs": "{}",  # issue 29: the decision inputs a run was given (none here)
        "advisor.until": "complete",  # issue 31: the whole grid (a tag: a resume may change it)
    }


def test_the_profile_switches_the_reference_on_at_its_sizes(tmp_path: Path) -> None:
    """``thorough`` asks for the middle and the full size, every seed, without ``--finetune-sizes``."""
    plan = _plan(tmp_path, n_train=300, profile="thorough", sizes=None, seeds=None)
    assert plan.key == "1bf735b78fa19a5e7441"  # its projection widths (64, 256) are chosen on dev: in the key
    grid = [(e, s, seed) for s in (38, 75, 150, 300) for seed in range(5) for e in ("static", "contextual")]
    tuned = [("finetuned", s, seed) for s in (75, 300) for seed in range(5)]
    assert _cells(plan) == grid + tuned
    assert plan.options == FROZEN_OPTIONS | {"finetuned": FINETUNED_OPTIONS}
    assert plan.params["sizes"] == [38, 75, 150, 300] and plan.params["random_dim"] == 800


def test_planning_is_pure(tmp_path: Path) -> None:
    """The same settings and data give the same plan, and the registry is left as it was."""
    from advisor.vocabulary import FAMILIES

    before = dict(FAMILIES)
    first, second = _plan(tmp_path, finetune_sizes="full"), _plan(tmp_path, finetune_sizes="full")
    assert _cells(first) == _cells(second) and first.options == second.options and first.key == second.key
    assert len(first.grid.cells) == 10 and FAMILIES == before
