"""The verdict: one decision that the CLI, the report and the app all read.

The decision reads the full-data score gaps with their intervals (the hierarchical bootstrap over
seeds and test items of :mod:`advisor.stats`) against the score loss the user
accepts, then asks whether labelling more data would let a cheap embedding catch up within the
user's budget. It never says more than the intervals allow: when an interval straddles the
acceptable loss the verdict is "inconclusive", whatever the point estimates suggest, but it states
P(gap > acceptable loss) from the same replicates (which way it leans) and what would resolve it.
Difficulty-slice claims are Holm-corrected over every (metric, pair) tested.

It returns codes and numbers (:mod:`advisor.verdict._codes`): the rule that fired, the reasons and
the caveats as notes; :mod:`advisor.verdict._wording` is the one place that words them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.contextuality import layer_caveats, layer_reasons
from advisor.verdict import _codes as c
from advisor.verdict import _settled as settled
from advisor.verdict._codes import (
    BASELINES,
    CONTEXTUAL,
    HIERARCHICAL,
    INCONCLUSIVE,
    LABEL_MORE,
    USE_CONTEXTUAL,
    VERDICTS,
    Note,
)
from advisor.verdict._convergence import at_majority_cells, convergence_audit
from advisor.verdict._cost import CostComparison, compare_costs
from advisor.verdict._efficiency import data_efficiency
from advisor.verdict._fit import Extrapolation, extrapolate, fit_learning_curve
from advisor.verdict._gaps import ScoreGap, analysis_replicates, score_gap, score_gaps, seeds_to_decide
from advisor.verdict._headroom import Headroom, fine_tuning_headroom, frozen_only, reference_family
from advisor.verdict._recommendation import Recommendation
from advisor.verdict._slices import SliceFinding, slice_findings
from advisor.verdict._thresholds import Thresholds, run_thresholds, stored_inputs
from advisor.verdict._worth import TRADED_RULES, apply_latency_budget, apply_value, latency_column, tradeoff
from advisor.vocabulary import FAMILIES, is_frozen, ordered, pairs

__all__ = [
    "VERDICTS",
    "Recommendation",
    "SliceFinding",
    "Thresholds",
    "enough_rule",
    "recommend",
    "slice_findings",
]


@dataclass(frozen=True)
class EnoughRule:
    """How a cheap family's "enough" verdict is stated: against the worst gap of any costlier family
    (``"costlier"``) or contextual's (``"contextual"``), with its share of contextual's serving latency."""

    verdict: str
    against: str
    serving_share: bool = False


def enough_rule(name: str) -> EnoughRule | None:
    """How family ``name``'s "enough" verdict is stated, as the family declares it (``Family.enough``);
    None: it is never the verdict. The cheapest family whose gaps all stay within the loss wins."""
    if name not in FAMILIES or FAMILIES[name].enough is None:
        return None
    declared = FAMILIES[name]
    return EnoughRule(f"{name} is enough", str(declared.enough), serving_share=declared.enough_serving_share)


def recommend(analysis: Analysis, thresholds: Thresholds | None = None) -> Recommendation:
    """Decide between "use contextual", "static is enough", "random is enough", "label more data instead"
    and "inconclusive", with the rule, reasons, numbers and thresholds that led there.

    In four steps: evidence gates (is there enough to judge?), evidence (gaps, efficiency, fits),
    decision rules (:func:`_decide`), and the supporting notes.
    """
    t = _thresholds_for(analysis, thresholds)
    frozen, cut_from = _finished_part(frozen_only(analysis), t.min_seeds)  # decided on frozen families
    rec, seeds_at_full = _start(frozen, analysis, t)
    stop = settled.settled_stop(frozen)  # ``--until decided`` stopped settled: one size, by design
    budget = settled.budget_cut(analysis)  # --budget: the sizes it cut
    gates = _evidence_gates(frozen, t, seeds_at_full)
    rec.problems = settled.waive_gates(gates, stop, budget)
    _run_caveats(rec, frozen, t, cut_from)
    settled.note_budget(rec, budget, frozen.sizes, t.min_sizes)
    if rec.problems:
        return rec
    cs = _weigh(rec, frozen, t, efficiency=stop is None and len(gates) == len(rec.problems))
    short = settled.curves_cut_short(stop, budget, frozen.embedding_names, len(frozen.sizes), t.min_sizes)
    if short:
        rec.extrapolations = []  # "label more data" is not assessed: the stop's caveat says so
    evidence = _evidence_notes(rec, frozen, t)
    _decide(rec, cs, frozen.embedding_names, t, frozen.full_size)
    if stop is not None:
        settled.keep_settled(rec, stop, frozen.embedding_names)
        if rec.rule.code == c.SETTLED and rec.verdict == USE_CONTEXTUAL:  # the claim, unless labels catch up
            _label_more(rec, t, frozen.full_size, cs.b)
    traded = rec.rule.code in TRADED_RULES or (rec.rule.code == c.SETTLED and rec.verdict == USE_CONTEXTUAL)
    rec.tradeoff = tradeoff(rec, cs, t) if traded else None
    apply_value(rec, cs, t)  # with a value per point: contextual against cs.b in money
    if cut_from is not None and rec.verdict in (USE_CONTEXTUAL, LABEL_MORE):
        # The run stopped early: the cheap embedding still has unused training data to catch up with.
        rec.verdict = INCONCLUSIVE
        rec.rule = Note(c.STOPPED_EARLY, {"pair": cs.pair, "cut_from": cut_from})
    apply_latency_budget(rec, frozen, t)  # last: a family over the budget is never the recommendation
    rec.reason_notes += evidence + _support_notes(rec, frozen, t, assessed=not short)
    return rec


def _thresholds_for(analysis: Analysis, thresholds: Thresholds | None) -> Thresholds:
    """``thresholds``, or the run's: the decision inputs given to ``advisor run`` fill what is not stated."""
    if thresholds is None:
        return run_thresholds(analysis.params)
    stored = {k: v for k, v in stored_inputs(analysis.params).items() if getattr(thresholds, k) is None}
    return replace(thresholds, **stored) if stored else thresholds


def _start(analysis: Analysis, with_reference: Analysis, t: Thresholds) -> tuple[Recommendation, pd.Series]:
    """The recommendation before any decision: costs, fine-tuning headroom, slices, slice overlap."""
    names, full = analysis.embedding_names, analysis.full_size
    at_full = analysis.curves[analysis.curves["size"] == full]
    seeds_at_full = at_full.groupby("embedding")["seed"].nunique().reindex(names).fillna(0).astype(int)
    rec = Recommendation(
        thresholds=t,
        task=analysis.task,
        primary_metric=analysis.primary_metric,
        full_size=full,
        sizes=analysis.sizes,
        n_seeds=int(seeds_at_full.min()) if len(seeds_at_full) else 0,
    )
    if len(analysis.curves):  # the fine-tuned reference gets its cost row too
        rec.costs = compare_costs(_with_reference_cells(analysis, with_reference))
    rec.headroom = _headroom(with_reference, t)
    if rec.headroom is not None:
        rec.reason_notes.append(Note(c.HEADROOM))
    rec.slices = slice_findings(analysis.slices, confidence=t.confidence)
    rec.overlap = _overlap(analysis)
    if rec.overlap is not None and len(rec.overlap) and rec.overlap["warn"].any():
        flagged = rec.overlap[rec.overlap["warn"]]
        pairs_ = [(str(a), str(b)) for a, b in zip(flagged["metric_a"], flagged["metric_b"], strict=True)]
        rec.caveat_notes.append(Note(c.SLICE_OVERLAP, {"pairs": pairs_}))
    return rec, seeds_at_full


def _evidence_gates(analysis: Analysis, t: Thresholds, seeds_at_full: pd.Series) -> list[Note]:
    """Why no verdict can be given (empty: the data can carry one); any verdict would be stronger than the data."""
    names = analysis.embedding_names
    problems: list[Note] = []
    if CONTEXTUAL not in names:
        problems.append(Note(c.NO_CONTEXTUAL))
    elif len(names) < 2:
        problems.append(Note(c.ONLY_CONTEXTUAL))
    if len(analysis.sizes) < t.min_sizes:
        problems.append(Note(c.FEW_SIZES, {"n": len(analysis.sizes), "need": t.min_sizes}))
    thin = {str(e): int(n) for e, n in seeds_at_full.items() if n < t.min_seeds}
    if thin:
        problems.append(Note(c.FEW_SEEDS, {"thin": thin, "need": t.min_seeds}))
    scores = analysis.curves["score"].to_numpy(float) if len(analysis.curves) else np.array([])
    scores = scores[np.isfinite(scores)]
    if len(scores) and float(np.ptp(scores)) == 0.0:  # e.g. F1 0.0 everywhere: there is nothing to weigh
        problems.append(Note(c.NOTHING_LEARNED, {"score": float(scores[0])}))
    return problems


def _learned_nothing(analysis: Analysis) -> list[Note]:
    """The families that scored 0.0 at every size and seed, when others did learn (all of them: a gate)."""
    curves = analysis.curves
    if curves.empty:
        return []
    best = curves.groupby("embedding")["score"].max()
    zero = [str(name) for name in ordered(list(best.index)) if best[name] == 0.0]
    return [Note(c.LEARNED_NOTHING, {"families": zero})] if zero and len(zero) < len(best) else []


def _run_caveats(rec: Recommendation, analysis: Analysis, t: Thresholds, cut_from: int | None) -> None:
    """A run judged below its largest size, not finished, or with under-trained cells on its curves, says so."""
    if cut_from is not None:
        values = {"size": analysis.full_size, "cut_from": cut_from, "min_seeds": t.min_seeds}
        rec.caveat_notes.append(Note(c.JUDGED_BELOW, values))
    if analysis.status not in (None, "FINISHED"):
        rec.caveat_notes.append(Note(c.RUN_STATUS, {"status": analysis.status}))
    rec.caveat_notes += _learned_nothing(analysis)
    found = at_majority_cells(analysis)
    if found is not None:
        baseline, points = found
        rec.caveat_notes.append(
            Note(c.AT_MAJORITY, {"points": points, "share": baseline.share, "label": baseline.label})
        )
    rec.convergence = convergence_audit(analysis)
    flagged = rec.convergence.flagged
    if not flagged.empty:
        points = [
            (str(r.embedding), int(r.size), int(r.under_trained), int(r.seeds)) for r in flagged.itertuples()
        ]
        rec.caveat_notes.insert(0, Note(c.UNDER_TRAINED, {"points": points}))


def _weigh(rec: Recommendation, analysis: Analysis, t: Thresholds, efficiency: bool = True) -> ScoreGap:
    """Gaps, data efficiency, learning-curve fits and extrapolations; the contextual gap to decide on.

    Contextual is weighed against the best cheap embedding (normally static; random if it did better).
    Without ``efficiency`` (a run that stopped settled measured one size) no efficiency is computed.
    """
    names, loss = analysis.embedding_names, t.acceptable_loss
    replicates = analysis_replicates(analysis, t.n_boot)
    rec.gaps = score_gaps(analysis, confidence=t.confidence, loss=loss, replicates=replicates)
    rec.gaps += _more_gaps(analysis, rec.gaps, t.confidence, loss, replicates)
    cs = min((g for g in rec.gaps if g.a == CONTEXTUAL), key=lambda g: g.gap)
    # the paper's baselines, and the family contextual is weighed against when it is another (distilled)
    against = [b for b in BASELINES if b in names] + ([cs.b] if cs.b not in BASELINES else [])
    for b in against if efficiency else []:
        rec.efficiency.append(
            data_efficiency(
                analysis, CONTEXTUAL, b, n_boot=t.n_boot, confidence=t.confidence, replicates=replicates
            )
        )
    target = cs.score_a - loss  # what a cheap embedding must reach to be "as good" as contextual
    for name in names:
        rec.fits[name] = fit_learning_curve(analysis, name)
    rec.extrapolations += [_extrapolation(rec, analysis, t, b, target) for b in BASELINES if b in names]
    return cs


def _more_gaps(
    analysis: Analysis, gaps: list[ScoreGap], confidence: float, loss: float, replicates: Any
) -> list[ScoreGap]:
    """The gaps of families beyond the paper's (distilled: to contextual above it, to static and random below)."""
    have = {g.pair for g in gaps}
    return [
        score_gap(analysis, a, b, confidence=confidence, loss=loss, replicates=replicates)
        for a, b in pairs(analysis.embedding_names)
        if f"{a}-{b}" not in have
    ]


def _extrapolation(
    rec: Recommendation, analysis: Analysis, t: Thresholds, cheap: str, target: float
) -> Extrapolation:
    """How many items ``cheap`` needs to reach ``target``, from its learning-curve fit."""
    full = analysis.full_size
    matrix = analysis.score_matrix(cheap)
    observed = float(matrix.loc[full].mean()) if full in matrix.index else None
    return extrapolate(
        rec.fits[cheap],
        target,
        full,
        observed_full=observed,
        max_factor=t.max_extrapolation,
        min_sizes=t.min_fit_sizes,
        min_r2=t.min_fit_r2,
        max_backtest_error=t.max_backtest_error,
    )


def _evidence_notes(rec: Recommendation, analysis: Analysis, t: Thresholds) -> list[Note]:
    """The gaps, how their intervals were made, the acceptable loss, and the data efficiency."""
    notes = [Note(c.GAP, {"pair": g.pair}) for g in rec.gaps]
    n_items = analysis.item_scores.n_items if analysis.item_scores is not None else 0
    hierarchical = bool(rec.gaps) and rec.gaps[0].method == HIERARCHICAL
    notes.append(Note(c.INTERVALS, {"hierarchical": hierarchical, "n_boot": t.n_boot, "n_items": n_items}))
    notes += _repaired(analysis, analysis.full_size)
    notes.append(Note(c.LOSS, {"loss": t.acceptable_loss}))
    return notes + [
        Note(c.EFFICIENCY, {"embedding": e.embedding, "baseline": e.baseline}) for e in rec.efficiency
    ]


def _repaired(analysis: Analysis, size: int) -> list[Note]:
    """NER: the strict score is on raw predictions; what repairing stray I- tags would give, if it differs."""
    curves = analysis.curves
    if analysis.task != "ner" or "eval_repaired_f1" not in curves.columns:
        return []
    at = curves[curves["size"] == size].groupby("embedding")[["score", "eval_repaired_f1"]].mean()
    if at.empty or (at["eval_repaired_f1"] - at["score"]).abs().max() < 0.0005:
        return []
    scores = {str(e): (float(row.eval_repaired_f1), float(row.score)) for e, row in at.iterrows()}
    return [Note(c.REPAIRED, {"scores": scores})]


def _enough(gaps: list[ScoreGap], cheap: str, loss: float) -> bool:
    """``cheap`` is enough when every gap of a costlier embedding to it has an interval within ``loss``."""
    costlier = [g for g in gaps if g.b == cheap]
    return bool(costlier) and all(g.has_interval and g.hi <= loss for g in costlier)


def _decide(rec: Recommendation, cs: ScoreGap, names: list[str], t: Thresholds, full: int) -> None:
    """The decision rules, cheapest family first: the verdict and the rule that gave it."""
    for cheap in ordered(names):
        rule = enough_rule(cheap)
        if rule is not None and _enough(rec.gaps, cheap, t.acceptable_loss):
            rec.verdict, rec.rule = rule.verdict, _enough_note(rec, cheap, rule)
            return
    if cs.has_interval and cs.lo > t.acceptable_loss:
        rec.verdict, rec.rule = USE_CONTEXTUAL, Note(c.CONTEXTUAL_WINS, {"pair": cs.pair})
        _label_more(rec, t, full, cs.b)
        return
    values = {"pair": cs.pair, "lean": _lean(cs), "seeds_needed": seeds_to_decide(cs)}
    rec.verdict, rec.rule = INCONCLUSIVE, Note(c.STRADDLES if cs.has_interval else c.NO_INTERVAL, values)


def _enough_note(rec: Recommendation, cheap: str, rule: EnoughRule) -> Note:
    """The gap an "enough" verdict states (the worst costlier one, or contextual's) and the serving share."""
    if rule.against == CONTEXTUAL:
        stated = rec.gap(f"{CONTEXTUAL}-{cheap}")
        assert stated is not None
    else:
        stated = max((g for g in rec.gaps if g.b == cheap), key=lambda g: g.hi)
    share = _serving_share(rec.costs, cheap) if rule.serving_share else math.nan
    return Note(c.ENOUGH, {"family": cheap, "pair": stated.pair, "against": rule.against, "share": share})


def _serving_share(costs: CostComparison | None, cheap: str) -> float:
    """``cheap``'s serving latency (batch 1) as a share of contextual's; NaN unless both were measured."""
    if costs is None:
        return math.nan
    own, full = (costs.value(name, "latency_ms_per_item") for name in (cheap, CONTEXTUAL))
    if not (math.isfinite(own) and math.isfinite(full) and full > 0):
        return math.nan
    return own / full


def _lean(gap: ScoreGap) -> str | None:
    """Which way an inconclusive comparison leans: towards ``a``, towards ``b`` being enough, or neither."""
    p = gap.prob_above
    if not math.isfinite(p):
        return None
    return "a" if p >= 0.8 else "b" if p <= 0.2 else "neither"


def _label_more(rec: Recommendation, t: Thresholds, full: int, best_cheap: str) -> None:
    """Contextual wins, unless the best cheap embedding catches up with labels within the budget."""
    budget = t.labelling_budget(full)
    catch_up = [
        x
        for x in rec.extrapolations
        if x.status == "extrapolated" and x.reliable and x.extra_items <= budget and x.embedding == best_cheap
    ]
    if catch_up:
        x = catch_up[0]
        rec.verdict = LABEL_MORE
        rec.rule = Note(c.CATCH_UP, {"embedding": x.embedding, "extra_items": x.extra_items})


def _support_notes(
    rec: Recommendation, analysis: Analysis, t: Thresholds, assessed: bool = True
) -> list[Note]:
    """Extrapolations, budget, costs, slices and the encoder: reported whatever was decided. Without
    ``assessed`` (a stop's caveat says "label more data" was not assessed) no labelling budget is stated."""
    notes = [Note(c.EXTRAPOLATION, {"embedding": x.embedding}) for x in rec.extrapolations]
    if assessed and rec.verdict in (USE_CONTEXTUAL, LABEL_MORE, INCONCLUSIVE):
        notes.append(Note(c.BUDGET, {"items": t.labelling_budget(analysis.full_size)}))
    notes += _cost_notes(rec, t)
    notes += _slice_notes(rec.slices)
    if len(analysis.sizes) < t.min_fit_sizes and assessed:
        rec.caveat_notes.append(Note(c.FEW_FIT_SIZES, {"n": len(analysis.sizes), "need": t.min_fit_sizes}))
    notes += [Note(c.ENCODER, {"text": s}) for s in layer_reasons(analysis)]  # encoder, layers, pooling, mix
    rec.caveat_notes += [
        Note(c.ENCODER, {"text": s}) for s in layer_caveats(analysis)
    ]  # a sentence-embedding model
    return notes


def _slice_notes(slices: list[SliceFinding]) -> list[Note]:
    """Which difficulty metrics carry contextual's advantage over which family, in both directions
    (larger on difficult items, larger on easy ones), and over how many Holm-corrected tests."""
    if not slices:
        return []
    tested = sum(math.isfinite(s.p_holm) for s in slices)
    notes = []
    for code, side in ((c.SLICES_CARRY, "difficult"), (c.SLICES_EASY, "easy")):
        found = [(s.metric, s.pair.split("-", 1)[1]) for s in slices if s.carried_by == side]
        if found:
            notes.append(Note(code, {"findings": sorted(found), "tested": tested}))
    return notes or [Note(c.SLICES_NONE, {"tested": tested})]


def _cost_notes(rec: Recommendation, t: Thresholds) -> list[Note]:
    """One cost comparison, the price of serving, and every family over the latency budget (at its batch)."""
    costs = rec.costs
    if costs is None:
        return []
    notes = _cost_ratio(costs, _decided_against(rec)) + _serving_price(costs, t)
    if t.latency_budget_ms is None:
        return notes
    budget, batch = t.latency_budget_ms, t.latency_batch
    for name in costs.table.index:
        latency = costs.value(name, latency_column(batch))
        if math.isfinite(latency) and latency > budget:
            values = {"embedding": str(name), "latency": latency, "budget": budget, "batch": batch}
            notes.append(Note(c.OVER_LATENCY, values))
    return notes


def _decided_against(rec: Recommendation) -> str | None:
    """The family the verdict weighed contextual against (its rule's family or pair), if any."""
    values = rec.rule.values
    if "family" in values or "embedding" in values:
        return str(values.get("family", values.get("embedding")))
    return str(values["pair"]).split("-", 1)[1] if "pair" in values else None


def _cost_ratio(costs: CostComparison, against: str | None) -> list[Note]:
    """Contextual's cost multiples against the first cheaper family of the paper that has any, and against
    the family the verdict was decided against when that is another one (distilled); the report has the
    table. Training time is the downstream model's; the embedding's own pass over the data is stated apart."""
    memory = "serving_memory_mb" if costs.serving_measured else "peak_memory_mb"
    columns = ("latency_ms_per_item", "batch_ms_per_item", memory, "train_seconds", "embedding_mb")
    pairs_ = [f"{CONTEXTUAL}/{b}" for b in BASELINES if f"{CONTEXTUAL}/{b}" in costs.ratios.index]
    notes = []
    for pair in pairs_:  # the first of the paper's baselines with any ratio
        notes = _ratio_note(costs, pair, columns)
        if notes:
            break
    if against is not None and against not in BASELINES and f"{CONTEXTUAL}/{against}" in costs.ratios.index:
        notes += _ratio_note(costs, f"{CONTEXTUAL}/{against}", columns)
    return notes


def _ratio_note(costs: CostComparison, pair: str, columns: tuple[str, ...]) -> list[Note]:
    """One COST_RATIO note: the finite ratios of ``pair``, and both families' embedding pass (seconds)."""
    ratios = {column: costs.ratio(pair, column) for column in columns}
    finite = {column: value for column, value in ratios.items() if math.isfinite(value)}
    if not finite:
        return []
    encode = (costs.value(CONTEXTUAL, "encode_seconds"), costs.value(pair.split("/", 1)[1], "encode_seconds"))
    values: dict[str, Any] = {"pair": pair, "ratios": finite}
    if all(math.isfinite(v) for v in encode):
        values["encode"] = encode
    return [Note(c.COST_RATIO, values)]


def _serving_price(costs: CostComparison, t: Thresholds) -> list[Note]:
    """What serving 1M items at batch 64 costs per family, when the machine's price and the serving pass are known."""
    if t.price_per_hour is None or not costs.serving_measured:
        return []
    from advisor.costs import price_per_million

    prices = {
        str(name): price_per_million(costs.value(name, "batch_ms_per_item"), t.price_per_hour)
        for name in costs.table.index
        if math.isfinite(costs.value(name, "batch_ms_per_item"))
    }
    return [Note(c.SERVING_PRICE, {"per_hour": t.price_per_hour, "prices": prices})] if prices else []


def _with_reference_cells(analysis: Analysis, with_reference: Analysis) -> Analysis:
    """``analysis`` plus the cells of the families that are not frozen (the fine-tuned reference) at its
    largest size (for the cost table)."""
    curves = with_reference.curves
    frozen = curves["embedding"].map(is_frozen).astype(bool)
    tuned = curves[~frozen & (curves["size"] == analysis.full_size)]
    if tuned.empty:
        return analysis
    return replace(analysis, curves=pd.concat([analysis.curves, tuned], ignore_index=True))


def _headroom(analysis: Analysis, t: Thresholds) -> Headroom | None:
    """The fine-tuning headroom (same hierarchical bootstrap as the gaps) when the reference ran."""
    if reference_family(analysis) is None:
        return None
    replicates = analysis_replicates(analysis, t.n_boot)
    return fine_tuning_headroom(analysis, t.confidence, replicates)


def _overlap(analysis: Analysis) -> pd.DataFrame | None:
    """Pairwise overlap of the difficulty metrics' difficult slices on the run's item table."""
    if analysis.items is None or not len(analysis.items):
        return None
    from advisor.difficulty import difficulty_metric_names, slice_overlap

    names = [m for m in difficulty_metric_names(analysis.task) if m in analysis.items.columns]
    return slice_overlap(analysis.items, names) if len(names) > 1 else None


def _finished_part(analysis: Analysis, min_seeds: int) -> tuple[Analysis, int | None]:
    """An interrupted run is judged up to its largest size that every embedding finished with
    ``min_seeds`` seeds (returns the cut analysis and the size it was cut from, or None if not cut)."""
    curves = analysis.curves
    if curves.empty:
        return analysis, None
    seeds = curves.groupby(["size", "embedding"])["seed"].nunique().unstack()
    complete = seeds.index[
        (seeds.reindex(columns=analysis.embedding_names).fillna(0) >= min_seeds).all(axis=1)
    ]
    if len(complete) == 0 or int(complete.max()) == analysis.full_size:
        return analysis, None
    cut = replace(analysis, curves=curves[curves["size"] <= int(complete.max())].reset_index(drop=True))
    return cut, analysis.full_size
