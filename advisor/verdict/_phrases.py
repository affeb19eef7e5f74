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
from advisor.verdict._codes import HIERARCHICAL

if TYPE_CHECKING:
    from advisor.verdict._cost import CostComparison
    from advisor.verdict._efficiency import DataEfficiency
    from advisor.verdict._fit import Extrapolation
    from advisor.verdict._gaps import ScoreGap
    from advisor.verdict._headroom import Headroom
    from advisor.verdict._slices import SliceFinding
    from advisor.verdict._thresholds import Thresholds

__all__ = [
    "FAR_FACTOR",
    "budget_text",
    "efficiency_sentence",
    "extrapolation_sentence",
    "gap_sentence",
    "headroom_sentence",
    "mag",
    "percent",
    "prob_text",
    "provenance_text",
    "pts",
    "resolution_text",
    "slice_findings_text",
    "slice_sentence",
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


def prob_text(gap: ScoreGap) -> str:
    """ "; P(contextual − static > 1.0 pts) = 97 %" from the same resampling as the interval."""
    if not math.isfinite(gap.prob_above):
        return ""
    return f"; P({gap.a} − {gap.b} > {mag(gap.loss)}) = {percent(gap.prob_above)}"


def gap_sentence(gap: ScoreGap) -> str:
    """The full-data scores of a pair, their gap, its interval and P(gap > acceptable loss)."""
    ci = f" ({gap.confidence:.0%} CI {pts(gap.lo)} to {pts(gap.hi)}, {gap.method}, n={gap.n_seeds} seeds)"
    if not gap.has_interval:
        ci = f" (no interval: {gap.method})"
    return (
        f"At {gap.size} training items (the largest size judged) {gap.a} scores {gap.score_a:.3f} vs {gap.b} {gap.score_b:.3f}: "
        f"gap {pts(gap.gap)}{ci}{prob_text(gap)}."
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
            f"{e.baseline.capitalize()} scores {e.target:.3f} with all {e.full_size} items (it learned nothing), "
            f"so matching it says nothing: no data-efficiency ratio of {e.embedding} against {e.baseline}."
        )
    if e.status == "never":
        return f"{e.embedding.capitalize()} never reaches {e.baseline}'s full-data score ({e.target:.3f}), even with all {e.full_size} items."
    ci = _efficiency_interval(e)
    if e.censored:
        return (
            f"{who.capitalize()} already at the smallest size tried: it needs at most 1/{e.ratio:.1f} "
            f"of the data; censored: matched at the smallest size tried, {int(e.size_needed):,} items, "
            f"so the true share may be smaller{ci}."
        )
    return f"{who.capitalize()} with about {e.size_needed:.0f} items: it needs {_ratio_text(e.ratio)} of the data{ci}."


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
        amount = f"more than {FAR_FACTOR:g}× the {x.full_size} labelled items used"
    else:
        amount = f"about {x.items_needed:,.0f} labelled items ({x.factor:.1f}× the {x.full_size} used)"
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
        f"{g.score_b:.3f} frozen at {g.size} training items ({g.n_seeds} seed(s)); training "
        f"{h.finetuned_train_seconds:.0f} s vs {h.contextual_train_seconds:.0f} s for the frozen "
        "downstream model"
    )
    if math.isfinite(h.contextual_encode_seconds):
        text += f" + {h.contextual_encode_seconds:.0f} s encoding train/dev/test once from raw text"
    if math.isfinite(h.latency_ratio):
        text += f"; serving latency (batch 1) {h.latency_ratio:.1f}× the frozen encoder's"
    return text + "."


def slice_sentence(s: SliceFinding) -> str:
    """Whether a pair's gap is carried by the difficult or the easy items of one difficulty metric."""
    a, b = s.pair.split("-", 1)
    what = f"{s.metric}, {a} vs {b}"
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
        text = f"{metric} against {' and '.join(against)}"
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
    sample, single = p.get("sample_size", "?"), p.get("batch1_items", p.get("sample_size", "?"))
    text = (
        f"measured from raw text on {p.get('device', '?')}, {p.get('torch_threads', '?')} thread(s)"
        f"{_precision_text(costs.conditions or {})}, batch 1 on {single} of the {sample} test items and batch 64 "
        f"on all {sample}, {_repeats_text(p, costs.conditions or {})}"
    )
    return text + _load_text(costs.conditions or {})


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
