"""Is contextual worth its cost? The cost side of the decision, in the user's own units (issue 29).

The accuracy rules (:func:`advisor.verdict._recommend._decide`) say whether contextual is better by more
than the loss the user accepts; this module weighs that against what it costs:

- **The trade-off** (:func:`tradeoff`): contextual's gap to the cheap family it was weighed against,
  its latency multiple at the budget's batch size, its extra serving cost per 1M items from the
  measured batch-64 throughput (money at ``--price-per-hour``; without a price, machine-hours: a
  made-up default price would be a number nobody measured), per month at ``--monthly-items``, the
  break-even value of one point, and the labelling alternative (the cheap family's extrapolated extra
  items, priced at ``--label-cost``). The headline states it after every contextual-vs-cheap verdict.
- **Worth it** (:func:`apply_value`): with ``--value-per-point`` (money per point per 1M items) and a
  price, contextual is worth it only if the *lower* end of its gap's interval is worth more than its
  extra serving cost, not worth it if the *upper* end is worth less, undecided when the interval
  straddles the break-even. It replaces the accuracy rule's contextual-vs-cheap answer (use
  contextual / inconclusive); "enough" and "label more" verdicts stand.
- **The latency budget** (:func:`apply_latency_budget`): a family over the budget (at ``--latency-batch``)
  is never the recommendation; when the verdict would name one (or is undecided between contextual over
  the budget and a cheap family), the best-scoring family within the budget is recommended instead,
  with its gap to the best one over it.

It states codes and numbers (:mod:`advisor.verdict._codes`); the sentences are the renderer's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from advisor.analysis import Analysis
from advisor.verdict import _codes as c
from advisor.verdict._codes import (
    CONTEXTUAL,
    INCONCLUSIVE,
    NONE_WITHIN_BUDGET,
    NOT_WORTH_IT,
    USE_CONTEXTUAL,
    WITHIN_BUDGET,
    Note,
)
from advisor.verdict._cost import CostComparison
from advisor.verdict._gaps import ScoreGap
from advisor.verdict._phrases import FAR_FACTOR
from advisor.verdict._thresholds import Thresholds
from advisor.vocabulary import ordered

if TYPE_CHECKING:
    from advisor.verdict._recommendation import Recommendation

__all__ = ["apply_latency_budget", "apply_value", "latency_column", "tradeoff"]

#: The rules whose answer is contextual against one cheap family: the trade-off is stated after them.
TRADED_RULES = (c.CONTEXTUAL_WINS, c.STRADDLES, c.NO_INTERVAL, c.CATCH_UP, c.STOPPED_EARLY)
#: The accuracy rules a value per point decides instead (in money).
VALUED_RULES = (c.CONTEXTUAL_WINS, c.STRADDLES, c.NO_INTERVAL)


def latency_column(batch: int) -> str:
    """The cost table's latency column for a batch size (1: one request at a time; 64: bulk)."""
    return "latency_ms_per_item" if batch == 1 else "batch_ms_per_item"


def _hours_per_million(costs: CostComparison, name: str) -> float:
    """Machine-hours to serve 1M items at batch 64 (the measured throughput); NaN when not measured."""
    from advisor.costs import price_per_million

    return price_per_million(costs.value(name, "batch_ms_per_item"), 1.0)


def _setup(costs: CostComparison) -> str:
    """What the serving numbers were measured on: "cpu, 4 threads, float32" (as far as the run recorded)."""
    p, conditions = costs.provenance or {}, costs.conditions or {}
    parts = [str(p["device"])] if p.get("device") else []
    if p.get("torch_threads"):
        parts.append(f"{p['torch_threads']} thread{'s' if int(p['torch_threads']) != 1 else ''}")
    precision = conditions.get("precision") or {}
    if precision.get(CONTEXTUAL):
        parts.append(f"contextual in {precision[CONTEXTUAL]}")
    return ", ".join(parts)


def tradeoff(rec: Recommendation, cs: ScoreGap, t: Thresholds) -> Note | None:
    """The numbers of the trade-off sentence for contextual against ``cs.b``; None without costs.

    ``extra`` is per 1M items in money (with a price) or machine-hours; ``break_even`` the value of one
    point per 1M items at which the extra cost pays (NaN when contextual is no better or the cost unknown).
    """
    costs = rec.costs
    if costs is None or cs.a != CONTEXTUAL:
        return None
    cheap = cs.b
    ratio = costs.ratio(f"{CONTEXTUAL}/{cheap}", latency_column(t.latency_batch))
    hours = _hours_per_million(costs, CONTEXTUAL) - _hours_per_million(costs, cheap)
    if not (math.isfinite(ratio) or math.isfinite(hours)):
        return None
    extra = hours * t.price_per_hour if t.price_per_hour is not None else hours
    points = 100 * cs.gap
    values: dict[str, Any] = {
        "pair": cs.pair,
        "batch": t.latency_batch,
        "ratio": ratio,
        "extra": extra,
        "price": t.price_per_hour,
        "setup": _setup(costs),
        "break_even": extra / points if points > 0 and math.isfinite(extra) else math.nan,
        "per_month": extra * t.monthly_items / 1e6 if t.monthly_items is not None else math.nan,
        "monthly_items": t.monthly_items,
    }
    return Note(c.TRADEOFF, values | _labels(rec, cheap, t, values["per_month"]))


def _labels(rec: Recommendation, cheap: str, t: Thresholds, per_month: float) -> dict[str, Any]:
    """The labelling alternative: how many more items ``cheap`` needs to come within the acceptable loss
    (its extrapolation), at what price, and how many months of contextual's extra serving that is."""
    x = rec.extrapolation(cheap)
    if x is None:
        return {}
    values: dict[str, Any] = {"label_status": x.status}
    if x.status != "extrapolated" or x.factor > FAR_FACTOR:  # too far: not stated (as in the reasons)
        return values | {"label_far": x.status == "extrapolated"}
    values |= {"label_items": x.extra_items, "label_reliable": x.reliable, "label_far": False}
    if t.label_cost is not None:
        money = x.extra_items * t.label_cost
        values |= {"label_money": money, "label_cost": t.label_cost}
        if t.price_per_hour is not None and math.isfinite(per_month) and per_month > 0:
            values["payback_months"] = money / per_month
    return values


def worth(cs: ScoreGap, note: Note | None, t: Thresholds) -> str | None:
    """ "worth", "not worth" or "unclear" from the value of the gap's interval ends against the extra
    serving cost per 1M items; None when no value per point (or no priced serving cost) was given."""
    if t.value_per_point is None or note is None or note["price"] is None:
        return None
    extra = note["extra"]
    if not math.isfinite(extra):
        return None
    if not cs.has_interval:
        return "unclear"
    if t.value_per_point * 100 * cs.lo > extra:
        return "worth"
    return "not worth" if t.value_per_point * 100 * cs.hi < extra else "unclear"


def apply_value(rec: Recommendation, cs: ScoreGap, t: Thresholds) -> None:
    """With a value per point, decide contextual against ``cs.b`` in money instead of the acceptable loss."""
    if rec.rule.code not in VALUED_RULES:
        return
    found = worth(cs, rec.tradeoff, t)
    if found is None:
        return
    verdict, code = {
        "worth": (USE_CONTEXTUAL, c.WORTH_IT),
        "not worth": (NOT_WORTH_IT, c.NOT_WORTH),
        "unclear": (INCONCLUSIVE, c.WORTH_UNCLEAR),
    }[found]
    rec.verdict, rec.rule = verdict, Note(code, {"pair": cs.pair, "value": t.value_per_point})


def _recommended(rec: Recommendation) -> list[str]:
    """The families the verdict leaves open: the one it names, or both of an undecided pair."""
    values = rec.rule.values
    if rec.verdict == USE_CONTEXTUAL:
        return [CONTEXTUAL]
    if "family" in values or "embedding" in values:
        return [str(values.get("family", values.get("embedding")))]
    if rec.verdict == NOT_WORTH_IT:
        return [str(values["pair"]).split("-", 1)[1]]
    return str(values["pair"]).split("-", 1) if "pair" in values else []


def _full_scores(analysis: Analysis) -> dict[str, float]:
    """Each family's mean score at the largest size judged."""
    at = analysis.curves[analysis.curves["size"] == analysis.full_size]
    return {str(k): float(v) for k, v in at.groupby("embedding")["score"].mean().items()}


def apply_latency_budget(rec: Recommendation, analysis: Analysis, t: Thresholds) -> None:
    """A family over the latency budget is never the recommendation: recommend the best one within it."""
    if t.latency_budget_ms is None or rec.costs is None or rec.rule.code == c.NOT_JUDGED:
        return
    column, budget = latency_column(t.latency_batch), t.latency_budget_ms
    latency = {n: rec.costs.value(n, column) for n in analysis.embedding_names}
    over = [n for n, ms in latency.items() if math.isfinite(ms) and ms > budget]
    if not set(over) & set(_recommended(rec)):
        return
    fits = [n for n, ms in latency.items() if math.isfinite(ms) and ms <= budget]
    values: dict[str, Any] = {"budget": budget, "batch": t.latency_batch, "latency": latency}
    if not fits:
        fastest = min(over, key=lambda n: latency[n])
        rec.verdict, rec.rule = NONE_WITHIN_BUDGET, Note(c.NONE_FITS, values | {"fastest": fastest})
        return
    scores = _full_scores(analysis)
    best = max(fits, key=lambda n: scores.get(n, -math.inf))
    rival = max(over, key=lambda n: scores.get(n, -math.inf))
    a, b = ordered([best, rival])[::-1]  # gaps are stated costlier-minus-cheaper
    values |= {"family": best, "rival": rival, "over": over, "pair": f"{a}-{b}"}
    rec.verdict, rec.rule = WITHIN_BUDGET, Note(c.OVER_BUDGET, values)
