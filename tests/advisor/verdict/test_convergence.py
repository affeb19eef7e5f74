"""The convergence audit: under-trained cells are named in the verdict, the report and its JSON."""

from __future__ import annotations

import json
from dataclasses import replace

from advisor.report._write import _convergence_rows
from advisor.verdict import _codes as c
from advisor.verdict import recommend
from advisor.verdict._convergence import convergence_audit, under_trained_caveat


def _with_steps(analysis, flagged: set[tuple[str, int]]):
    """The analysis with steps logged per cell; cells of ``flagged`` (embedding, size) hit the ceiling."""
    curves = analysis.curves.copy()
    hit = [(e, s) in flagged for e, s in zip(curves["embedding"], curves["size"], strict=True)]
    curves["steps"] = [4000 if h else 900 for h in hit]
    curves["best_step"] = [4000 if h else 600 for h in hit]
    curves["under_trained"] = [1.0 if h else 0.0 for h in hit]
    params = {**analysis.params, "train_config": json.dumps({"max_steps": 4000, "min_steps": 600})}
    return replace(analysis, curves=curves, params=params)


def test_a_converged_run_has_no_flag(make_case) -> None:
    analysis = _with_steps(make_case("use contextual", noise=0.001), set())
    rec = recommend(analysis)
    assert c.UNDER_TRAINED not in rec.caveat_codes
    assert rec.convergence is not None and rec.convergence.flagged.empty
    assert len(rec.convergence.table) == len(analysis.embedding_names) * len(analysis.sizes)
    assert all(not row["flag"] for row in _convergence_rows(rec))


def test_under_trained_cells_on_a_curve_are_named_with_the_fix(make_case) -> None:
    case = make_case("use contextual", noise=0.001)
    smallest = min(case.sizes)
    analysis = _with_steps(case, {("static", smallest)})
    rec = recommend(analysis)
    assert rec.caveat_codes[0] == c.UNDER_TRAINED  # first: it qualifies every figure after it
    assert rec.caveat_notes[0]["points"] == [("static", smallest, 3, 3)]
    flag = under_trained_caveat(rec.convergence)
    assert flag is not None and flag in rec.caveats
    assert f"static at {smallest:,} (3 of 3 seeds)" in flag and "--max-steps 16000" in flag
    assert "data efficiency" in flag
    assert rec.to_dict()["convergence"]["max_steps"] == 4000
    rows = [r for r in _convergence_rows(rec) if r["flag"]]
    assert [(r["embedding"], r["under_trained"]) for r in rows] == [("static", 3)]


def test_runs_before_the_step_budget_have_an_empty_audit(make_case) -> None:
    audit = convergence_audit(make_case("use contextual", noise=0.001))
    assert audit.table.empty and under_trained_caveat(audit) is None


def _with_gold(analysis, gold: list[str]):
    """The analysis with an item table whose gold labels are ``gold`` (accuracy headline)."""
    import pandas as pd

    return replace(analysis, items=pd.DataFrame({"gold": gold}), primary_metric="accuracy", task="classify")


def test_cells_no_better_than_the_majority_label_are_named_per_family(make_case) -> None:
    case = make_case("use contextual", noise=0.001)  # every mean above 0.34
    gold = ["yes"] * 30 + ["no"] * 70  # always predicting "no": 0.70
    smallest, largest = min(case.sizes), max(case.sizes)
    curves = case.curves.copy()
    curves["score"] = curves["score"].clip(lower=0.71)  # every cell beats the baseline ...
    curves.loc[(curves["embedding"] == "random") & (curves["size"] == smallest), "score"] = (
        0.70  # ... but these
    )
    collapsed = (curves["embedding"] == "static") & (curves["size"] == largest) & (curves["seed"] == 0)
    curves.loc[collapsed, "score"] = 0.5
    rec = recommend(_with_gold(replace(case, curves=curves), gold))
    (note,) = [n for n in rec.caveat_notes if n.code == c.AT_MAJORITY]
    assert note["share"] == 0.7 and note["label"] == "no"
    assert sorted(note["points"]) == sorted([("random", smallest, 3, 3), ("static", largest, 1, 3)])
    (sentence,) = [s for s in rec.caveats if s.startswith("no better than the majority label")]
    assert f"random at {smallest:,} (3 of 3 seeds)" in sentence
    assert f"static at {largest:,} (1 of 3 seeds)" in sentence
    assert "always predicting 'no' (70.0% of test items)" in sentence
    clean = _with_gold(replace(case, curves=curves.assign(score=curves["score"].clip(lower=0.71))), gold)
    assert c.AT_MAJORITY not in recommend(clean).caveat_codes


def test_the_majority_check_needs_an_accuracy_task_with_gold_labels(make_case) -> None:
    case = make_case("use contextual", noise=0.001)
    low = replace(case, curves=case.curves.assign(score=0.5))
    gold = ["yes"] * 90 + ["no"] * 10
    assert c.AT_MAJORITY in recommend(_with_gold(low, gold)).caveat_codes  # the check fires here ...
    assert c.AT_MAJORITY not in recommend(replace(_with_gold(low, gold), items=None)).caveat_codes  # no items
    ner = replace(_with_gold(low, gold), primary_metric="f1", task="ner")
    assert c.AT_MAJORITY not in recommend(ner).caveat_codes  # ... not for an F1 headline
