from __future__ import annotations

import re

import pytest

from advisor.errors import ConfigError
from advisor.registry import tasks
from advisor.vocabulary import (
    ENOUGH_AGAINST,
    FAMILIES,
    PAIRS,
    SERVING_KINDS,
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
    assert task_choices() == ["ner", "classify"] == tasks.names()
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
    from advisor.embeddings import embedding_choices
    from advisor.settings import RunSettings
    from advisor.validate import FAMILY_CHECKS

    declared = family(name)
    assert declared.name == name and declared.description and declared.label
    assert re.fullmatch(r"#[0-9a-f]{6}", declared.colour)
    assert set(declared.checks) <= set(FAMILY_CHECKS), "a check validate.py does not know"
    assert declared.served_by in SERVING_KINDS
    assert declared.enough in (None, *ENOUGH_AGAINST)
    if declared.enough is not None:  # its verdict has a name the renderer and the app know
        from advisor.verdict import VERDICTS, enough_rule

        rule = enough_rule(name)
        assert rule is not None and rule.verdict in VERDICTS
    assert set(declared.after) | {b.family for b in declared.borrows} <= set(FAMILIES) - {name}
    assert {b.family for b in declared.borrows} <= set(declared.after), (
        "borrow only from a family fitted first"
    )
    if declared.frozen:  # planned from the grid: a registered embedding built from the settings' options
        assert name in embedding_choices() and declared.options is not None
        assert isinstance(declared.options(RunSettings(data="train.conll", task="ner"), 16, "cpu"), dict)
        assert declared.served_by == "embedding"
    else:  # the fine-tuned reference: planned by its grid extension, timed as encoder + head
        assert declared.options is None and declared.served_by == "finetune"


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
