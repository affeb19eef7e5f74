"""The one renderer: each rule, reason and caveat code reads as the sentence the CLI, the report and the
app show, from hand-made records (the decision is tested on its codes in ``test_recommend.py``)."""

from __future__ import annotations

import math

import pytest

from advisor.report import verdict_description
from advisor.verdict import (
    Note,
    Recommendation,
    ScoreGap,
    Thresholds,
    make_synthetic_analysis,
    recommend,
    render,
)
from advisor.verdict import _codes as c
from advisor.verdict import _wording as w
from advisor.verdict._codes import HIERARCHICAL


def _gap(a: str = "contextual", b: str = "static", **changes: object) -> ScoreGap:
    values: dict = dict(
        a=a, b=b, size=800, gap=0.02, lo=0.005, hi=0.035, n_seeds=3, method="paired t-interval over seeds",
        confidence=0.95, score_a=0.82, score_b=0.8, loss=0.01, prob_above=0.9,
    )  # fmt: skip
    return ScoreGap(**(values | changes))


def _rec(
    rule: Note, *gaps: ScoreGap, thresholds: Thresholds | None = None, **fields: object
) -> Recommendation:
    rec = Recommendation(
        thresholds=thresholds or Thresholds(), task="ner", primary_metric="f1", full_size=800,
        sizes=[100, 200, 400, 800], n_seeds=3, rule=rule, gaps=list(gaps) or [_gap()],
    )  # fmt: skip
    for name, value in fields.items():
        setattr(rec, name, value)
    return rec


def test_every_code_has_a_sentence() -> None:
    rules = {
        c.NOT_JUDGED,
        c.ENOUGH,
        c.CONTEXTUAL_WINS,
        c.CATCH_UP,
        c.STRADDLES,
        c.NO_INTERVAL,
        c.STOPPED_EARLY,
        c.SETTLED,
        c.WORTH_IT,
        c.NOT_WORTH,
        c.WORTH_UNCLEAR,
        c.OVER_BUDGET,
        c.NONE_FITS,
    }
    assert set(w._HEADLINES) == rules
    reasons = {c.HEADROOM, c.GAP, c.INTERVALS, c.REPAIRED, c.LOSS, c.EFFICIENCY, c.EXTRAPOLATION, c.BUDGET}
    reasons |= {c.COST_RATIO, c.SERVING_PRICE, c.OVER_LATENCY, c.SLICES_CARRY, c.SLICES_EASY, c.SLICES_NONE}
    reasons |= {c.ENCODER}
    assert set(w._REASONS) == reasons
    assert set(w._CAVEATS) | {c.UNDER_TRAINED, c.SLICE_OVERLAP} == {
        c.UNDER_TRAINED, c.SLICE_OVERLAP, c.JUDGED_BELOW, c.RUN_STATUS, c.FEW_FIT_SIZES, c.ENCODER,
        c.LEARNED_NOTHING, c.SETTLED_EARLY, c.TIME_BUDGET, c.AT_MAJORITY,
    }  # fmt: skip


def test_failed_gates_are_the_headline_and_the_first_reasons() -> None:
    problems = [Note(c.NO_CONTEXTUAL), Note(c.FEW_SIZES, {"n": 1, "need": 2})]
    problems.append(Note(c.FEW_SEEDS, {"thin": {"static": 1}, "need": 2}))
    rec = _rec(Note(c.NOT_JUDGED), problems=problems)
    assert rec.headline == (
        "Inconclusive: the run has no finished contextual cell, so there is nothing to weigh it against; "
        "only 1 training size(s) finished (need 2); too few seeds at full data for an interval: static (1) "
        "(need 2 per embedding)."
    )
    assert rec.reasons[0].startswith("The run has no finished contextual cell") and rec.reasons[0].endswith(
        "."
    )
    only = _rec(Note(c.NOT_JUDGED), problems=[Note(c.ONLY_CONTEXTUAL)])
    assert "nothing to compare it with" in only.headline


def test_enough_headlines() -> None:
    worst = _gap("static", "random", gap=0.002, lo=-0.004, hi=0.008, prob_above=0.1)
    random = _rec(Note(c.ENOUGH, {"family": "random", "pair": "static-random", "against": "costlier"}), worst)
    assert random.headline.startswith(
        "Random embeddings are enough: costlier embeddings score higher by at most 0.8 pts (upper 95% bound), "
        "within the 1.0 pts you accept to lose; P(static − random > 1.0 pts) = 10 %"
    )
    close = _gap("contextual", "distilled", gap=-0.001, lo=-0.006, hi=-0.0001)
    values = {"family": "distilled", "pair": "contextual-distilled", "against": "contextual", "share": 0.05}
    distilled = _rec(Note(c.ENOUGH, values), close)
    assert distilled.headline.startswith("Distilled static vectors are enough: contextual scores no higher")
    assert "estimate -0.1 pts" in distilled.headline
    assert distilled.headline.endswith(", at 5 % of contextual's serving latency (batch 1).")
    static = _rec(Note(c.ENOUGH, values | {"family": "static", "share": math.nan}), close)
    assert (
        static.headline.startswith("Static embeddings are enough")
        and "serving latency" not in static.headline
    )


def test_contextual_wins_and_label_more() -> None:
    wins = _rec(Note(c.CONTEXTUAL_WINS, {"pair": "contextual-static"}))
    assert wins.headline == (
        "Use contextual embeddings: they beat static by +2.0 pts (95% CI +0.5 pts to +3.5 pts), more than "
        "the 1.0 pts you accept to lose; P(contextual − static > 1.0 pts) = 90 %."
    )
    more = Note(c.CATCH_UP, {"embedding": "static", "extra_items": 412.4})
    assert "with about 412 more labelled items, within your budget of 800 extra items" in _rec(more).headline
    priced = _rec(more, thresholds=Thresholds(label_cost=2.0, labelling_budget_money=10_000))
    assert "412 more labelled items (≈ 824.80 at 2 per item)" in priced.headline


def test_inconclusive_says_which_way_it_leans_and_what_would_resolve_it() -> None:
    gap = _gap("contextual", "random", lo=-0.01, hi=0.05, prob_above=0.83, method=HIERARCHICAL, sd_items=0.004,
               sd_seeds=0.01)  # fmt: skip
    rule = Note(c.STRADDLES, {"pair": "contextual-random", "lean": "a", "seeds_needed": 40.0})
    text = _rec(rule, gap).headline
    assert text.startswith(
        "Inconclusive: the 95% interval of contextual's advantage over random (-1.0 pts to +5.0 pts) straddles "
        "the 1.0 pts you accept to lose; it leans towards contextual: P(contextual's advantage > 1.0 pts) = 83 %."
    )
    assert "What would resolve it: 2 more seeds would narrow the interval to about ±" in text
    assert text.endswith("; if the estimate holds, about 40 seeds in all (37 more) would decide it.")
    hopeless = _rec(
        Note(c.STRADDLES, rule.values | {"lean": "neither", "seeds_needed": math.inf}), gap
    ).headline
    assert "leans neither way" in hopeless and "no number of seeds decides it with this test set" in hopeless
    blind = _gap(lo=math.nan, hi=math.nan, prob_above=math.nan)
    none = _rec(
        Note(c.NO_INTERVAL, {"pair": "contextual-static", "lean": None, "seeds_needed": math.nan}), blind
    )
    assert none.headline == (
        "Inconclusive: no interval could be computed for the contextual gap. What would resolve it: more seeds "
        "(at least 2 per embedding) would give an interval."
    )


def test_a_stopped_run_says_to_resume() -> None:
    rec = _rec(Note(c.STOPPED_EARLY, {"pair": "contextual-static", "cut_from": 1600}))
    assert rec.headline.startswith(
        "Inconclusive: the run stopped before its largest size (1,600 items); at 800"
    )
    assert rec.headline.endswith(
        "but static may catch up with the training data not used yet; resume the run."
    )


def test_reasons_and_caveats_read_from_their_notes() -> None:
    notes = [
        Note(c.INTERVALS, {"hierarchical": True, "n_boot": 2000, "n_items": 1287}),
        Note(c.REPAIRED, {"scores": {"contextual": (0.41, 0.40)}}),
        Note(c.LOSS, {"loss": 0.01}),
        Note(c.OVER_LATENCY, {"embedding": "contextual", "latency": 13.9, "budget": 5.0}),
        Note(c.SLICES_CARRY, {"findings": [("ner_unseen", "static")], "tested": 6}),
        Note(c.SLICES_NONE, {"tested": 0}),
        Note(c.ENCODER, {"text": "Contextual measured: x."}),
    ]
    caveats = [
        Note(c.JUDGED_BELOW, {"size": 400, "cut_from": 800, "min_seeds": 2}),
        Note(c.RUN_STATUS, {"status": "KILLED"}),
        Note(c.FEW_FIT_SIZES, {"n": 3, "need": 4}),
    ]
    rec = _rec(
        Note(c.CONTEXTUAL_WINS, {"pair": "contextual-static"}), reason_notes=notes, caveat_notes=caveats
    )
    reasons = rec.reasons
    assert reasons[0].startswith("Intervals: hierarchical bootstrap (2,000 replicates)")
    assert "the 1,287 test sentences" in reasons[0]
    assert reasons[1].startswith("Scores are seqeval strict IOB2 F1 on the raw predictions")
    assert reasons[1].endswith("they would be: contextual 0.410 (strict 0.400).")
    assert reasons[2].startswith("You accept losing up to 1.0 pts")
    assert reasons[3] == "Contextual is over your latency budget: 13.90 > 5 ms/item."
    assert reasons[4].endswith("for: ner_unseen against static (Holm-corrected over 6 tests).")
    assert reasons[5].endswith("(uncorrected: this run's slice table has no p-values).")
    assert reasons[6] == "Contextual measured: x."
    assert rec.caveats[0].startswith("judged at 400 items") and "up to 800 items" in rec.caveats[0]
    assert rec.caveats[1] == "the run's status is KILLED: some cells may be missing"
    assert rec.caveats[2].startswith("only 3 training sizes: learning-curve extrapolations are not trusted")


@pytest.fixture(scope="module")
def judged() -> Recommendation:
    case = make_synthetic_analysis(noise=0.001, slice_effects={"unseen": 0.08, "ambiguity": 0.0})
    return recommend(case, Thresholds(n_boot=200, latency_budget_ms=10.0))  # contextual: 7 ms/item


def test_every_place_reads_the_same_words(judged: Recommendation) -> None:
    words = render(judged)
    payload = judged.to_dict()
    assert (words.headline, words.reasons, words.caveats) == (judged.headline, judged.reasons, judged.caveats)
    assert (payload["headline"], payload["reasons"], payload["caveats"]) == (words.headline, words.reasons,
                                                                             words.caveats)  # fmt: skip
    assert judged.summary_lines() == words.summary_lines()
    description = verdict_description(judged, "FINISHED")
    assert words.headline in description and all(r in description for r in words.reasons)
    assert len(words.efficiency) == len(judged.efficiency) and len(words.slices) == len(judged.slices)


def test_summary_lines(judged: Recommendation) -> None:
    lines = render(judged).summary_lines()
    assert lines[0] == "Verdict: USE CONTEXTUAL" and lines[1] == judged.headline
    assert " Trade-off: +" in judged.headline  # the cost side, after the accuracy verdict
    assert "Difficulty slices carrying the gap:" in lines
    assert any(
        line.startswith("- unseen, contextual vs static: the gap is carried by difficult items")
        for line in lines
    )
    assert lines[-1].startswith(
        "Thresholds: acceptable loss 1.0 pts, latency budget 10 ms/item at batch 1, labelling budget"
    )


def test_training_cost_states_the_embedding_pass_apart(judged: Recommendation) -> None:
    (note,) = [n for n in judged.reason_notes if n.code == c.COST_RATIO]
    assert note["encode"] == (40.0, 0.6)  # DEFAULT_COSTS: the encoder's pass vs static's lookups
    (sentence,) = [r for r in judged.reasons if r.startswith("Cost contextual vs static")]
    assert (
        "training time (downstream model) 2.0× + embedding pass over train/dev/test 40 s (contextual) vs "
        "0.6 s (static)"
    ) in sentence
