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
