"""The verdict: one function that the CLI, the report and the app all call.

The decision reads the full-data score gaps with their intervals (the hierarchical bootstrap over
seeds and test sentences of :mod:`advisor.stats`) against the score loss the user
accepts, then asks whether labelling more data would let a cheap embedding catch up within the
user's budget. It never says more than the intervals allow: when an interval straddles the
acceptable loss the verdict is "inconclusive", whatever the point estimates suggest, but it states
P(gap > acceptable loss) from the same replicates (which way it leans) and what would resolve it.
Difficulty-slice claims are Holm-corrected over every (metric, pair) tested.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import pandas as pd

from advisor.analysis import Analysis
from advisor.contextuality import layer_caveats, layer_reasons
from advisor.errors import ConfigError
from advisor.stats import holm
from advisor.verdict._convergence import ConvergenceAudit, convergence_audit, under_trained_caveat
from advisor.verdict._cost import CostComparison, compare_costs
from advisor.verdict._efficiency import (
    HIERARCHICAL,
    DataEfficiency,
    ScoreGap,
    analysis_replicates,
    data_efficiency,
    score_gaps,
)
from advisor.verdict._fit import Extrapolation, LearningCurveFit, extrapolate, fit_learning_curve
from advisor.verdict._headroom import Headroom, fine_tuning_headroom, frozen_only

__all__ = [
    "VERDICTS",
    "Recommendation",
    "SliceFinding",
    "Thresholds",
    "recommend",
    "slice_findings",
]

USE_CONTEXTUAL = "use contextual"
STATIC_ENOUGH = "static is enough"
#: static vectors distilled from the encoder (advisor.embeddings._distilled) serve well enough
DISTILLED_ENOUGH = "distilled is enough"
RANDOM_ENOUGH = "random is enough"
LABEL_MORE = "label more data instead"
INCONCLUSIVE = "inconclusive"
VERDICTS: tuple[str, ...] = (
    USE_CONTEXTUAL,
    DISTILLED_ENOUGH,
    STATIC_ENOUGH,
    RANDOM_ENOUGH,
    LABEL_MORE,
    INCONCLUSIVE,
)


@dataclass(frozen=True)
class Thresholds:
    """What the user is willing to trade; every default is stated here and in the report.

    - ``acceptable_loss``: score (on the [0, 1] scale) you accept to lose for a cheaper embedding;
      0.01 = one F1/accuracy point. A cheap embedding is "enough" only when the *upper* end of the
      interval of its gap to every costlier embedding is within this loss.
    - ``latency_budget_ms``: serving latency per item (raw text to prediction, batch 1) you can afford; None = no limit.
    - ``price_per_hour``: what the serving machine costs per hour; when set, the verdict prices 1M items
      (batch 64) per embedding. None = not priced.
    - ``label_cost``: money per labelled item, to price the "label more" option (and convert a money budget).
    - ``labelling_budget_items`` / ``labelling_budget_money``: extra items you could label; when neither is
      set the budget is as many items as the current training set (doubling it).
    - Reliability rules: ``confidence`` of every interval; at least ``min_seeds`` seeds at full data and
      ``min_sizes`` sizes for any verdict; extrapolations need ``min_fit_sizes`` sizes, R² ≥ ``min_fit_r2``,
      a leave-the-largest-size-out error ≤ ``max_backtest_error`` and stay within ``max_extrapolation`` × the
      largest size.
    """

    acceptable_loss: float = 0.01
    latency_budget_ms: float | None = None
    label_cost: float | None = None
    labelling_budget_items: int | None = None
    labelling_budget_money: float | None = None
    confidence: float = 0.95
    min_seeds: int = 2
    min_sizes: int = 2
    min_fit_sizes: int = 4
    min_fit_r2: float = 0.9
    max_backtest_error: float = 0.02
    max_extrapolation: float = 4.0
    n_boot: int = 2000
    price_per_hour: float | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.acceptable_loss < 1:
            raise ConfigError(
                f"acceptable loss must be in [0, 1) (score scale), got {self.acceptable_loss}",
                hint="0.01 means one F1/accuracy point",
                code="E602",
            )
        if not 0.5 <= self.confidence < 1:
            raise ConfigError(f"confidence must be in [0.5, 1), got {self.confidence}", code="E602")
        for name in (
            "latency_budget_ms",
            "label_cost",
            "labelling_budget_items",
            "labelling_budget_money",
            "price_per_hour",
        ):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ConfigError(f"{name} must not be negative, got {value}", code="E602")
        if self.labelling_budget_money is not None and not self.label_cost:
            raise ConfigError(
                "a labelling budget in money needs the cost of labelling one item",
                hint="also pass --label-cost (money per item)",
                code="E603",
            )
        if self.min_seeds < 2:
            raise ConfigError("min_seeds must be at least 2: one seed gives no interval", code="E602")
        if self.max_extrapolation < 1:
            raise ConfigError(f"max_extrapolation must be ≥ 1, got {self.max_extrapolation}", code="E602")

    def labelling_budget(self, full_size: int) -> float:
        """Extra labelled items affordable: the tightest of the items and money budgets (default: full_size)."""
        budgets: list[float] = []
        if self.labelling_budget_items is not None:
            budgets.append(float(self.labelling_budget_items))
        if self.labelling_budget_money is not None and self.label_cost:
            budgets.append(self.labelling_budget_money / self.label_cost)
        return min(budgets) if budgets else float(full_size)

    def budget_text(self, full_size: int) -> str:
        items = self.labelling_budget(full_size)
        explicit = self.labelling_budget_items is not None or self.labelling_budget_money is not None
        text = f"{items:,.0f} extra items" + ("" if explicit else " (default: doubling the training set)")
        if self.label_cost:
            text += f", ≈ {items * self.label_cost:,.2f} at {self.label_cost:g} per item"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class SliceFinding:
    """Whether the gap of ``pair`` differs between difficult and easy items for one difficulty metric."""

    metric: str
    pair: str
    size: int
    gap_difficult: float
    gap_easy: float
    difference: float  # gap_difficult - gap_easy
    lo: float
    hi: float
    n_difficult: int
    n_easy: int
    carried_by: str  # "difficult" | "easy" | "unclear"
    p_value: float = math.nan  # bootstrap p of "no difference"
    p_holm: float = math.nan  # Holm-adjusted over every finding of the family

    def describe(self) -> str:
        a, b = self.pair.split("-", 1)
        if not (self.n_difficult and self.n_easy):
            return f"{self.metric}: cannot be split into difficult and easy items on this data, so no claim."
        gaps = (
            f"{a}-minus-{b} gap {_pts(self.gap_difficult)} on {self.n_difficult} difficult vs "
            f"{_pts(self.gap_easy)} on {self.n_easy} easy items"
        )
        ci = f"difference {_pts(self.difference)}, CI {_pts(self.lo)} to {_pts(self.hi)}"
        if math.isfinite(self.p_holm):
            ci += f", Holm-adjusted p {self.p_holm:.3f}"
        if self.carried_by == "difficult":
            return f"{self.metric}: the gap is carried by difficult items ({gaps}; {ci})."
        if self.carried_by == "easy":
            return f"{self.metric}: the gap is larger on easy items ({gaps}; {ci})."
        return f"{self.metric}: no clear difference between difficult and easy items ({gaps}; {ci})."


def _number(value: Any) -> float:
    """Missing values (None after a JSON round-trip through MLflow) become NaN, not a crash."""
    return math.nan if value is None else float(value)


def slice_findings(
    slices: pd.DataFrame | None,
    pairs: tuple[str, ...] = ("contextual-static", "contextual-random"),
    confidence: float = 0.95,
) -> list[SliceFinding]:
    """Read the difficulty gap table at its largest size: which slices carry each pair's gap.

    Every (metric, pair) is one test of "the gap is the same on difficult and easy items"; a slice
    carries the gap only when its Holm-adjusted bootstrap p-value is below 1 - ``confidence``.
    Tables without p-values (older runs) fall back to the uncorrected interval.
    """
    if slices is None or slices.empty:
        return []
    findings: list[SliceFinding] = []
    size = int(slices["size"].max())
    at = slices[slices["size"] == size]
    for pair in pairs:
        rows = at[at["pair"] == pair]
        for metric in dict.fromkeys(rows["metric"]):
            by_slice = rows[rows["metric"] == metric].set_index("slice")
            if "difficult-minus-easy" not in by_slice.index:
                continue
            diff = by_slice.loc["difficult-minus-easy"]
            hard = by_slice.loc["difficult"] if "difficult" in by_slice.index else None
            easy = by_slice.loc["easy"] if "easy" in by_slice.index else None
            lo, hi = _number(diff["gap_lo"]), _number(diff["gap_hi"])
            carried = "difficult" if lo > 0 else "easy" if hi < 0 else "unclear"
            p_value = _number(diff["p_value"]) if "p_value" in diff.index else math.nan
            findings.append(
                SliceFinding(
                    metric=str(metric),
                    pair=pair,
                    size=size,
                    gap_difficult=_number(hard["gap"]) if hard is not None else math.nan,
                    gap_easy=_number(easy["gap"]) if easy is not None else math.nan,
                    difference=_number(diff["gap"]),
                    lo=lo,
                    hi=hi,
                    n_difficult=int(hard["n_items"]) if hard is not None else 0,
                    n_easy=int(easy["n_items"]) if easy is not None else 0,
                    carried_by=carried,
                    p_value=p_value,
                )
            )
    adjusted = holm([f.p_value for f in findings])
    for finding, p_holm in zip(findings, adjusted, strict=True):
        finding.p_holm = p_holm
        if math.isfinite(p_holm):
            significant = p_holm < 1 - confidence
            finding.carried_by = (
                "unclear" if not significant else "difficult" if finding.difference > 0 else "easy"
            )
    return findings


@dataclass
class Recommendation:
    """The verdict, the sentences that led there, and every number behind them."""

    verdict: str
    headline: str
    reasons: list[str]
    thresholds: Thresholds
    task: str
    primary_metric: str
    full_size: int
    sizes: list[int]
    n_seeds: int
    gaps: list[ScoreGap] = field(default_factory=list)
    efficiency: list[DataEfficiency] = field(default_factory=list)
    fits: dict[str, LearningCurveFit] = field(default_factory=dict)
    extrapolations: list[Extrapolation] = field(default_factory=list)
    costs: CostComparison | None = None
    slices: list[SliceFinding] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    overlap: pd.DataFrame | None = None  # pairwise overlap of the metrics' difficult slices
    headroom: Headroom | None = None  # fine-tuned reference vs frozen contextual, when it ran
    convergence: ConvergenceAudit | None = None  # steps and under-trained cells per (family, size)

    @property
    def carrying_slices(self) -> list[SliceFinding]:
        """Difficulty slices on which contextual's advantage is significantly larger."""
        return [s for s in self.slices if s.carried_by == "difficult"]

    def gap(self, pair: str) -> ScoreGap | None:
        return next((g for g in self.gaps if g.pair == pair), None)

    def summary_lines(self) -> list[str]:
        """Plain lines for the terminal: verdict, reasons, caveats, thresholds."""
        lines = [f"Verdict: {self.verdict.upper()}", self.headline, ""]
        lines += [f"- {reason}" for reason in self.reasons]
        if self.carrying_slices:
            lines.append("")
            lines.append("Difficulty slices carrying the gap:")
            lines += [f"- {s.describe()}" for s in self.carrying_slices]
        if self.caveats:
            lines.append("")
            lines += [f"! {c}" for c in self.caveats]
        t = self.thresholds
        lines.append("")
        latency = "none" if t.latency_budget_ms is None else f"{t.latency_budget_ms:g} ms/item"
        lines.append(
            f"Thresholds: acceptable loss {_mag(t.acceptable_loss)}, latency budget {latency}, "
            f"labelling budget {t.budget_text(self.full_size)}, {t.confidence:.0%} intervals, "
            f"extrapolation ≤ {t.max_extrapolation:g}×."
        )
        return lines

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe (NaN and inf become None) for MLflow ``log_dict`` and the app."""
        return _jsonable(
            {
                "verdict": self.verdict,
                "headline": self.headline,
                "reasons": self.reasons,
                "caveats": self.caveats,
                "thresholds": self.thresholds.to_dict(),
                "task": self.task,
                "primary_metric": self.primary_metric,
                "full_size": self.full_size,
                "sizes": self.sizes,
                "n_seeds": self.n_seeds,
                "gaps": [g.to_dict() for g in self.gaps],
                "efficiency": [e.to_dict() for e in self.efficiency],
                "fits": {k: f.to_dict() for k, f in self.fits.items()},
                "extrapolations": [e.to_dict() for e in self.extrapolations],
                "costs": self.costs.to_dict() if self.costs is not None else None,
                "slices": [asdict(s) for s in self.slices],
                "overlap": self.overlap.to_dict("records") if self.overlap is not None else [],
                "headroom": self.headroom.to_dict() if self.headroom is not None else None,
                "convergence": self.convergence.to_dict() if self.convergence is not None else None,
            }
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return _jsonable(value.item())
    return value


def _pts(score: float) -> str:
    """Score difference in points (0.034 -> '3.4 pts')."""
    return "n/a" if not math.isfinite(score) else f"{100 * score:+.1f} pts".replace("+0.0 ", "0.0 ")


def _mag(score: float) -> str:
    """A score amount in points, unsigned (0.01 -> '1.0 pts')."""
    return f"{100 * score:.1f} pts"


def _at_most(subject: str, upper: float, confidence: float) -> str:
    """How much better a costlier embedding can be, from the upper end of its gap interval."""
    if upper <= 0:
        return f"{subject} no higher (upper {confidence:.0%} bound of the gap {_pts(upper)})"
    return f"{subject} higher by at most {_mag(upper)} (upper {confidence:.0%} bound)"


def _gap_text(gap: ScoreGap) -> str:
    ci = f" ({gap.confidence:.0%} CI {_pts(gap.lo)} to {_pts(gap.hi)}, {gap.method}, n={gap.n_seeds} seeds)"
    if not gap.has_interval:
        ci = f" (no interval: {gap.method})"
    return (
        f"At {gap.size} training items (the largest size judged) {gap.a} scores {gap.score_a:.3f} vs {gap.b} {gap.score_b:.3f}: "
        f"gap {_pts(gap.gap)}{ci}{_prob_text(gap)}."
    )


def _prob_text(gap: ScoreGap) -> str:
    """ "; P(contextual - static > 1.0 pts) = 97 %" from the same resampling as the interval."""
    if not math.isfinite(gap.prob_above):
        return ""
    return f"; P({gap.a} − {gap.b} > {_mag(gap.loss)}) = {_percent(gap.prob_above)}"


def _percent(p: float) -> str:
    """Probabilities near 0 or 1 are not printed as certainties the bootstrap cannot resolve."""
    if p > 0.999:
        return "> 99.9 %"
    if p < 0.001:
        return "< 0.1 %"
    return f"{100 * p:.0f} %" if 0.01 <= p <= 0.99 else f"{100 * p:.1f} %"


def _lean(gap: ScoreGap) -> str:
    """Which way an inconclusive comparison leans, in words."""
    p = gap.prob_above
    if not math.isfinite(p):
        return ""
    if p >= 0.8:
        side = f"leans towards {gap.a}"
    elif p <= 0.2:
        side = f"leans towards {gap.b} being enough"
    else:
        side = "leans neither way"
    return f"{side}: P({gap.a}'s advantage > {_mag(gap.loss)}) = {_percent(p)}"


def _resolve(gap: ScoreGap, more_seeds: int = 2) -> str:
    """What would make an inconclusive comparison decide, from the interval's variance parts."""
    text = "What would resolve it: " + gap.resolution_text(more_seeds)
    distance = abs(gap.gap - gap.loss) if math.isfinite(gap.loss) else math.nan
    if gap.method != HIERARCHICAL or not (math.isfinite(distance) and math.isfinite(gap.sd_seeds)):
        return text
    z = _z(gap.confidence)
    room = (distance / z) ** 2 - (gap.sd_items if math.isfinite(gap.sd_items) else 0.0) ** 2
    if distance <= 0 or room <= 0:
        return text + (
            "; if the estimate holds, no number of seeds decides it with this test set (the gap sits within "
            "test-set noise of the acceptable loss)"
        )
    needed = math.ceil(gap.sd_seeds**2 * gap.n_seeds / room) if gap.sd_seeds > 0 else gap.n_seeds
    if needed > gap.n_seeds:
        text += f"; if the estimate holds, about {needed} seeds in all ({needed - gap.n_seeds} more) would decide it"
    return text


def _z(confidence: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + confidence / 2))


def _repaired_text(analysis: Analysis, size: int) -> list[str]:
    """NER: the strict score is on raw predictions; say what repairing stray I- tags would give, if it differs."""
    curves = analysis.curves
    if analysis.task != "ner" or "eval_repaired_f1" not in curves.columns:
        return []
    at = curves[curves["size"] == size].groupby("embedding")[["score", "eval_repaired_f1"]].mean()
    if at.empty or (at["eval_repaired_f1"] - at["score"]).abs().max() < 0.0005:
        return []
    parts = ", ".join(f"{e} {row.eval_repaired_f1:.3f} (strict {row.score:.3f})" for e, row in at.iterrows())
    return [
        "Scores are seqeval strict IOB2 F1 on the raw predictions (a stray I- tag is an error); after repairing "
        f"stray I- tags to B- they would be: {parts}."
    ]


def _method_text(gaps: list[ScoreGap], analysis: Analysis, n_boot: int) -> str:
    """One line saying which uncertainty model the intervals come from."""
    if gaps and gaps[0].method == HIERARCHICAL:
        n_items = analysis.item_scores.n_items if analysis.item_scores is not None else 0
        unit = "test sentences" if analysis.task == "ner" else "test items"
        return (
            f"Intervals: hierarchical bootstrap ({n_boot:,} replicates) resampling the seeds and, within them, "
            f"the {n_items:,} {unit}, paired across embeddings; probabilities are shares of the same replicates."
        )
    return "Intervals: over seeds only (this run logged no per-item test scores), so test-set sampling is not included."


def recommend(analysis: Analysis, thresholds: Thresholds | None = None) -> Recommendation:
    """Decide between "use contextual", "static is enough", "random is enough", "label more data instead"
    and "inconclusive", with the reasons, numbers and thresholds that led there.

    In four steps: evidence gates (is there enough to judge?), evidence (gaps, efficiency, fits),
    decision rules (:func:`_decide`), and the supporting sentences.
    """
    t = thresholds if thresholds is not None else Thresholds()
    if t.price_per_hour is None and analysis.params.get("price_per_hour") not in (None, ""):
        t = replace(t, price_per_hour=float(analysis.params["price_per_hour"]))  # given to `advisor run`
    frozen, cut_from = _finished_part(frozen_only(analysis), t.min_seeds)  # decided on frozen families
    rec, seeds_at_full = _start(frozen, analysis, t)
    problems = _evidence_gates(frozen, t, seeds_at_full)
    _run_caveats(rec, frozen, t, cut_from)
    if problems:
        rec.headline = "Inconclusive: " + "; ".join(problems) + "."
        rec.reasons = [p[0].upper() + p[1:] + "." for p in problems] + rec.reasons
        return rec
    cs = _weigh(rec, frozen, t)
    reasons = rec.reasons + _evidence_reasons(rec, frozen, t)
    _decide(rec, cs, frozen.embedding_names, t, frozen.full_size)
    if cut_from is not None and rec.verdict in (USE_CONTEXTUAL, LABEL_MORE):
        # The run stopped early: the cheap embedding still has unused training data to catch up with.
        rec.verdict = INCONCLUSIVE
        rec.headline = (
            f"Inconclusive: the run stopped before its largest size ({cut_from} items); at {frozen.full_size} items "
            f"contextual leads {cs.b} by {_pts(cs.gap)} ({_pts(cs.lo)} to {_pts(cs.hi)}), but {cs.b} may catch up "
            "with the training data not used yet; resume the run."
        )
    rec.reasons = reasons + _support_reasons(rec, frozen, t)
    return rec


def _start(analysis: Analysis, with_reference: Analysis, t: Thresholds) -> tuple[Recommendation, pd.Series]:
    """The recommendation before any decision: costs, fine-tuning headroom, slices, slice overlap."""
    names, full = analysis.embedding_names, analysis.full_size
    at_full = analysis.curves[analysis.curves["size"] == full]
    seeds_at_full = at_full.groupby("embedding")["seed"].nunique().reindex(names).fillna(0).astype(int)
    rec = Recommendation(
        verdict=INCONCLUSIVE,
        headline="",
        reasons=[],
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
        rec.reasons.append(rec.headroom.describe())
    rec.slices = slice_findings(analysis.slices, confidence=t.confidence)
    rec.overlap = _overlap(analysis)
    if rec.overlap is not None:
        from advisor.difficulty import overlap_warnings

        rec.caveats += overlap_warnings(rec.overlap)
    return rec, seeds_at_full


def _evidence_gates(analysis: Analysis, t: Thresholds, seeds_at_full: pd.Series) -> list[str]:
    """Why no verdict can be given (empty: the data can carry one); any verdict would be stronger than the data."""
    names = analysis.embedding_names
    problems: list[str] = []
    if "contextual" not in names:
        problems.append("the run has no finished contextual cell, so there is nothing to weigh it against")
    elif len(names) < 2:
        problems.append("the run has only the contextual embedding, so there is nothing to compare it with")
    if len(analysis.sizes) < t.min_sizes:
        problems.append(f"only {len(analysis.sizes)} training size(s) finished (need {t.min_sizes})")
    thin = [f"{e} ({n})" for e, n in seeds_at_full.items() if n < t.min_seeds]
    if thin:
        problems.append(
            f"too few seeds at full data for an interval: {', '.join(thin)} (need {t.min_seeds} per embedding)"
        )
    return problems


def _run_caveats(rec: Recommendation, analysis: Analysis, t: Thresholds, cut_from: int | None) -> None:
    """A run judged below its largest size, not finished, or with under-trained cells on its curves, says so."""
    if cut_from is not None:
        rec.caveats.append(
            f"judged at {analysis.full_size} items, the largest size every embedding finished with {t.min_seeds}+ "
            f"seeds; the grid goes up to {cut_from} items (resume the run to judge with all the data)"
        )
    if analysis.status not in (None, "FINISHED"):
        rec.caveats.append(f"the run's status is {analysis.status}: some cells may be missing")
    rec.convergence = convergence_audit(analysis)
    flag = under_trained_caveat(rec.convergence)
    if flag is not None:
        rec.caveats.insert(0, flag)


def _weigh(rec: Recommendation, analysis: Analysis, t: Thresholds) -> ScoreGap:
    """Gaps, data efficiency, learning-curve fits and extrapolations; the contextual gap to decide on.

    Contextual is weighed against the best cheap embedding (normally static; random if it did better).
    """
    names, loss = analysis.embedding_names, t.acceptable_loss
    replicates = analysis_replicates(analysis, t.n_boot)
    rec.gaps = score_gaps(analysis, confidence=t.confidence, loss=loss, replicates=replicates)
    rec.gaps += _distilled_gaps(analysis, rec.gaps, t.confidence, loss, replicates)
    for b in ("static", "random"):
        if b in names:
            rec.efficiency.append(
                data_efficiency(
                    analysis, "contextual", b, n_boot=t.n_boot, confidence=t.confidence, replicates=replicates
                )
            )
    cs = min((g for g in rec.gaps if g.a == "contextual"), key=lambda g: g.gap)
    target = cs.score_a - loss  # what a cheap embedding must reach to be "as good" as contextual
    for name in names:
        rec.fits[name] = fit_learning_curve(analysis, name)
    rec.extrapolations += [
        _extrapolation(rec, analysis, t, c, target) for c in ("static", "random") if c in names
    ]
    return cs


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


def _evidence_reasons(rec: Recommendation, analysis: Analysis, t: Thresholds) -> list[str]:
    """The gaps, how their intervals were made, the acceptable loss, and the data efficiency."""
    reasons = [_gap_text(g) for g in rec.gaps] + [_method_text(rec.gaps, analysis, t.n_boot)]
    reasons += _repaired_text(analysis, analysis.full_size)
    reasons.append(
        f"You accept losing up to {_mag(t.acceptable_loss)}: a cheaper embedding is enough only if the upper end of "
        "every interval of its gap to a costlier one stays within that."
    )
    return reasons + [e.describe() for e in rec.efficiency]


def _enough(gaps: list[ScoreGap], cheap: str, loss: float) -> bool:
    """``cheap`` is enough when every gap of a costlier embedding to it has an interval within ``loss``."""
    costlier = [g for g in gaps if g.b == cheap]
    return bool(costlier) and all(g.has_interval and g.hi <= loss for g in costlier)


def _decide(rec: Recommendation, cs: ScoreGap, names: list[str], t: Thresholds, full: int) -> None:
    """The decision rules, cheapest family first: the verdict and its headline."""
    loss = t.acceptable_loss
    gaps = {g.pair: g for g in rec.gaps}
    best_cheap = cs.b
    if "random" in names and _enough(rec.gaps, "random", loss):
        rec.verdict = RANDOM_ENOUGH
        worst = max(g.hi for g in rec.gaps if g.b == "random")
        rec.headline = (
            f"Random embeddings are enough: {_at_most('costlier embeddings score', worst, t.confidence)}, "
            f"within the {_mag(loss)} you accept to lose"
            f"{_prob_text(max((g for g in rec.gaps if g.b == 'random'), key=lambda g: g.hi))}."
        )
    elif "static" in names and _enough(rec.gaps, "static", loss):
        rec.verdict = STATIC_ENOUGH
        rec.headline = _enough_headline("Static embeddings", gaps["contextual-static"], t)
    elif "distilled" in names and _enough(rec.gaps, "distilled", loss):
        rec.verdict = DISTILLED_ENOUGH
        share = _serving_share_text(rec.costs, "distilled")
        rec.headline = _enough_headline("Distilled static vectors", gaps["contextual-distilled"], t, share)
    elif cs.has_interval and cs.lo > loss:
        rec.verdict = USE_CONTEXTUAL
        rec.headline = (
            f"Use contextual embeddings: they beat {best_cheap} by {_pts(cs.gap)} "
            f"({t.confidence:.0%} CI {_pts(cs.lo)} to {_pts(cs.hi)}), more than the {_mag(loss)} you accept to lose"
            f"{_prob_text(cs)}."
        )
        _label_more(rec, t, full, best_cheap)
    else:
        rec.verdict = INCONCLUSIVE
        rec.headline = _inconclusive_headline(cs, t)


def _enough_headline(what: str, g: ScoreGap, t: Thresholds, tail: str = "") -> str:
    """The "<what> are enough" headline: contextual's gap to it is within the acceptable loss."""
    return (
        f"{what} are enough: {_at_most('contextual scores', g.hi, t.confidence)}; "
        f"estimate {_pts(g.gap)}, within the {_mag(t.acceptable_loss)} you accept to lose{_prob_text(g)}{tail}."
    )


def _label_more(rec: Recommendation, t: Thresholds, full: int, best_cheap: str) -> None:
    """Contextual wins, unless the best cheap embedding catches up with labels within the budget."""
    budget = t.labelling_budget(full)
    catch_up = [
        x
        for x in rec.extrapolations
        if x.status == "extrapolated" and x.reliable and x.extra_items <= budget and x.embedding == best_cheap
    ]
    if not catch_up:
        return
    x = catch_up[0]
    rec.verdict = LABEL_MORE
    cost = f" (≈ {x.extra_items * t.label_cost:,.2f} at {t.label_cost:g} per item)" if t.label_cost else ""
    rec.headline = (
        f"Label more data instead: {x.embedding} is predicted to come within {_mag(t.acceptable_loss)} of "
        f"contextual's full-data score with about {x.extra_items:,.0f} more labelled items{cost}, "
        f"within your budget of {t.budget_text(full)}."
    )


def _inconclusive_headline(cs: ScoreGap, t: Thresholds) -> str:
    """Why the contextual gap decides nothing, which way it leans, and what would resolve it."""
    if not cs.has_interval:
        why = "no interval could be computed for the contextual gap"
    else:
        why = (
            f"the {t.confidence:.0%} interval of contextual's advantage over {cs.b} "
            f"({_pts(cs.lo)} to {_pts(cs.hi)}) straddles the {_mag(t.acceptable_loss)} you accept to lose"
        )
    lean = _lean(cs)
    return f"Inconclusive: {why}" + (f"; it {lean}" if lean else "") + f". {_resolve(cs)}."


def _support_reasons(rec: Recommendation, analysis: Analysis, t: Thresholds) -> list[str]:
    """Extrapolations, budget, costs, slices and the encoder: reported whatever was decided."""
    reasons = [x.describe() for x in rec.extrapolations]
    if rec.verdict in (USE_CONTEXTUAL, LABEL_MORE, INCONCLUSIVE):
        reasons.append(f"Labelling budget considered: {t.budget_text(analysis.full_size)}.")
    reasons += _cost_sentences(rec.costs, t, rec)
    if rec.carrying_slices:
        metrics = ", ".join(sorted({s.metric for s in rec.carrying_slices}))
        reasons.append(
            f"Contextual's advantage is significantly larger on difficult items for: {metrics}{_holm_note(rec.slices)}."
        )
    elif rec.slices:
        reasons.append(
            "No difficulty metric shows contextual's advantage significantly concentrated on difficult items"
            f"{_holm_note(rec.slices)}."
        )
    if len(analysis.sizes) < t.min_fit_sizes:
        rec.caveats.append(
            f"only {len(analysis.sizes)} training sizes: learning-curve extrapolations are not trusted "
            f"(need {t.min_fit_sizes}), so the 'label more data' option could not be assessed"
        )
    reasons += layer_reasons(analysis)  # which encoder, dim, layers, pooling, mix; how contextual
    rec.caveats += layer_caveats(analysis)  # a sentence-embedding model, and the command for a stronger one
    return reasons


def _with_reference_cells(analysis: Analysis, with_reference: Analysis) -> Analysis:
    """``analysis`` plus the fine-tuned reference's cells at its largest size (for the cost table)."""
    curves = with_reference.curves
    tuned = curves[(curves["embedding"] == "finetuned") & (curves["size"] == analysis.full_size)]
    if tuned.empty:
        return analysis
    return replace(analysis, curves=pd.concat([analysis.curves, tuned], ignore_index=True))


def _headroom(analysis: Analysis, t: Thresholds) -> Headroom | None:
    """The fine-tuning headroom (same hierarchical bootstrap as the gaps) when the reference ran."""
    if "finetuned" not in set(analysis.curves["embedding"]):
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


def _holm_note(slices: list[SliceFinding]) -> str:
    """ " (Holm-corrected over 6 tests)", or a note that an older table could not be corrected."""
    tested = sum(math.isfinite(s.p_holm) for s in slices)
    return (
        f" (Holm-corrected over {tested} tests)"
        if tested
        else " (uncorrected: this run's slice table has no p-values)"
    )


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


def _distilled_gaps(
    analysis: Analysis, gaps: list[ScoreGap], confidence: float, loss: float, replicates: Any
) -> list[ScoreGap]:
    """The distilled family's gaps (to contextual above it, to static and random below), when it ran."""
    from advisor.verdict._efficiency import score_gap

    names, have = analysis.embedding_names, {g.pair for g in gaps}
    wanted = (("contextual", "distilled"), ("distilled", "static"), ("distilled", "random"))
    return [
        score_gap(analysis, a, b, confidence=confidence, loss=loss, replicates=replicates)
        for a, b in wanted
        if a in names and b in names and f"{a}-{b}" not in have
    ]


def _serving_share_text(costs: CostComparison | None, cheap: str) -> str:
    """ ", at 3 % of contextual's serving latency (batch 1)" when both were measured."""
    if costs is None:
        return ""
    own, full = (costs.value(name, "latency_ms_per_item") for name in (cheap, "contextual"))
    if not (math.isfinite(own) and math.isfinite(full) and full > 0):
        return ""
    share = own / full
    amount = f"{100 * share:.2g} % of" if share < 1 else f"{share:.1f}×"
    return f", at {amount} contextual's serving latency (batch 1)"


def _cost_sentences(costs: CostComparison | None, t: Thresholds, rec: Recommendation) -> list[str]:
    if costs is None:
        return []
    out: list[str] = []
    memory = "serving_memory_mb" if costs.serving_measured else "peak_memory_mb"
    for pair in ("contextual/static", "contextual/random"):
        parts = [
            f"{label} {value:.1f}×"
            for label, value in (
                ("serving latency (batch 1)", costs.ratio(pair, "latency_ms_per_item")),
                ("serving time at batch 64", costs.ratio(pair, "batch_ms_per_item")),
                ("serving memory" if costs.serving_measured else "peak memory", costs.ratio(pair, memory)),
                ("training time", costs.ratio(pair, "train_seconds")),
                ("embedding size", costs.ratio(pair, "embedding_mb")),
            )
            if math.isfinite(value)
        ]
        if parts:
            out.append(
                f"Cost {pair.replace('/', ' vs ')}: "
                + ", ".join(parts)
                + f" (serving {costs.provenance_text()})."
            )
            break  # one comparison is enough for the reasons; the report has the full table
    if t.price_per_hour is not None and costs.serving_measured:
        from advisor.costs import price_per_million

        prices = [
            f"{name} {price_per_million(costs.value(name, 'batch_ms_per_item'), t.price_per_hour):,.2f}"
            for name in costs.table.index
            if math.isfinite(costs.value(name, "batch_ms_per_item"))
        ]
        if prices:
            out.append(
                f"Serving 1M items at batch 64 on this machine at {t.price_per_hour:g} per hour costs: "
                + ", ".join(prices)
                + "."
            )
    if t.latency_budget_ms is not None:
        for name in costs.table.index:
            latency = costs.value(name, "latency_ms_per_item")
            if math.isfinite(latency) and latency > t.latency_budget_ms:
                out.append(
                    f"{name.capitalize()} is over your latency budget: {latency:.2f} > {t.latency_budget_ms:g} ms/item."
                )
        ctx = costs.value("contextual", "latency_ms_per_item")
        if rec.verdict == USE_CONTEXTUAL and math.isfinite(ctx) and ctx > t.latency_budget_ms:
            rec.caveats.append(
                f"contextual is the better model but misses your latency budget ({ctx:.2f} > {t.latency_budget_ms:g} "
                "ms/item): serve it on faster hardware or a smaller encoder, or accept the cheaper embedding's loss"
            )
    return out
