"""The verdict of a run that stopped settled (``--until decided``): the settled claim with a caveat, never
"not judged" for the one size it trained by design (advisor.verdict._settled)."""

from __future__ import annotations

import json
from dataclasses import replace

from advisor.verdict import Thresholds, analysis_from_scores, recommend, render
from advisor.verdict import _codes as c
from tests.helpers import plant_serving

FAST = Thresholds(n_boot=200)
NOT_RUN = [["static", 200, 2], ["contextual", 200, 2], ["static", 100, 0], ["contextual", 50, 1]]


def _stopped(scores: dict[str, list[float]], verdict: str = "use contextual", until: str = "decided"):
    """A run at 200 items only, two seeds, that recorded a settled stop."""
    analysis = analysis_from_scores({name: {200: seeds} for name, seeds in scores.items()}, task="classify")
    stop = {"verdict": verdict, "pair": "contextual-static", "gap": 0.3, "prob_above": 0.999, "size": 200}
    stop |= {"seeds": 2, "looks": 3, "level": 0.006, "total": 18, "not_run": NOT_RUN}
    analysis.params |= {"until": until, "early_stop": json.dumps(stop)}
    return analysis


def test_a_settled_stop_is_judged_at_its_one_size_with_what_was_not_run() -> None:
    rec = recommend(_stopped({"static": [0.50, 0.52], "contextual": [0.95, 0.96]}))
    assert rec.problems == []
    assert rec.verdict == c.USE_CONTEXTUAL and rec.rule.code == c.CONTEXTUAL_WINS  # the rules agree
    assert rec.efficiency == []  # one size: no data-efficiency figure from sizes never measured
    settled = [n for n in rec.caveat_notes if n.code == c.SETTLED_EARLY]
    assert [n.values for n in settled] == [
        {"size": 200, "seeds": 2, "looks": 3, "total": 18, "not_run": 4, "below": True}
        | {"short": ["static", "contextual"], "finished": []}  # static's smaller sizes untrained too
    ]
    caveat = next(s for s in render(rec).caveats if "stopping rule" in s)
    assert caveat.startswith(
        "curves below 200 items not measured: the decision was settled after 2 of 3 seeds"
    )
    assert "4 of 18 cells were not run" in caveat and "data efficiency" in caveat
    assert not any(n.code == c.FEW_FIT_SIZES for n in rec.caveat_notes)  # the settled caveat says it once


def test_a_settled_use_contextual_is_refined_to_label_more_by_the_cheaper_curves_it_went_on_to_train(
    make_case,
) -> None:
    """After a settled "use contextual" the run trains random's and static's every size (not contextual's
    smaller ones): the "label more data" rule reads those curves and refines the claim, as the full grid's
    verdict would, and the caveat says only the data efficiency went unassessed."""
    full = make_case("label more data instead", noise=0.001)
    assert recommend(full, FAST).verdict == c.LABEL_MORE
    curves, largest = full.curves, full.full_size
    settled = replace(
        full, curves=curves[(curves["embedding"] != "contextual") | (curves["size"] == largest)]
    )
    not_run = [["contextual", z, s] for z in full.sizes if z < largest for s in range(3)]
    stop = {"verdict": "use contextual", "pair": "contextual-static", "gap": 0.03, "prob_above": 0.999}
    stop |= {"size": largest, "seeds": 2, "looks": 3, "level": 0.006, "total": 45, "not_run": not_run}
    settled.params = settled.params | {"until": "decided", "early_stop": json.dumps(stop)}

    rec = recommend(settled, FAST)
    assert rec.verdict == c.LABEL_MORE and rec.rule.code == c.CATCH_UP and rec.rule["embedding"] == "static"
    assert rec.efficiency == []
    (note,) = [n for n in rec.caveat_notes if n.code == c.SETTLED_EARLY]
    assert (note["short"], note["finished"], note["not_run"]) == (["contextual"], ["random", "static"], 12)
    caveat = next(s for s in render(rec).caveats if "stopping rule" in s)
    assert caveat.startswith(
        "the curve of contextual below 1,600 items not measured: the decision was settled"
    )
    assert "random and static then trained at every size for the 'label more data' option" in caveat
    assert caveat.endswith(
        "so the data efficiency was not assessed (resume with --until complete to measure it)"
    )

    stop["not_run"] = [*not_run, ["static", 100, 0]]  # one cheaper cell missing: the option is not assessed
    settled.params = settled.params | {"early_stop": json.dumps(stop)}
    settled = replace(settled, curves=settled.curves.drop(index=_row(settled, "static", 100, 0)))
    rec = recommend(settled, FAST)
    (note,) = [n for n in rec.caveat_notes if n.code == c.SETTLED_EARLY]
    assert note["finished"] == [] and "'label more data' option were not assessed" in render(rec).caveats[-1]


def test_a_settled_stop_that_finished_the_cheaper_curves_on_three_sizes_says_its_fits_are_thin() -> None:
    """The settled caveat does not say "not assessed" once static's curve is whole, so a grid of fewer
    sizes than a trusted fit needs (the quick profile's 3) states that caveat itself."""
    scores = {"static": {z: [0.4 + z / 1000, 0.41 + z / 1000] for z in (50, 100, 200)}}
    scores["contextual"] = {200: [0.95, 0.96]}
    analysis = analysis_from_scores(scores, task="classify")
    not_run = [["contextual", z, s] for z in (50, 100) for s in (0, 1)]
    stop = {"verdict": "use contextual", "pair": "contextual-static", "gap": 0.3, "prob_above": 0.999}
    stop |= {"size": 200, "seeds": 2, "looks": 3, "level": 0.006, "total": 10, "not_run": not_run}
    analysis.params |= {"until": "decided", "early_stop": json.dumps(stop)}
    rec = recommend(analysis, FAST)
    (note,) = [n for n in rec.caveat_notes if n.code == c.SETTLED_EARLY]
    assert note["finished"] == ["static"]
    (few,) = [n for n in rec.caveat_notes if n.code == c.FEW_FIT_SIZES]
    assert (few["n"], few["need"]) == (3, FAST.min_fit_sizes)


def _row(analysis, name: str, size: int, seed: int) -> list:
    curves = analysis.curves
    return list(
        curves.index[(curves["embedding"] == name) & (curves["size"] == size) & (curves["seed"] == seed)]
    )


def test_without_the_stop_one_size_is_not_judged() -> None:
    scores = {"static": [0.50, 0.52], "contextual": [0.95, 0.96]}
    for until in ("complete", "decided"):
        analysis = _stopped(scores, until=until)
        if until == "decided":
            analysis.params.pop("early_stop")
        rec = recommend(analysis)
        assert rec.rule.code == c.NOT_JUDGED and [p.code for p in rec.problems] == [c.FEW_SIZES]


def test_the_settled_claim_stands_where_the_final_interval_alone_would_not_settle_it() -> None:
    rec = recommend(_stopped({"static": [0.50, 0.52], "contextual": [0.50, 0.53]}))  # the rules: inconclusive
    assert rec.verdict == c.USE_CONTEXTUAL and rec.rule.code == c.SETTLED
    headline = render(rec).headline
    assert headline.startswith(
        "Use contextual: settled by the stopping rule (--until decided) after 2 of 3 seeds at 200 items "
        "(contextual-static gap +30.0 pts, P(gap > 1.0 pts) = 1.00)"
    )
    assert "do not settle it" in headline


def test_a_settled_use_contextual_states_its_trade_off_like_the_rules_do() -> None:
    stopped = _stopped({"static": [0.50, 0.52], "contextual": [0.50, 0.53]})  # the rules alone: inconclusive
    rec = recommend(
        plant_serving(stopped, {"static": 2.7, "contextual": 56.5}, {"static": 0.06, "contextual": 13.0})
    )
    assert rec.rule.code == c.SETTLED and rec.verdict == c.USE_CONTEXTUAL
    assert rec.tradeoff is not None and rec.tradeoff["ratio"] == 56.5 / 2.7
    assert (
        "Trade-off: " in render(rec).headline
        and "20.9× the serving latency (batch 1)" in render(rec).headline
    )


def _cut(scores: dict[int, dict[str, list[float]]], not_run: list[list], waived: bool = False):
    """A run that ``--budget 10 min`` cut: the cells it ran, and the stop it recorded."""
    by_family: dict[str, dict[int, list[float]]] = {}
    for size, families in scores.items():
        for name, seeds in families.items():
            by_family.setdefault(name, {})[size] = seeds
    analysis = analysis_from_scores(by_family, task="classify")
    stop = {"budget": "10 min", "seconds": 600.0, "total": 12, "run": 12 - len(not_run), "not_run": not_run}
    analysis.params |= {"until": "complete", "budget_stop": json.dumps(stop | {"waived": waived})}
    return analysis


def test_a_budget_cut_is_judged_at_the_largest_size_and_says_what_it_left_out() -> None:
    left = [[e, z, s] for z in (100, 50) for s in (0, 1) for e in ("static", "contextual")]
    rec = recommend(_cut({200: {"static": [0.50, 0.52], "contextual": [0.95, 0.96]}}, left))
    assert rec.problems == [] and rec.verdict == c.USE_CONTEXTUAL  # the sizes gate is waived for the cut
    assert rec.efficiency == []
    [note] = [n for n in rec.caveat_notes if n.code == c.TIME_BUDGET]
    assert (note["run"], note["total"], note["not_run"], note["below"]) == (4, 12, 8, 200)
    assert next(s for s in render(rec).caveats if s.startswith("budget")) == (
        "budget 10 min: 4 of 12 cells run; curves below 200 items not measured; the budget left out 8 cells, "
        "so the data efficiency and the 'label more data' option were not assessed (resume with a larger "
        "--budget, or none, to train them: finished cells are kept)"
    )


def test_a_budget_cut_to_one_size_states_no_extrapolation_beside_its_caveat() -> None:
    """The caveat says "label more data" was not assessed: no reason may then speak of a fit, an
    extrapolation or the labelling budget, and the fit-sizes caveat does not say it a second time."""
    left = [[e, z, s] for z in (100, 50) for s in (0, 1) for e in ("static", "contextual")]
    rec = recommend(_cut({200: {"static": [0.50, 0.52], "contextual": [0.95, 0.96]}}, left), FAST)
    assert rec.extrapolations == []
    assert not {c.FEW_FIT_SIZES, c.BUDGET, c.EXTRAPOLATION} & {*rec.reason_codes, *rec.caveat_codes}
    text = render(rec)
    assert not any("extrapolation" in s or "Labelling budget" in s for s in text.reasons)
    assert sum("'label more data' option" in s for s in text.caveats) == 1


def test_a_budget_that_left_out_seeds_only_says_so_without_claiming_missing_sizes() -> None:
    scores = {z: {"static": [0.50, 0.52], "contextual": [0.95, 0.96]} for z in (50, 100, 200)}
    rec = recommend(_cut(scores, [["static", 50, 2], ["contextual", 50, 2]], waived=True))
    caveat = next(s for s in render(rec).caveats if s.startswith("budget"))
    assert caveat.startswith(
        "budget 10 min: 10 of 12 cells run (the budget was shorter than the first round, which ran anyway); "
        "the budget left out 2 cells (resume"
    )
    assert "curves below" not in caveat


def test_a_budget_stop_whose_cells_were_trained_since_says_nothing() -> None:
    left = [["static", 200, 1], ["contextual", 200, 1]]
    rec = recommend(_cut({200: {"static": [0.50, 0.52], "contextual": [0.95, 0.96]}}, left))  # trained since
    assert not any(n.code == c.TIME_BUDGET for n in rec.caveat_notes)
    assert [p.code for p in rec.problems] == [c.FEW_SIZES]  # one size, and no cut to waive the gate for


def test_only_the_other_cheaper_frozen_families_finish_their_seeds_after_a_settled_use_contextual() -> None:
    from advisor.verdict import seeds_to_finish

    names = ["random", "static", "distilled", "contextual", "finetuned"]
    assert seeds_to_finish(c.USE_CONTEXTUAL, names) == ["distilled"]  # not the fine-tuned reference
    assert seeds_to_finish(c.STATIC_ENOUGH, names) == []
    assert seeds_to_finish(c.USE_CONTEXTUAL, ["static", "contextual"]) == []
