from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.registry import tasks
from advisor.vocabulary import (
    ENOUGH_AGAINST,
    FAMILIES,
    HOOKS,
    PAIRS,
    complete_family,
    family,
    family_label,
    featurize_order,
    ordered,
    pairs,
    parse_list,
    primary_metric,
    task_choices,
    task_spec,
)


def test_families_are_in_cost_order_with_room_for_distilled_and_finetuned():
    costs = [family(n).cost for n in ("random", "static", "distilled", "contextual", "finetuned")]
    assert costs == sorted(costs) and len(set(costs)) == len(costs)
    assert list(FAMILIES) == ordered(FAMILIES)


def test_ordered_puts_families_cheapest_first_and_keeps_other_names_after():
    assert ordered(["contextual", "zeta", "random", "alpha", "static"]) == [
        "random", "static", "contextual", "zeta", "alpha",
    ]  # fmt: skip


def test_paper_pairs_are_read_costliest_first():
    assert PAIRS == (("contextual", "static"), ("contextual", "random"), ("static", "random"))
    assert pairs(["static", "distilled"]) == (("distilled", "static"),)


def test_task_specs_fill_the_tasks_registry():
    assert task_choices() == ["ner", "classify", "pair"] == tasks.names()
    assert primary_metric("ner") == "f1" and primary_metric("classify") == "accuracy"
    assert task_spec("ner").unit == "entity" and task_spec("classify").unit == "sentence"
    with pytest.raises(ConfigError, match="unknown task"):
        task_spec("parse")


def test_task_scorers_give_the_primary_metric():
    ner = task_spec("ner").scorer([["B-PER", "O"]], [["B-PER", "O"]])
    assert ner["f1"] == 1.0
    assert task_spec("classify").scorer(["a", "b"], ["a", "a"])["accuracy"] == 0.5


def test_unit_correctness_per_level():
    ner = task_spec("ner").unit_correct
    predicted = ["B-PER", "I-PER", "O"]
    assert ner("entity", "PER", predicted, 0, 2)
    assert not ner("entity", "PER", predicted, 0, 1)  # a bound differs
    assert ner("token", "I-PER", predicted, 1, 2) and not ner("token", "O", predicted, 5, 6)
    assert ner("sentence", ["B-PER", "I-PER", "O"], predicted, 0, 3)
    assert task_spec("classify").unit_correct("sentence", "1", 1, 0, 1)


def test_one_list_parser_for_cli_and_app():
    assert parse_list("100, 200;400", int, "sizes") == [100, 200, 400]
    assert parse_list("  ", int, "sizes") is None and parse_list(None, int, "sizes") is None
    with pytest.raises(ConfigError, match="cannot read 'a,b' as sizes"):
        parse_list("a,b", int, "sizes")
    with pytest.raises(ConfigError, match="positive"):
        parse_list("10,-1", int, "sizes", positive=True)
    assert parse_list("10,-1", int, "sizes") == [10, -1]


# -- the family contract: every registered family declares everything the rooms ask ------------------


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_declares_options_checks_colour_label_and_serving(name: str) -> None:
    import advisor.pipeline  # noqa: F401  the orchestration: family modules complete their declarations
    from advisor.embeddings import embedding_choices
    from advisor.settings import RunSettings
    from advisor.validate import FAMILY_CHECKS

    declared = family(name)
    assert declared.name == name and declared.description and declared.label
    assert re.fullmatch(r"#[0-9a-f]{6}", declared.colour)
    assert set(declared.checks) <= set(FAMILY_CHECKS), "a check validate.py does not know"
    assert declared.enough in (None, *ENOUGH_AGAINST)
    if declared.enough is not None:  # its verdict has a name the renderer and the app know
        from advisor.verdict import VERDICTS, enough_rule

        rule = enough_rule(name)
        assert rule is not None and rule.verdict in VERDICTS
    assert set(declared.after) | {b.family for b in declared.borrows} <= set(FAMILIES) - {name}
    assert {b.family for b in declared.borrows} <= set(declared.after), (
        "borrow only from a family fitted first"
    )
    assert declared.options is not None, "options from the settings (every family, planned how it may be)"
    assert isinstance(declared.options(RunSettings(data="train.conll", task="ner"), 16, "cpu"), dict)
    hooks = {hook: getattr(declared, hook) for hook in ("chosen", "cells", "train", "serve")}
    assert all(hook is None or callable(hook) for hook in hooks.values())
    if declared.cells is None:  # a frozen embedding of the grid: chosen by name, executor, advisor.costs
        assert name in embedding_choices() and declared.frozen
        assert hooks == {"chosen": None, "cells": None, "train": None, "serve": None}
    else:  # its own cells (the fine-tuned reference): its own switch, trainer and serving
        assert name not in embedding_choices() and None not in hooks.values()
    if not declared.frozen:  # not a frozen feature table: the executor cannot train it
        assert declared.train is not None and declared.cells is not None


def test_vocabulary_declares_every_family_and_the_orchestration_completes_them() -> None:
    """The rooms below the orchestration read the fine-tuned reference from here alone (it is not frozen);
    importing the orchestration gives it its hooks (fresh interpreters: nothing imported before)."""
    root = Path(__file__).resolve().parents[2]

    def run(code: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    alone = (
        "from advisor.vocabulary import FAMILIES, is_frozen; print(list(FAMILIES), is_frozen('finetuned'))"
    )
    assert run(alone) == "['random', 'static', 'distilled', 'contextual', 'finetuned'] False"
    completed = (
        "import advisor.pipeline; from advisor.vocabulary import FAMILIES; "
        "print([n for n, f in FAMILIES.items() if f.options is None], FAMILIES['finetuned'].train.__module__)"
    )
    assert run(completed) == "[] advisor.finetune"


def test_complete_family_adds_hooks_only() -> None:
    with pytest.raises(ValueError, match="not a family hook: colour"):
        complete_family("finetuned", colour="#000000")
    assert set(HOOKS) == {"options", "chosen", "cells", "train", "serve"}
    from advisor.finetune import finetune_cells

    tuned = family("finetuned")  # completed by its module: the hooks added, the declaration kept
    assert tuned.train is finetune_cells and (tuned.cost, tuned.colour, tuned.frozen) == (
        50,
        "#d62728",
        False,
    )


def test_families_have_their_own_colours_and_labels() -> None:
    colours = [f.colour for f in FAMILIES.values()]
    labels = [f.label for f in FAMILIES.values()]
    assert len(set(colours)) == len(colours) and len(set(labels)) == len(labels)


def test_featurize_order_puts_a_family_after_what_it_declares() -> None:
    assert featurize_order(["random", "static", "contextual", "distilled"]) == [
        "static", "random", "contextual", "distilled",
    ]  # fmt: skip
    assert featurize_order(["distilled", "random"]) == ["random", "distilled"]  # absent families: no effect


def test_an_unknown_family_is_an_error_listing_the_families() -> None:
    with pytest.raises(ConfigError, match="E201"):
        family("no-such-family")
    assert family_label("no-such-family") == "No-such-family embeddings"
    assert family_label("static") == "Static embeddings"


def test_a_pair_run_tells_both_encoder_families_how_to_read_pairs() -> None:
    """Contextual and distilled (which reads contextual's cache) get ``pair_encoding`` on a pair run
    only: the options of other runs, and so their resume keys, are as before."""
    from advisor.settings import RunSettings

    pair = RunSettings(data="train.tsv", task="pair", pair_encoding="separate")
    ner = RunSettings(data="train.conll", task="ner")
    for name in ("contextual", "distilled"):
        assert family(name).options(pair, 16, "cpu")["pair_encoding"] == "separate"
        assert "pair_encoding" not in family(name).options(ner, 16, "cpu")
    assert (
        family("contextual").options(RunSettings(data="t.tsv", task="pair"), 16, "cpu")["pair_encoding"]
        == "joint"
    )
