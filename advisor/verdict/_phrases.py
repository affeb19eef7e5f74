"""The renderer's phrases: how numbers read, and one sentence per result (a gap, a data-efficiency
ratio, an extrapolation, the fine-tuning headroom, a difficulty slice, the cost's provenance).

One place for the wording, so the CLI, the report and the app say the same thing; the verdict's
sentences are put together from these in :mod:`advisor.verdict._wording`. The result types are
imported for type checking only: they call back here from their ``describe()``, and this module
depends on nothing of the verdict but its codes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from scipy.special import stdtrit  # the Student-t quantile; scipy.stats costs seconds to import

from advisor.stats import share_percent
from advisor.verdict._codes import HIERARCHICAL, NOT_WORTH, WORTH_IT

if TYPE_CHECKING:
    from advisor.verdict._cost import CostComparison
    from advisor.verdict._efficiency import DataEfficiency
    from advisor.verdict._fit import Extrapolation
    from advisor.verdict._gaps import ScoreGap
    from advisor.verdict._headroom import Headroom
    from advisor.verdict._sequential import EarlyVerdict
    from advisor.verdict._slices import SliceFinding
    from advisor.verdict._thresholds import Thresholds

__all__ = [
    "FAR_FACTOR",
    "budget_headline",
    "budget_text",
    "ci_text",
    "cost_inputs_text",
    "early_verdict_line",
    "efficiency_sentence",
    "extrapolation_sentence",
    "gap_sentence",
    "headroom_sentence",
    "latency_budget_text",
    "mag",
    "money",
    "percent",
    "prob_text",
    "provenance_text",
    "pts",
    "resolution_text",
    "slice_findings_text",
    "slice_sentence",
    "tradeoff_sentence",
    "worth_headline",
]

#: Beyond this multiple of the data, extrapolated item counts are reported as "more than" only.
FAR_FACTOR = 100.0


def pts(score: float) -> str:
    """Score difference in points (0.034 -> '+3.4 pts')."""
    return "n/a" if not math.isfinite(score) else f"{100 * score:+.1f} pts".replace("+0.0 ", "0.0 ")


def mag(score: float) -> str:
    """A score amount in points, unsigned (0.01 -> '1.0 pts')."""
    return f"{100 * score:.1f} pts"


def percent(p: float) -> str:
    """Probabilities near 0 or 1 are not printed as certainties the bootstrap cannot resolve."""
    if p > 0.999:
        return "> 99.9 %"
    if p < 0.001:
        return "< 0.1 %"
    return f"{100 * p:.0f} %" if 0.01 <= p <= 0.99 else f"{100 * p:.1f} %"


def is_percent(p: float) -> str:
    """ "= 97 %", or "> 99.9 %" / "< 0.1 %" alone where the bootstrap cannot resolve it (never "= > 99.9 %")."""
    text = percent(p)
    return text if text[0] in "<>" else f"= {text}"


def prob_text(gap: ScoreGap) -> str:
    """ "; P(contextual − static > 1.0 pts) = 97 %" from the same resampling as the interval."""
    if not math.isfinite(gap.prob_above):
        return ""
    return f"; P({gap.a} − {gap.b} > {mag(gap.loss)}) {is_percent(gap.prob_above)}"


def gap_sentence(gap: ScoreGap) -> str:
    """The full-data scores of a pair, their gap, its interval and P(gap > acceptable loss)."""
    ci = f" ({gap.confidence:.0%} CI {pts(gap.lo)} to {pts(gap.hi)}, {gap.method}, n={gap.n_seeds} seeds)"
    if not gap.has_interval:
        ci = f" (no interval: {gap.method})"
    return (
        f"At {gap.size:,} training items (the largest size judged) {gap.a} scores {gap.score_a:.3f} vs {gap.b} {gap.score_b:.3f}: "
        f"gap {pts(gap.gap)}{ci}{prob_text(gap)}."
    )


def early_verdict_line(early: EarlyVerdict, done: int, total: int) -> str:
    """The line printed and logged after each round of a ``--until decided`` run (issue 31's wording)."""
    p = f"{early.prob_above:.2f}" if math.isfinite(early.prob_above) else "unknown"
    state = "settled" if early.settled else "refining"
    seeds = " (one seed: test items only)" if early.items_only else ""
    return (
        f"early verdict after {done} of {total} cells: {early.verdict.upper()}, "
        f"P(gap > loss) = {p}{seeds} — {state}"
    )


def resolution_text(gap: ScoreGap, more_seeds: int = 2) -> str:
    """What would narrow the interval: more seeds, or (when items dominate) a larger test set."""
    now = gap.half_width
    projected = gap.projected_half_width(more_seeds)
    if not (math.isfinite(now) and math.isfinite(projected)):
        return "more seeds (at least 2 per embedding) would give an interval"
    text = (
        f"{more_seeds} more seeds would narrow the interval to about ±{100 * projected:.1f} pts "
        f"(now ±{100 * now:.1f} pts)"
    )
    if gap.method == HIERARCHICAL and math.isfinite(gap.sd_items):
        floor = float(stdtrit(10**6, 0.5 + gap.confidence / 2)) * gap.sd_items
        text += (
            f"; test-set sampling alone keeps it at ±{100 * floor:.1f} pts, so beyond that only a larger "
            "evaluation set narrows it"
        )
    return text


def budget_text(t: Thresholds, full_size: int) -> str:
    """The labelling budget in items (and money, when labelling has a price)."""
    items = t.labelling_budget(full_size)
    explicit = t.labelling_budget_items is not None or t.labelling_budget_money is not None
    text = f"{items:,.0f} extra items" + ("" if explicit else " (default: doubling the training set)")
    if t.label_cost:
        text += f", ≈ {items * t.label_cost:,.2f} at {t.label_cost:g} per item"
    return text


def _ratio_text(ratio: float) -> str:
    if not math.isfinite(ratio):
        return "an unbounded share"
    if ratio <= 0:
        return "more than all"
    return f"1/{ratio:.1f}"


def _efficiency_interval(e: DataEfficiency) -> str:
    """The interval in shares of the data; an end at the smallest size tried is open, not a point."""
    if not (math.isfinite(e.ratio_lo) and math.isfinite(e.ratio_hi)):
        return ""
    never = f"; never matched in {share_percent(e.share_never)} of resamples" if e.share_never > 0 else ""
    if not e.at_edge(e.ratio_hi):
        lo, hi = _ratio_text(e.ratio_lo), _ratio_text(e.ratio_hi)
        return f" ({e.confidence:.0%} CI {lo} to {hi}{never})"
    edge = f"matched at the smallest size tried in {share_percent(e.share_bound)} of resamples{never}"
    if e.at_edge(e.ratio_lo):
        return f" ({edge})"
    most = f"at most {_ratio_text(e.ratio_lo)}" if e.ratio_lo > 0 else "up to more than all"
    return f" ({e.confidence:.0%} CI: {most} of the data, its other end censored: {edge})"


def efficiency_sentence(e: DataEfficiency) -> str:
    """One plain sentence, honest about bounds and non-matches."""
    who = f"{e.embedding} reaches {e.baseline}'s full-data score ({e.target:.3f})"
    if e.status == "undetermined":
        return f"Whether {who} with less data cannot be determined (too few sizes or seeds)."
    if e.status == "nothing to match":
        return (
            f"{e.baseline.capitalize()} scores {e.target:.3f} with all {e.full_size:,} items (it learned nothing), "
            f"so matching it says nothing: no data-efficiency ratio of {e.embedding} against {e.baseline}."
        )
    if e.status == "never":
        return f"{e.embedding.capitalize()} never reaches {e.baseline}'s full-data score ({e.target:.3f}), even with all {e.full_size:,} items."
    ci = _efficiency_interval(e)
    if e.censored:
        return (
            f"{who.capitalize()} already at the smallest size tried: it needs at most 1/{e.ratio:.1f} "
            f"of the data; censored: matched at the smallest size tried, {int(e.size_needed):,} items, "
            f"so the true share may be smaller{ci}."
        )
    return f"{who.capitalize()} with about {e.size_needed:,.0f} items: it needs {_ratio_text(e.ratio)} of the data{ci}."


def extrapolation_sentence(x: Extrapolation) -> str:
    """How many labelled items the fit says ``x.embedding`` needs, and why (not) to believe it."""
    if x.status == "no fit":
        return f"No learning curve could be fitted for {x.embedding}, so no extrapolation."
    if x.status == "flat":
        return (
            f"{x.embedding.capitalize()}'s curve is flat ({x.level:.3f} at every size): no extrapolation "
            f"(no trend says how much data would bring it to {x.target:.3f})."
        )
    if x.status == "not reachable":
        return (
            f"The {x.model} fit of {x.embedding} levels off below {x.target:.3f}: "
            "more labelled data is not predicted to reach it."
        )
    if x.status == "reached":
        return f"{x.embedding.capitalize()} already reaches {x.target:.3f} with the data it had."
    tag = "" if x.reliable else " (unreliable: " + "; ".join(x.reasons) + ")"
    if x.factor > FAR_FACTOR:  # a number like 1,286,364,657 items would only suggest false precision
        amount = f"more than {FAR_FACTOR:g}× the {x.full_size:,} labelled items used"
    else:
        amount = f"about {x.items_needed:,.0f} labelled items ({x.factor:.1f}× the {x.full_size:,} used)"
    return f"The {x.model} fit predicts {x.embedding} reaches {x.target:.3f} with {amount}{tag}."


def headroom_sentence(h: Headroom) -> str:
    """What fine-tuning adds over the frozen encoder, at what training (and serving) cost."""
    g = h.gap
    ci = (
        f"{g.confidence:.0%} CI {100 * g.lo:+.1f} to {100 * g.hi:+.1f}"
        if g.has_interval
        else f"no interval: {g.method}"
    )
    verb = "would add" if g.gap >= 0 else "would change the score by"
    cost = f"{h.train_ratio:.1f}× the training cost" if math.isfinite(h.train_ratio) else "unknown cost"
    text = (
        f"Fine-tuning {verb} {100 * g.gap:+.1f} pts ({ci}) at {cost}: the fine-tuned encoder scores {g.score_a:.3f} vs "
        f"{g.score_b:.3f} frozen at {g.size:,} training items ({g.n_seeds} seed(s)); training "
        f"{h.finetuned_train_seconds:,.0f} s vs {h.contextual_train_seconds:,.0f} s for the frozen "
        "downstream model"
    )
    if math.isfinite(h.contextual_encode_seconds):
        text += f" + {h.contextual_encode_seconds:.0f} s encoding train/dev/test once from raw text"
    if math.isfinite(h.latency_ratio):
        text += f"; serving latency (batch 1) {h.latency_ratio:.1f}× the frozen encoder's"
    return text + "."


def _metric_label(metric: str) -> str:
    """A difficulty metric as prose names it: ``pair_overlap (difficult = low overlap)`` says which end
    its difficult items are when that is the low one (:func:`advisor.difficulty.metric_label`)."""
    from advisor.difficulty import metric_label

    return metric_label(metric)


def slice_sentence(s: SliceFinding) -> str:
    """Whether a pair's gap is carried by the difficult or the easy items of one difficulty metric."""
    a, b = s.pair.split("-", 1)
    what = f"{_metric_label(s.metric)}, {a} vs {b}"
    if not (s.n_difficult and s.n_easy):
        return f"{what}: cannot be split into difficult and easy items on this data, so no claim."
    gaps = (
        f"{a}-minus-{b} gap {pts(s.gap_difficult)} on {s.n_difficult} difficult vs "
        f"{pts(s.gap_easy)} on {s.n_easy} easy items"
    )
    ci = f"difference {pts(s.difference)}, CI {pts(s.lo)} to {pts(s.hi)}"
    if math.isfinite(s.p_holm):
        ci += f", Holm-adjusted p {s.p_holm:.3f}"
    if s.carried_by == "difficult":
        return f"{what}: the gap is carried by difficult items ({gaps}; {ci})."
    if s.carried_by == "easy":
        return f"{what}: the gap is larger on easy items ({gaps}; {ci})."
    return f"{what}: no clear difference between difficult and easy items ({gaps}; {ci})."


def _slice_state(s: SliceFinding) -> str:
    """What one comparison found, as a short clause ("no significant difference, Holm-adjusted p 0.140")."""
    if not (s.n_difficult and s.n_easy):
        return "cannot be split"
    state = {"difficult": "larger on difficult items", "easy": "larger on easy items"}.get(
        s.carried_by, "no significant difference"
    )
    return state + (f", Holm-adjusted p {s.p_holm:.3f}" if math.isfinite(s.p_holm) else "")


def slice_findings_text(slices: Sequence[SliceFinding], findings: Sequence[tuple[str, str]]) -> str:
    """ "ambiguity against random (against static: no significant difference, Holm-adjusted p 0.140)":
    each metric with the families its finding holds against, and what the other comparisons found."""
    parts = []
    for metric in dict.fromkeys(m for m, _ in findings):
        against = [b for m, b in findings if m == metric]
        others = [s for s in slices if s.metric == metric and s.pair.split("-", 1)[1] not in against]
        text = f"{_metric_label(metric)} against {' and '.join(against)}"
        if others:
            text += (
                " ("
                + "; ".join(f"against {s.pair.split('-', 1)[1]}: {_slice_state(s)}" for s in others)
                + ")"
            )
        parts.append(text)
    return "; ".join(parts)


def provenance_text(costs: CostComparison) -> str:
    """How the serving numbers were measured, in one phrase: device, threads, precision, the items each
    batch size was timed on, how the timings were repeated and the machine's load."""
    p = costs.provenance or {}
    if not costs.serving_measured:
        return (
            "estimated from featurization time + model inference logged during training, which depends on the "
            "feature cache"
        )
    text = (
        f"measured from raw text on {p.get('device', '?')}, {p.get('torch_threads', '?')} thread(s)"
        f"{_precision_text(costs.conditions or {})}, {_items_text(p)}, {_repeats_text(p, costs.conditions or {})}"
    )
    return text + _load_text(costs.conditions or {})


def _items_text(p: dict) -> str:
    """Which test items each batch size was timed on: the same ones, or (runs measured before both batch
    sizes shared the sample) batch 1 on a prefix of it."""
    sample = p.get("sample_size", "?")
    single = p.get("batch1_items", sample)
    if single == sample:
        return f"batch 1 and batch 64 on the same {sample} test items"
    return f"batch 1 on {single} of the {sample} test items and batch 64 on all {sample}"


def _precision_text(conditions: dict) -> str:
    """ ", float32" or ", float32 (contextual bfloat16)"; nothing for runs that did not record it."""
    precision = conditions.get("precision") or {}
    if not precision:
        return ""
    common = max(set(precision.values()), key=list(precision.values()).count)
    others = ", ".join(f"{name} {kind}" for name, kind in precision.items() if kind != common)
    return f", {common}" + (f" ({others})" if others else "")


def _repeats_text(p: dict, conditions: dict) -> str:
    """ "median of the last 3 timings after warm-up, repeated until they agreed within 10 % (at most 12
    timings; widest spread kept 4 %)"; older runs: a fixed number of timings."""
    text = f"median of {'the last ' if 'stable_within' in p else ''}{p.get('repeats', '?')} timings after warm-up"
    if "stable_within" not in p:
        return text
    text += f", repeated until they agreed within {share_percent(float(p['stable_within']))}"
    spread = conditions.get("max_spread")
    kept = f"; widest spread kept {share_percent(float(spread))}" if spread is not None else ""
    return text + f" (at most {p.get('max_runs', '?')} timings{kept})"


def _load_text(conditions: dict) -> str:
    """ ", load average 1.2 on 16 CPUs at the start": a busy machine slows every timing."""
    load = conditions.get("load_average")
    if load is None:
        return ""
    cpus = conditions.get("cpu_count")
    return f", load average {float(load):.1f}" + (f" on {cpus} CPUs" if cpus else "") + " at the start"


# -- the cost side (advisor.verdict._worth): the trade-off, worth it, the latency budget ---------------


def money(amount: float) -> str:
    """ "$1,234", "$3.40", "$0.0042": money the way a budget line reads it (negative: "-$3.40")."""
    sign, value = ("-" if amount < 0 else ""), abs(amount)
    if value >= 100:
        return f"{sign}${value:,.0f}"
    return f"{sign}${value:.2f}" if value >= 0.1 else f"{sign}${value:.2g}"


def latency_budget_text(t: Thresholds) -> str:
    """ "10 ms/item at batch 1", or "none"."""
    return (
        "none"
        if t.latency_budget_ms is None
        else f"{t.latency_budget_ms:g} ms/item at batch {t.latency_batch}"
    )


def cost_inputs_text(t: Thresholds) -> str:
    """ ", price $2.00 per machine-hour, volume 10,000,000 items a month": the cost inputs given, if any."""
    parts = (
        ("price", t.price_per_hour, lambda v: f"{money(v)} per machine-hour"),
        ("volume", t.monthly_items, lambda v: f"{v:,.0f} items a month"),
        ("value", t.value_per_point, lambda v: f"{money(v)} per point per 1M items"),
    )
    return "".join(f", {label} {text(value)}" for label, value, text in parts if value is not None)


def _cost(amount: float, priced: bool) -> str:
    """Serving cost per 1M items: money at the user's price, else machine-hours."""
    return money(amount) if priced else f"{amount:,.3g} machine-hours"


def ci_text(gap: ScoreGap) -> str:
    """ "+1.9 pts (95% CI +1.0 to +2.9)": a gap and its interval, in points."""
    if not gap.has_interval:
        return f"{pts(gap.gap)} (no interval)"
    return f"{pts(gap.gap)} ({gap.confidence:.0%} CI {100 * gap.lo:+.1f} to {100 * gap.hi:+.1f})"


def _serving_clause(v: dict) -> str:
    """ ": $0.34 more per 1M items (batch-64 throughput on cpu, 4 threads, at $2 per machine-hour; $3.40
    more a month at 10,000,000 items)"; nothing when the batch-64 pass was not measured."""
    extra, priced = v["extra"], v["price"] is not None
    if not math.isfinite(extra):
        return ""
    more = "more" if extra >= 0 else "less"
    on = f" on {v['setup']}" if v["setup"] else ""
    how = (
        f"at {money(v['price'])} per machine-hour"
        if priced
        else "no --price-per-hour given: multiply by yours"
    )
    text = f": {_cost(abs(extra), priced)} {more} per 1M items (batch-64 throughput{on}, {how}"
    if math.isfinite(v["per_month"]):
        text += f"; {_cost(abs(v['per_month']), priced)} {more} a month at {v['monthly_items']:,.0f} items"
    return text + ")"


def _labels_clause(v: dict, cheap: str, loss: float) -> str:
    """The labelling alternative: how many more items the cheap family needs, at what price."""
    status = v.get("label_status")
    if status == "not reachable":
        return f" Labelling more is not predicted to bring {cheap} within {mag(loss)} of contextual."
    if v.get("label_far"):
        return f" Labelling more for {cheap} would take more than {FAR_FACTOR:g}× the data used."
    if "label_items" not in v:
        return ""
    tag = "" if v["label_reliable"] else " (unreliable fit)"
    text = f" Or label ~{v['label_items']:,.0f} more items for {cheap}{tag} to come within {mag(loss)} of contextual"
    if "label_money" in v:
        text += f" ({money(v['label_money'])} at {money(v['label_cost'])} per item"
        if "payback_months" in v:
            text += f", as much as {v['payback_months']:,.1f} months of contextual's extra serving"
        text += ")"
    return text + "."


def tradeoff_sentence(v: dict, gap: ScoreGap, loss: float) -> str:
    """The trade-off a manager can act on: the gap for the latency multiple, the extra serving cost per
    1M items, the break-even value of a point, and the labelling alternative for the cheap family."""
    latency = (
        f" for {v['ratio']:.1f}× the serving latency (batch {v['batch']})"
        if math.isfinite(v["ratio"])
        else ""
    )
    text = f"Trade-off: {ci_text(gap)}{latency}{_serving_clause(v)}"
    priced = v["price"] is not None
    if math.isfinite(v["break_even"]):
        text += f"; worth it if one point is worth ≥ {_cost(v['break_even'], priced)} per 1M items"
    elif gap.gap <= 0 and math.isfinite(v["extra"]):
        text += "; contextual is no more accurate here, so the extra cost buys nothing"
    return text + "." + _labels_clause(v, gap.b, loss)


def worth_headline(code: str, gap: ScoreGap, value: float, v: dict) -> str:
    """Contextual against ``gap.b`` decided in money: its advantage's interval ends, valued at ``value``
    per point per 1M items, against its extra serving cost per 1M items (``v``: the trade-off)."""
    extra, b = v["extra"], gap.b
    at = f"at {money(value)} per point per 1M items"
    if code == WORTH_IT:
        return (
            f"Use contextual embeddings: they are worth their cost — even the low end of their advantage over {b} "
            f"({pts(gap.lo)}) is worth {money(value * 100 * gap.lo)} per 1M items {at}, more than the "
            f"{money(extra)} more they cost to serve."
        )
    if code == NOT_WORTH:
        return (
            f"Use {b} embeddings: contextual's advantage is not worth its cost — even its high end "
            f"({pts(gap.hi)}) is worth {money(value * 100 * gap.hi)} per 1M items {at}, less than the "
            f"{money(extra)} more contextual costs to serve."
        )
    if not gap.has_interval:
        return f"Inconclusive: no interval for contextual's advantage over {b}, so its worth {at} is not decided."
    return (
        f"Inconclusive: {at}, contextual's advantage over {b} is worth {money(value * 100 * gap.lo)} to "
        f"{money(value * 100 * gap.hi)} per 1M items ({gap.confidence:.0%} CI), which straddles the "
        f"{money(extra)} more it costs to serve; more seeds or a larger test set would narrow it."
    )


def budget_headline(v: dict, gap: ScoreGap | None) -> str:
    """The latency budget decided: what is over it, and the best family within it with its gap."""
    unit = f"ms/item at batch {v['batch']}"
    latency = v["latency"]
    if "fastest" in v:
        fastest = v["fastest"]
        return (
            f"Nothing fits your latency budget of {v['budget']:g} {unit}: the fastest family, {fastest}, serves "
            f"at {latency[fastest]:.2f} ms/item; raise the budget, serve on faster hardware or use a smaller encoder."
        )
    family, rival = v["family"], v["rival"]
    over = ", ".join(f"{name} ({latency[name]:.2f} ms/item)" for name in v["over"])
    verb = "is" if len(v["over"]) == 1 else "are"
    text = (
        f"Use {family} embeddings: {over} {verb} over your latency budget of {v['budget']:g} {unit}, so "
        f"cannot be the recommendation; {family} fits ({latency[family]:.2f} ms/item) and is the best within it"
    )
    if gap is None:
        return text + "."
    sign = 1 if gap.a == family else -1  # stated as family minus rival
    diff = f"{pts(sign * gap.gap)}"
    if gap.has_interval:
        lo, hi = sorted((sign * gap.lo, sign * gap.hi))
        diff += f" ({gap.confidence:.0%} CI {100 * lo:+.1f} to {100 * hi:+.1f})"
    return text + f": it scores {diff} against {rival}."
