"""The one renderer of the verdict: the decision's codes and numbers in sentences.

:func:`render` gives a :class:`Wording` (headline, reasons, the slices carrying the gap, caveats and
the thresholds line) that the CLI prints, the report and the app show and ``verdict.json`` stores.
The decision (:mod:`advisor.verdict._recommend`) never builds a sentence: it states a rule and
notes (:mod:`advisor.verdict._codes`), so a sentence can be reworded here without touching it.
The record is imported for type checking only: it asks this module for its words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.verdict import _codes as c
from advisor.verdict._codes import Note
from advisor.verdict._convergence import under_trained_caveat
from advisor.verdict._coverage import (
    at_majority,
    few_fit_sizes,
    judged_below,
    learned_nothing,
    run_status,
    settled_early,
    settled_headline,
    time_budget,
)
from advisor.verdict._phrases import (
    budget_headline,
    budget_text,
    cost_inputs_text,
    efficiency_sentence,
    extrapolation_sentence,
    gap_sentence,
    headroom_sentence,
    is_percent,
    latency_budget_text,
    mag,
    prob_text,
    provenance_text,
    pts,
    resolution_text,
    slice_findings_text,
    slice_sentence,
    tradeoff_sentence,
    worth_headline,
)
from advisor.vocabulary import family_label

if TYPE_CHECKING:
    from advisor.verdict._gaps import ScoreGap
    from advisor.verdict._recommendation import Recommendation

__all__ = ["Wording", "caveats", "headline", "reasons", "render"]

#: Labels of the cost ratios in the reasons' cost sentence.
RATIO_LABELS: dict[str, str] = {
    "latency_ms_per_item": "serving latency (batch 1)",
    "batch_ms_per_item": "serving time at batch 64",
    "serving_memory_mb": "serving memory",
    "peak_memory_mb": "peak memory",
    "train_seconds": "training time (downstream model)",
    "embedding_mb": "embedding size",
}


@dataclass(frozen=True)
class Wording:
    """The verdict in sentences, for every place that shows it (the terminal, the report, the app)."""

    verdict: str
    headline: str
    reasons: list[str]
    carrying: list[str]  # sentences of the difficulty slices carrying contextual's advantage
    easier: list[str]  # sentences of the slices where contextual's advantage is larger on easy items
    caveats: list[str]
    thresholds: str  # the thresholds line
    budget: str  # the labelling budget considered
    slices: list[str]  # one sentence per difficulty finding (``rec.slices``)
    efficiency: list[str]  # one per data-efficiency ratio (``rec.efficiency``)
    extrapolations: list[str]  # one per extrapolation (``rec.extrapolations``)
    headroom: str | None  # the fine-tuning headroom, when the reference ran
    provenance: str | None  # how the serving costs were measured, when there are costs

    def summary_lines(self) -> list[str]:
        """Plain lines for the terminal: verdict, reasons, caveats, thresholds."""
        lines = [f"Verdict: {self.verdict.upper()}", self.headline, ""]
        lines += [f"- {reason}" for reason in self.reasons]
        if self.carrying:
            lines.append("")
            lines.append("Difficulty slices carrying the gap:")
            lines += [f"- {s}" for s in self.carrying]
        if self.easier:
            lines.append("")
            lines.append("Difficulty slices where the gap is larger on easy items:")
            lines += [f"- {s}" for s in self.easier]
        if self.caveats:
            lines.append("")
            lines += [f"! {caveat}" for caveat in self.caveats]
        return [*lines, "", self.thresholds]


def render(rec: Recommendation) -> Wording:
    """Every sentence of ``rec``."""
    return Wording(
        verdict=rec.verdict,
        headline=headline(rec),
        reasons=reasons(rec),
        carrying=[slice_sentence(s) for s in rec.carrying_slices],
        easier=[slice_sentence(s) for s in rec.slices if s.carried_by == "easy"],
        caveats=caveats(rec),
        thresholds=thresholds_line(rec),
        budget=budget_text(rec.thresholds, rec.full_size),
        slices=[slice_sentence(s) for s in rec.slices],
        efficiency=[efficiency_sentence(e) for e in rec.efficiency],
        extrapolations=[extrapolation_sentence(x) for x in rec.extrapolations],
        headroom=headroom_sentence(rec.headroom) if rec.headroom is not None else None,
        provenance=provenance_text(rec.costs) if rec.costs is not None else None,
    )


def thresholds_line(rec: Recommendation) -> str:
    """The thresholds the verdict was judged under, in one line."""
    t = rec.thresholds
    return (
        f"Thresholds: acceptable loss {mag(t.acceptable_loss)}, latency budget {latency_budget_text(t)}, "
        f"labelling budget {budget_text(t, rec.full_size)}, {t.confidence:.0%} intervals, "
        f"extrapolation ≤ {t.max_extrapolation:g}×{cost_inputs_text(t)}."
    )


# -- the headline --------------------------------------------------------------------------------


def headline(rec: Recommendation) -> str:
    """The verdict and the numbers that decided it, in one sentence; then contextual's trade-off, if costed."""
    text = _HEADLINES[rec.rule.code](rec, rec.rule)
    if rec.tradeoff is None or rec.rule.code in (c.OVER_BUDGET, c.NONE_FITS):
        return text
    gap = _stated_gap(rec, rec.tradeoff)
    return f"{text} {tradeoff_sentence(rec.tradeoff.values, gap, rec.thresholds.acceptable_loss)}"


def _stated_gap(rec: Recommendation, note: Note) -> ScoreGap:
    gap = rec.gap(note["pair"])
    assert gap is not None, f"the rule names a gap the record lacks: {note}"
    return gap


def _not_judged(rec: Recommendation, note: Note) -> str:
    return "Inconclusive: " + "; ".join(_problem(p) for p in rec.problems) + "."


def _enough(rec: Recommendation, note: Note) -> str:
    """ "<Family> are enough": the upper end of the stated gap's interval is within the loss."""
    g, t = _stated_gap(rec, note), rec.thresholds
    what = family_label(note["family"])
    if note["against"] == "costlier":
        return (
            f"{what} are enough: {_at_most('costlier embeddings score', g.hi, t.confidence)}, "
            f"within the {mag(t.acceptable_loss)} you accept to lose{prob_text(g)}."
        )
    return (
        f"{what} are enough: {_at_most('contextual scores', g.hi, t.confidence)}; "
        f"estimate {pts(g.gap)}, within the {mag(t.acceptable_loss)} you accept to lose{prob_text(g)}"
        f"{_serving_share(note['share'])}."
    )


def _at_most(subject: str, upper: float, confidence: float) -> str:
    """How much better a costlier embedding can be, from the upper end of its gap interval."""
    if upper <= 0:
        return f"{subject} no higher (upper {confidence:.0%} bound of the gap {pts(upper)})"
    return f"{subject} higher by at most {mag(upper)} (upper {confidence:.0%} bound)"


def _serving_share(share: float) -> str:
    """ ", at 3 % of contextual's serving latency (batch 1)" when both were measured."""
    if not math.isfinite(share):
        return ""
    amount = f"{100 * share:.2g} % of" if share < 1 else f"{share:.1f}×"
    return f", at {amount} contextual's serving latency (batch 1)"


def _contextual_wins(rec: Recommendation, note: Note) -> str:
    cs, t = _stated_gap(rec, note), rec.thresholds
    return (
        f"Use contextual embeddings: they beat {cs.b} by {pts(cs.gap)} "
        f"({t.confidence:.0%} CI {pts(cs.lo)} to {pts(cs.hi)}), more than the {mag(t.acceptable_loss)} you accept to lose"
        f"{prob_text(cs)}."
    )


def _catch_up(rec: Recommendation, note: Note) -> str:
    t, extra = rec.thresholds, note["extra_items"]
    cost = f" (≈ {extra * t.label_cost:,.2f} at {t.label_cost:g} per item)" if t.label_cost else ""
    return (
        f"Label more data instead: {note['embedding']} is predicted to come within {mag(t.acceptable_loss)} of "
        f"contextual's full-data score with about {extra:,.0f} more labelled items{cost}, "
        f"within your budget of {budget_text(t, rec.full_size)}."
    )


def _inconclusive(rec: Recommendation, note: Note) -> str:
    """Why the contextual gap decides nothing, which way it leans, and what would resolve it."""
    cs, t = _stated_gap(rec, note), rec.thresholds
    if note.code == c.NO_INTERVAL:
        why = "no interval could be computed for the contextual gap"
    else:
        why = (
            f"the {t.confidence:.0%} interval of contextual's advantage over {cs.b} "
            f"({pts(cs.lo)} to {pts(cs.hi)}) straddles the {mag(t.acceptable_loss)} you accept to lose"
        )
    lean = _lean(cs, note["lean"])
    return (
        f"Inconclusive: {why}" + (f"; it {lean}" if lean else "") + f". {_resolve(cs, note['seeds_needed'])}."
    )


def _lean(gap: ScoreGap, lean: str | None) -> str:
    """Which way an inconclusive comparison leans, in words."""
    if lean is None:
        return ""
    side = {"a": f"leans towards {gap.a}", "b": f"leans towards {gap.b} being enough"}.get(
        lean, "leans neither way"
    )
    return f"{side}: P({gap.a}'s advantage > {mag(gap.loss)}) {is_percent(gap.prob_above)}"


def _resolve(gap: ScoreGap, seeds_needed: float) -> str:
    """What would make an inconclusive comparison decide, from the interval's variance parts."""
    text = "What would resolve it: " + resolution_text(gap)
    if math.isinf(seeds_needed):
        return text + (
            "; if the estimate holds, no number of seeds decides it with this test set (the gap sits within "
            "test-set noise of the acceptable loss)"
        )
    if math.isfinite(seeds_needed) and seeds_needed > gap.n_seeds:
        needed = int(seeds_needed)
        text += f"; if the estimate holds, about {needed} seeds in all ({needed - gap.n_seeds} more) would decide it"
    return text


def _stopped_early(rec: Recommendation, note: Note) -> str:
    cs = _stated_gap(rec, note)
    return (
        f"Inconclusive: the run stopped before its largest size ({int(note['cut_from']):,} items); at {rec.full_size:,} items "
        f"contextual leads {cs.b} by {pts(cs.gap)} ({pts(cs.lo)} to {pts(cs.hi)}), but {cs.b} may catch up "
        "with the training data not used yet; resume the run."
    )


def _worth(rec: Recommendation, note: Note) -> str:
    assert rec.tradeoff is not None, "a worth rule needs the trade-off's numbers"
    return worth_headline(note.code, _stated_gap(rec, note), note["value"], rec.tradeoff.values)


def _latency_budget(rec: Recommendation, note: Note) -> str:
    return budget_headline(note.values, rec.gap(note["pair"]) if "pair" in note.values else None)


_HEADLINES: dict[str, Callable[[Recommendation, Note], str]] = {
    c.NOT_JUDGED: _not_judged,
    c.ENOUGH: _enough,
    c.CONTEXTUAL_WINS: _contextual_wins,
    c.CATCH_UP: _catch_up,
    c.STRADDLES: _inconclusive,
    c.NO_INTERVAL: _inconclusive,
    c.STOPPED_EARLY: _stopped_early,
    c.SETTLED: settled_headline,
    c.WORTH_IT: _worth,
    c.NOT_WORTH: _worth,
    c.WORTH_UNCLEAR: _worth,
    c.OVER_BUDGET: _latency_budget,
    c.NONE_FITS: _latency_budget,
}


def _nothing_learned(score: float) -> str:
    """Every family scored the same at every size and seed (F1 0.0 on a task none of them learned)."""
    if score == 0:
        return "no family learned this task at these sizes: every score is 0.0 — check the labels or add data"
    return (
        f"every family scores {score:.3f} at every size and seed, so none learned more than another at these "
        "sizes — check the labels or add data"
    )


def _problem(note: Note) -> str:
    """Why no verdict can be given, as a clause."""
    if note.code == c.NO_CONTEXTUAL:
        return "the run has no finished contextual cell, so there is nothing to weigh it against"
    if note.code == c.ONLY_CONTEXTUAL:
        return "the run has only the contextual embedding, so there is nothing to compare it with"
    if note.code == c.FEW_SIZES:
        return f"only {note['n']} training size(s) finished (need {note['need']})"
    if note.code == c.NOTHING_LEARNED:
        return _nothing_learned(note["score"])
    thin = ", ".join(f"{e} ({n})" for e, n in note["thin"].items())
    return f"too few seeds at full data for an interval: {thin} (need {note['need']} per embedding)"


# -- reasons and caveats -------------------------------------------------------------------------


def reasons(rec: Recommendation) -> list[str]:
    """The sentences that led to the verdict: failed gates first, then every reason note in order."""
    problems = (
        [_capitalized(_problem(p)) + "." for p in rec.problems] if rec.rule.code == c.NOT_JUDGED else []
    )
    return problems + [_reason(rec, note) for note in rec.reason_notes]


def caveats(rec: Recommendation) -> list[str]:
    """What limits the verdict, one sentence (clause) per caveat."""
    return [sentence for note in rec.caveat_notes for sentence in _caveat(rec, note)]


def _capitalized(text: str) -> str:
    return text[0].upper() + text[1:]


def _reason(rec: Recommendation, note: Note) -> str:
    return _REASONS[note.code](rec, note)


def _headroom(rec: Recommendation, note: Note) -> str:
    assert rec.headroom is not None
    return headroom_sentence(rec.headroom)


def _gap(rec: Recommendation, note: Note) -> str:
    return gap_sentence(_stated_gap(rec, note))


def _intervals(rec: Recommendation, note: Note) -> str:
    """Which uncertainty model the intervals come from."""
    if note["hierarchical"]:
        unit = "test sentences" if rec.task == "ner" else "test items"
        return (
            f"Intervals: hierarchical bootstrap ({note['n_boot']:,} replicates) resampling the seeds and, within them, "
            f"the {note['n_items']:,} {unit}, paired across embeddings; probabilities are shares of the same replicates."
        )
    return "Intervals: over seeds only (this run logged no per-item test scores), so test-set sampling is not included."


def _repaired(rec: Recommendation, note: Note) -> str:
    parts = ", ".join(
        f"{e} {repaired:.3f} (strict {strict:.3f})" for e, (repaired, strict) in note["scores"].items()
    )
    return (
        "Scores are seqeval strict IOB2 F1 on the raw predictions (a stray I- tag is an error); after repairing "
        f"stray I- tags to B- they would be: {parts}."
    )


def _loss(rec: Recommendation, note: Note) -> str:
    return (
        f"You accept losing up to {mag(note['loss'])}: a cheaper embedding is enough only if the upper end of "
        "every interval of its gap to a costlier one stays within that."
    )


def _efficiency(rec: Recommendation, note: Note) -> str:
    e = next(e for e in rec.efficiency if (e.embedding, e.baseline) == (note["embedding"], note["baseline"]))
    return efficiency_sentence(e)


def _extrapolation(rec: Recommendation, note: Note) -> str:
    x = rec.extrapolation(note["embedding"])
    assert x is not None
    return extrapolation_sentence(x)


def _budget(rec: Recommendation, note: Note) -> str:
    return f"Labelling budget considered: {budget_text(rec.thresholds, rec.full_size)}."


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def _cost_ratio(rec: Recommendation, note: Note) -> str:
    """Contextual's cost multiples; training time is the downstream model's, the embedding's own pass over
    train/dev/test (the encoder's forward pass for contextual) is stated apart, in seconds."""
    assert rec.costs is not None
    parts = [f"{RATIO_LABELS[column]} {value:.1f}×" for column, value in note["ratios"].items()]
    if "encode" in note.values:
        a, b = note["pair"].split("/", 1)
        own, cheap = note["encode"]
        encode = f"embedding pass over train/dev/test {_seconds(own)} ({a}) vs {_seconds(cheap)} ({b})"
        at = next((i for i, p in enumerate(parts) if p.startswith(RATIO_LABELS["train_seconds"])), None)
        parts = [*parts, encode] if at is None else [*parts[:at], f"{parts[at]} + {encode}", *parts[at + 1 :]]
    return f"Cost {note['pair'].replace('/', ' vs ')}: {', '.join(parts)} (serving {provenance_text(rec.costs)})."


def _serving_price(rec: Recommendation, note: Note) -> str:
    prices = ", ".join(f"{name} {price:,.2f}" for name, price in note["prices"].items())
    return f"Serving 1M items at batch 64 on this machine at {note['per_hour']:g} per hour costs: {prices}."


def _over_latency(rec: Recommendation, note: Note) -> str:
    batch = note.values.get("batch", 1)
    return (
        f"{note['embedding'].capitalize()} is over your latency budget: "
        f"{note['latency']:.2f} > {note['budget']:g} ms/item" + (f" at batch {batch}." if batch != 1 else ".")
    )


def _holm_note(tested: int) -> str:
    """ " (Holm-corrected over 6 tests)", or a note that an older table could not be corrected."""
    return (
        f" (Holm-corrected over {tested} tests)"
        if tested
        else " (uncorrected: this run's slice table has no p-values)"
    )


def _slices_carry(rec: Recommendation, note: Note) -> str:
    findings = slice_findings_text(rec.slices, note["findings"])
    return f"Contextual's advantage is significantly larger on difficult items for: {findings}{_holm_note(note['tested'])}."


def _slices_easy(rec: Recommendation, note: Note) -> str:
    findings = slice_findings_text(rec.slices, note["findings"])
    return (
        "Against the paper's expectation, contextual's advantage is significantly larger on easy items for: "
        f"{findings}{_holm_note(note['tested'])}."
    )


def _slices_none(rec: Recommendation, note: Note) -> str:
    return (
        "No difficulty metric shows contextual's advantage significantly concentrated on difficult items"
        f"{_holm_note(note['tested'])}."
    )


def _text(rec: Recommendation, note: Note) -> str:
    return str(note["text"])


_REASONS: dict[str, Callable[[Recommendation, Note], str]] = {
    c.HEADROOM: _headroom,
    c.GAP: _gap,
    c.INTERVALS: _intervals,
    c.REPAIRED: _repaired,
    c.LOSS: _loss,
    c.EFFICIENCY: _efficiency,
    c.EXTRAPOLATION: _extrapolation,
    c.BUDGET: _budget,
    c.COST_RATIO: _cost_ratio,
    c.SERVING_PRICE: _serving_price,
    c.OVER_LATENCY: _over_latency,
    c.SLICES_CARRY: _slices_carry,
    c.SLICES_EASY: _slices_easy,
    c.SLICES_NONE: _slices_none,
    c.ENCODER: _text,
}


def _caveat(rec: Recommendation, note: Note) -> list[str]:
    """The caveat's sentences: one, or one per flagged pair of difficulty metrics."""
    if note.code == c.UNDER_TRAINED:
        assert rec.convergence is not None
        flag = under_trained_caveat(rec.convergence)
        return [flag] if flag is not None else []
    if note.code == c.SLICE_OVERLAP:
        from advisor.difficulty import overlap_warnings

        return overlap_warnings(rec.overlap) if rec.overlap is not None else []
    return [_CAVEATS[note.code](rec, note)]


_CAVEATS: dict[str, Callable[[Recommendation, Note], str]] = {
    c.JUDGED_BELOW: judged_below,
    c.RUN_STATUS: run_status,
    c.FEW_FIT_SIZES: few_fit_sizes,
    c.LEARNED_NOTHING: learned_nothing,
    c.SETTLED_EARLY: settled_early,
    c.TIME_BUDGET: time_budget,
    c.AT_MAJORITY: at_majority,
    c.ENCODER: _text,
}
