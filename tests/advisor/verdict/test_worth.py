"""The cost side of the verdict (issue 29): the trade-off stated after the headline, a value per point
deciding in money, and a latency budget the recommendation must meet, on runs with planted serving costs.

Serving costs planted (ms/item): batch 1 random 2.0, static 2.7, contextual 56.5 (20.9×); batch 64
random 0.05, static 0.06, contextual 13.0, so contextual costs (13.0 - 0.06) ms more per item at batch 64:
3.594 machine-hours, $7.19 at $2 per machine-hour, per 1M items.
"""

from __future__ import annotations

import json

import pytest

from advisor.analysis import Analysis
from advisor.settings import DECISION_PARAM
from advisor.verdict import Thresholds, recommend, run_thresholds
from advisor.verdict import _codes as c
from advisor.verdict._phrases import money
from tests.helpers import plant_serving

B1 = {"random": 2.0, "static": 2.7, "contextual": 56.5}
B64 = {"random": 0.05, "static": 0.06, "contextual": 13.0}
HOURS = (13.0 - 0.06) * 1e6 / 1000 / 3600  # extra machine-hours per 1M items, batch-64 throughput
PRICE = 2.0


@pytest.fixture
def served(make_case):
    """``served("use contextual")``: that synthetic case with the serving pass above planted."""

    def build(verdict: str) -> Analysis:
        return plant_serving(make_case(verdict, noise=0.001), B1, B64)

    return build


def _t(**changes: object) -> Thresholds:
    return Thresholds(n_boot=200, **changes)  # type: ignore[arg-type]


def test_without_budgets_the_trade_off_is_priced_after_the_unchanged_verdict(served) -> None:
    rec = recommend(served("use contextual"), _t(price_per_hour=PRICE, monthly_items=10_000_000))
    assert rec.verdict == "use contextual" and rec.rule.code == c.CONTEXTUAL_WINS
    gap, v = rec.gap("contextual-static"), rec.tradeoff.values
    assert v["extra"] == pytest.approx(HOURS * PRICE) and v["ratio"] == pytest.approx(56.5 / 2.7)
    assert v["per_month"] == pytest.approx(HOURS * PRICE * 10)
    assert v["break_even"] == pytest.approx(HOURS * PRICE / (100 * gap.gap))
    trade = rec.headline[rec.headline.index("Trade-off: ") :]
    assert trade.startswith(
        f"Trade-off: {100 * gap.gap:+.1f} pts (95% CI {100 * gap.lo:+.1f} to {100 * gap.hi:+.1f}) for 20.9× "
        "the serving latency (batch 1): $7.19 more per 1M items (batch-64 throughput on cpu, 4 threads, "
        "contextual in float32, at $2.00 per machine-hour; $71.89 more a month at 10,000,000 items); worth it "
        f"if one point is worth ≥ {money(v['break_even'])} per 1M items."
    )


def test_without_a_price_the_trade_off_is_in_machine_hours(served) -> None:
    rec = recommend(served("use contextual"), _t())
    assert rec.tradeoff["price"] is None and rec.tradeoff["extra"] == pytest.approx(HOURS)
    assert ": 3.59 machine-hours more per 1M items (batch-64 throughput" in rec.headline
    assert "no --price-per-hour given: multiply by yours" in rec.headline
    assert (
        "worth it if one point is worth ≥ 0.3" in rec.headline
        and "machine-hours per 1M items." in rec.headline
    )


def test_labelling_for_the_cheap_family_is_priced_in_the_same_sentence(served) -> None:
    analysis = served("label more data instead")
    t = _t(price_per_hour=PRICE, monthly_items=10_000_000, label_cost=0.5, labelling_budget_items=10)
    rec = recommend(analysis, t)  # a budget of 10 items: contextual wins, labelling is the alternative
    x = rec.extrapolation("static")
    assert rec.verdict == "use contextual" and x.status == "extrapolated" and x.reliable
    v = rec.tradeoff.values
    assert v["label_items"] == x.extra_items and v["label_money"] == pytest.approx(0.5 * x.extra_items)
    assert v["payback_months"] == pytest.approx(0.5 * x.extra_items / (HOURS * PRICE * 10))
    assert rec.headline.endswith(
        f" Or label ~{x.extra_items:,.0f} more items for static to come within 1.0 pts of contextual "
        f"({money(0.5 * x.extra_items)} at $0.50 per item, as much as {v['payback_months']:,.1f} months of "
        "contextual's extra serving)."
    )


@pytest.mark.parametrize(
    "verdict", ["use contextual", "static is enough", "random is enough", "label more data instead"]
)
def test_cost_inputs_left_out_keep_every_verdict(served, verdict: str) -> None:
    rec = recommend(served(verdict), _t())
    assert rec.verdict == verdict
    assert (rec.tradeoff is None) == (rec.rule.code == c.ENOUGH)  # stated after contextual-vs-cheap rules


def _value(rec, end: str, factor: float) -> float:
    """A value per point that puts ``end`` of the contextual-static interval ``factor`` × the break-even."""
    return HOURS * PRICE / (100 * getattr(rec.gap("contextual-static"), end)) * factor


@pytest.mark.parametrize(
    ("end", "factor", "verdict", "code"),
    [
        ("lo", 1.05, "use contextual", c.WORTH_IT),  # even the low end pays for the extra serving
        ("hi", 0.95, "contextual is not worth its cost", c.NOT_WORTH),  # even the high end does not
        ("gap", 1.0, "inconclusive", c.WORTH_UNCLEAR),  # the interval straddles the break-even
    ],
)
def test_a_value_per_point_decides_in_money(served, end: str, factor: float, verdict: str, code: str) -> None:
    analysis = served("use contextual")
    value = _value(recommend(analysis, _t(price_per_hour=PRICE)), end, factor)
    rec = recommend(analysis, _t(price_per_hour=PRICE, value_per_point=value))
    assert (rec.verdict, rec.rule.code) == (verdict, code) and rec.rule["value"] == value
    gap = rec.gap("contextual-static")
    worth = {c.WORTH_IT: gap.lo, c.NOT_WORTH: gap.hi}
    if code in worth:
        assert (
            f"is worth {money(value * 100 * worth[code])} per 1M items at {money(value)} per point"
            in rec.headline
        )
        assert "than the $7.19 more" in rec.headline
    else:
        assert rec.headline.startswith(
            f"Inconclusive: at {money(value)} per point per 1M items, contextual's advantage over static is worth "
            f"{money(value * 100 * gap.lo)} to {money(value * 100 * gap.hi)} per 1M items (95% CI), which "
            "straddles the $7.19 more it costs to serve"
        )
    assert " Trade-off: " in rec.headline


def test_a_value_per_point_needs_a_price() -> None:
    from advisor.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\[E604\]"):
        _t(value_per_point=5.0)


def test_over_the_latency_budget_the_best_family_within_it_is_recommended(served) -> None:
    rec = recommend(served("use contextual"), _t(latency_budget_ms=10.0))
    assert rec.verdict == "use the best within budget" and rec.rule.code == c.OVER_BUDGET
    assert (rec.rule["family"], rec.rule["rival"], rec.rule["over"]) == (
        "static",
        "contextual",
        ["contextual"],
    )
    gap = rec.gap("contextual-static")
    assert rec.headline == (
        "Use static embeddings: contextual (56.50 ms/item) is over your latency budget of 10 ms/item at batch 1, "
        "so cannot be the recommendation; static fits (2.70 ms/item) and is the best within it: it scores "
        f"{-100 * gap.gap:+.1f} pts (95% CI {-100 * gap.hi:+.1f} to {-100 * gap.lo:+.1f}) against contextual."
    )


def test_the_budget_is_at_its_batch_size(served) -> None:
    analysis = served("use contextual")
    bulk = recommend(analysis, _t(latency_budget_ms=10.0, latency_batch=64))  # contextual: 13.0 at batch 64
    assert bulk.rule.code == c.OVER_BUDGET and "of 10 ms/item at batch 64" in bulk.headline
    roomy = recommend(analysis, _t(latency_budget_ms=20.0, latency_batch=64))
    assert roomy.verdict == "use contextual" and roomy.rule.code == c.CONTEXTUAL_WINS
    assert "ms/item at batch 64" in roomy.summary_lines()[-1]


def test_nothing_within_the_budget_says_so(served) -> None:
    rec = recommend(served("use contextual"), _t(latency_budget_ms=1.0))
    assert rec.verdict == "nothing within budget" and rec.rule.code == c.NONE_FITS
    assert rec.rule["fastest"] == "random"
    assert rec.headline.startswith(
        "Nothing fits your latency budget of 1 ms/item at batch 1: the fastest family, random, serves at 2.00 "
        "ms/item"
    )


def test_a_recommendation_within_the_budget_stands(served) -> None:
    rec = recommend(served("static is enough"), _t(latency_budget_ms=10.0))
    assert rec.verdict == "static is enough"  # contextual is over, but it is not the recommendation
    assert [n["embedding"] for n in rec.reason_notes if n.code == c.OVER_LATENCY] == ["contextual"]


def test_the_run_stored_inputs_judge_it_and_given_ones_override_them(served) -> None:
    analysis = served("use contextual")
    analysis.params[DECISION_PARAM] = json.dumps({"latency_budget_ms": 10.0, "price_per_hour": PRICE})
    stored = recommend(analysis, _t())  # the run's inputs fill what the thresholds leave unstated
    assert stored.rule.code == c.OVER_BUDGET and stored.thresholds.price_per_hour == PRICE
    judged = recommend(analysis, run_thresholds(analysis.params, {"latency_budget_ms": 100.0}, n_boot=200))
    assert judged.verdict == "use contextual" and judged.thresholds.latency_budget_ms == 100.0
    assert judged.thresholds.price_per_hour == PRICE and "$7.19 more per 1M items" in judged.headline
    older = {"price_per_hour": "1.5"}  # a run from before the decision inputs: only its price tag
    assert run_thresholds(older).price_per_hour == 1.5 and run_thresholds({}).price_per_hour is None
