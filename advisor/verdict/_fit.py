"""Learning-curve fits and the extrapolation "how many labelled items would static need?".

Three parametric curves from the learning-curve literature (Viering & Loog 2022) are fitted to all
(size, score) cells of an embedding; the one with the lowest AICc is chosen. The extrapolation is
only called reliable when the fit is good, a leave-the-largest-size-out backtest predicts well,
the close competitors agree, and it does not reach far beyond the data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit

from advisor.analysis import Analysis
from advisor.verdict._phrases import FAR_FACTOR, extrapolation_sentence

__all__ = [
    "CURVE_MODELS",
    "CandidateFit",
    "CurveModel",
    "Extrapolation",
    "LearningCurveFit",
    "extrapolate",
    "fit_curve_points",
    "fit_learning_curve",
]


@dataclass(frozen=True)
class CurveModel:
    """A score-vs-size family: formula, parameter names, and its inverse (size for a target score)."""

    name: str
    formula: str
    params: tuple[str, ...]
    predict: Callable[..., np.ndarray]
    solve: Callable[..., float]  # (target, *params) -> size; inf when the target is out of reach
    asymptote: Callable[..., float]  # (*params) -> score as size -> inf


def _pow3(n: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    return a - b * np.power(n, -c)


def _pow3_solve(target: float, a: float, b: float, c: float) -> float:
    if target >= a:
        return math.inf
    if b <= 0:
        return 0.0
    return float((b / (a - target)) ** (1.0 / c))


def _log2(n: np.ndarray, a: float, b: float) -> np.ndarray:
    return a + b * np.log(n)


def _log2_solve(target: float, a: float, b: float) -> float:
    if target > 1.0:  # scores live in [0, 1]: an unbounded log curve must not promise more
        return math.inf
    if b <= 0:  # flat or falling: more data never raises the score
        return 0.0 if target <= a else math.inf
    return float(math.exp((target - a) / b))


def _exp3(n: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    return a - b * np.exp(-c * n)


def _exp3_solve(target: float, a: float, b: float, c: float) -> float:
    if target >= a:
        return math.inf
    if b <= 0 or target < a - b:
        return 0.0
    return float(-math.log((a - target) / b) / c)


CURVE_MODELS: dict[str, CurveModel] = {
    "pow3": CurveModel(
        "pow3", "score = a - b * n^(-c)", ("a", "b", "c"), _pow3, _pow3_solve, lambda a, b, c: a
    ),
    "log2": CurveModel(
        "log2", "score = a + b * ln(n)", ("a", "b"), _log2, _log2_solve, lambda a, b: math.inf if b > 0 else a
    ),
    "exp3": CurveModel(
        "exp3", "score = a - b * exp(-c * n)", ("a", "b", "c"), _exp3, _exp3_solve, lambda a, b, c: a
    ),
}


@dataclass
class CandidateFit:
    """One fitted family; parameters are in natural units (n = number of training items)."""

    model: str
    formula: str
    params: dict[str, float]
    rss: float
    aicc: float
    r2: float  # of the per-size means
    backtest_error: float  # |predicted - observed| mean score at the largest size, fitted without it
    converged: bool

    def predict(self, n: np.ndarray | float) -> np.ndarray:
        return CURVE_MODELS[self.model].predict(np.asarray(n, dtype=float), *self.params.values())

    def size_for(self, target: float) -> float:
        return CURVE_MODELS[self.model].solve(target, *self.params.values())

    @property
    def asymptote(self) -> float:
        return float(CURVE_MODELS[self.model].asymptote(*self.params.values()))


@dataclass
class LearningCurveFit:
    """The chosen fit for one embedding, with the other candidates kept for transparency."""

    embedding: str
    best: CandidateFit | None
    candidates: list[CandidateFit] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    mean_scores: list[float] = field(default_factory=list)
    n_points: int = 0
    criterion: str = "AICc over all (size, seed) cells"
    flat: bool = False  # every size has the same mean score: no curve to fit, nothing to extrapolate

    @property
    def ok(self) -> bool:
        return self.best is not None

    @property
    def level(self) -> float:
        """The score of a flat curve (its one mean); NaN for any other."""
        return self.mean_scores[0] if self.flat and self.mean_scores else math.nan

    def competitors(self, delta_aicc: float = 2.0) -> list[CandidateFit]:
        """Candidates whose AICc is within ``delta_aicc`` of the best: the data cannot tell them apart."""
        if self.best is None:
            return []
        return [c for c in self.candidates if c.aicc - self.best.aicc <= delta_aicc]

    def to_dict(self) -> dict[str, Any]:
        return {
            "embedding": self.embedding,
            "best": asdict(self.best) if self.best else None,
            "candidates": [asdict(c) for c in self.candidates],
            "sizes": self.sizes,
            "mean_scores": self.mean_scores,
            "n_points": self.n_points,
            "criterion": self.criterion,
            "flat": self.flat,
        }


def _initial(model: str, n: np.ndarray, y: np.ndarray) -> tuple[list[float], tuple[list[float], list[float]]]:
    """Start values and bounds on scaled sizes (n / largest size), where every family is well conditioned."""
    top, bottom = float(np.max(y)), float(np.min(y))
    span = max(top - bottom, 1e-3)
    if model == "pow3":
        return [min(top + span / 4, 1.0), span, 0.5], ([0.0, 0.0, 1e-3], [1.0, 10.0, 5.0])
    if model == "exp3":
        return [min(top + span / 10, 1.0), span * 2, 3.0], ([0.0, 0.0, 1e-3], [1.0, 10.0, 1e3])
    raise ValueError(model)


def _fit_one(model: str, n: np.ndarray, y: np.ndarray, scale: float) -> tuple[dict[str, float], bool]:
    """Least-squares fit of one family; returns natural-unit parameters and whether it converged."""
    x = n / scale
    if model == "log2":
        design = np.column_stack([np.ones_like(x), np.log(x)])
        (a, b), *_ = np.linalg.lstsq(design, y, rcond=None)
        return {"a": float(a - b * math.log(scale)), "b": float(b)}, True
    p0, bounds = _initial(model, x, y)
    func = _pow3 if model == "pow3" else _exp3
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            (a, b, c), _ = curve_fit(func, x, y, p0=p0, bounds=bounds, maxfev=20000)
    except (RuntimeError, ValueError):
        return {}, False
    if model == "pow3":  # b * (n/s)^-c = (b * s^c) * n^-c
        return {"a": float(a), "b": float(b * scale**c), "c": float(c)}, True
    return {"a": float(a), "b": float(b), "c": float(c / scale)}, True


def _aicc(rss: float, n_points: int, k: int) -> float:
    rss = max(rss, 1e-12 * n_points)
    aic = n_points * math.log(rss / n_points) + 2 * k
    if n_points - k - 1 > 0:
        return aic + 2 * k * (k + 1) / (n_points - k - 1)
    return math.inf  # too few points to penalise a k-parameter family fairly


def fit_curve_points(
    embedding: str, sizes: np.ndarray, scores: np.ndarray, models: tuple[str, ...] = ("pow3", "log2", "exp3")
) -> LearningCurveFit:
    """Fit every family in ``models`` to (size, score) points and choose by AICc."""
    sizes, scores = np.asarray(sizes, float), np.asarray(scores, float)
    keep = np.isfinite(scores) & (sizes > 0)
    sizes, scores = sizes[keep], scores[keep]
    distinct = np.unique(sizes)
    means = np.array([scores[sizes == s].mean() for s in distinct])
    result = LearningCurveFit(
        embedding,
        None,
        sizes=[int(s) for s in distinct],
        mean_scores=[float(m) for m in means],
        n_points=len(sizes),
    )
    if len(distinct) < 2:
        return result
    if float(np.ptp(means)) <= 1e-12:  # a flat curve (e.g. F1 0.0 at every size): R² is undefined, no fit
        result.flat = True
        return result
    scale = float(distinct[-1])
    for model in models:
        k = len(CURVE_MODELS[model].params)
        if len(distinct) < k:  # the family could pass through every mean: no evidence for its shape
            continue
        params, converged = _fit_one(model, sizes, scores, scale)
        if not converged:
            continue
        cand = CandidateFit(
            model, CURVE_MODELS[model].formula, params, math.nan, math.nan, math.nan, math.nan, True
        )
        rss = float(np.sum((scores - cand.predict(sizes)) ** 2))
        tss = float(np.sum((means - means.mean()) ** 2))
        r2 = 1 - float(np.sum((means - cand.predict(distinct)) ** 2)) / tss if tss > 0 else math.nan
        cand.rss, cand.aicc, cand.r2 = rss, _aicc(rss, len(sizes), k), r2
        cand.backtest_error = _backtest(model, sizes, scores, distinct, k)
        result.candidates.append(cand)
    if result.candidates:
        result.candidates.sort(key=lambda c: (c.aicc, c.rss))
        result.best = result.candidates[0]
    return result


def _backtest(model: str, sizes: np.ndarray, scores: np.ndarray, distinct: np.ndarray, k: int) -> float:
    """Fit without the largest size and measure how far the fit misses it (the extrapolation we trust)."""
    if len(distinct) - 1 < k:
        return math.nan
    largest = distinct[-1]
    train = sizes < largest
    params, converged = _fit_one(model, sizes[train], scores[train], float(distinct[-2]))
    if not converged:
        return math.nan
    predicted = float(CURVE_MODELS[model].predict(np.array([largest]), *params.values())[0])
    return abs(predicted - float(scores[~train].mean()))


def fit_learning_curve(
    analysis: Analysis, embedding: str, models: tuple[str, ...] = ("pow3", "log2", "exp3")
) -> LearningCurveFit:
    """Fit the learning curve of one embedding of a run (all sizes, all seeds)."""
    rows = analysis.curves[analysis.curves["embedding"] == embedding]
    return fit_curve_points(embedding, rows["size"].to_numpy(float), rows["score"].to_numpy(float), models)


@dataclass
class Extrapolation:
    """How many labelled items ``embedding`` would need to reach ``target``, and whether to believe it."""

    embedding: str
    target: float
    full_size: int
    items_needed: float  # inf = not reachable under the chosen fit; nan = no fit or a flat curve
    status: str  # "reached" | "extrapolated" | "not reachable" | "flat" | "no fit"
    reliable: bool
    reasons: list[str] = field(default_factory=list)  # why it is (un)reliable, in plain sentences
    model: str | None = None
    by_model: dict[str, float] = field(default_factory=dict)  # items needed under each close competitor
    level: float = math.nan  # the score of a flat curve (status "flat")

    @property
    def factor(self) -> float:
        """Items needed as a multiple of the largest size trained on."""
        return self.items_needed / self.full_size if self.full_size else math.nan

    @property
    def extra_items(self) -> float:
        """Labelled items to add beyond the current training set."""
        return max(self.items_needed - self.full_size, 0.0)

    def describe(self) -> str:
        """The renderer's sentence for this result (:func:`advisor.verdict._phrases.extrapolation_sentence`)."""
        return extrapolation_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"factor": self.factor, "extra_items": self.extra_items}


def _fit_reasons(
    best: CandidateFit, n_sizes: int, min_sizes: int, min_r2: float, max_backtest_error: float
) -> list[str]:
    """Why the chosen fit itself is not to be trusted: too few sizes, a poor fit, a failed backtest."""
    reasons: list[str] = []
    if n_sizes < min_sizes:
        reasons.append(f"only {n_sizes} training sizes (need {min_sizes})")
    if not math.isfinite(best.r2):
        reasons.append("no R² (the means do not vary)")
    elif best.r2 < min_r2:
        shown = math.floor(best.r2 * 1000) / 1000  # rounded down: never "R² 0.90 < 0.9"
        reasons.append(f"poor fit (R² of the means {shown:.3f} < {min_r2:g})")
    if math.isnan(best.backtest_error):
        reasons.append("no backtest possible (too few sizes)")
    elif best.backtest_error > max_backtest_error:
        reasons.append(
            f"fitted without the largest size it misses that size by {best.backtest_error:.3f} (> {max_backtest_error})"
        )
    return reasons


def _reach_reasons(needed: float, full_size: int, max_factor: float) -> list[str]:
    """Why a finite answer is not to be trusted: it contradicts the observed score, or reaches too far."""
    if needed <= full_size:
        return ["the fit says the target is already reached, but the observed score is below it"]
    if needed > max_factor * full_size:
        factor = f"{needed / full_size:.1f}×" if needed / full_size <= FAR_FACTOR else f"over {FAR_FACTOR:g}×"
        return [f"extrapolates {factor} beyond the largest size (limit {max_factor:g}×)"]
    return []


def _disagreement_reasons(by_model: dict[str, float], best: str, needed: float) -> list[str]:
    """Fits the data cannot tell apart (AICc) but that give different answers make the answer unreliable."""
    disagreeing = [m for m, v in by_model.items() if m != best and not _close(v, needed)]
    if not disagreeing:
        return []
    return [
        "equally good fits disagree ("
        + ", ".join(f"{m}: {_items_text(by_model[m])}" for m in [best, *disagreeing])
        + ")"
    ]


def extrapolate(
    fit: LearningCurveFit,
    target: float,
    full_size: int,
    *,
    observed_full: float | None = None,
    max_factor: float = 4.0,
    min_sizes: int = 4,
    min_r2: float = 0.9,
    max_backtest_error: float = 0.02,
    delta_aicc: float = 2.0,
) -> Extrapolation:
    """Items the fitted curve needs to reach ``target``; flagged unreliable per the stated rules.

    A target above the chosen fit's asymptote is "not reachable", never an (astronomical) number; a flat
    curve (the same mean at every size) is "flat": no trend, so no extrapolation.
    """
    reached = observed_full is not None and observed_full >= target
    if fit.flat:
        if reached:
            return Extrapolation(fit.embedding, target, full_size, float(full_size), "reached", True)
        reason = "the curve is flat: no trend to extrapolate"
        return Extrapolation(
            fit.embedding, target, full_size, math.nan, "flat", False, [reason], level=fit.level
        )
    if fit.best is None:
        return Extrapolation(
            fit.embedding, target, full_size, math.nan, "no fit", False, ["no curve could be fitted"]
        )
    best = fit.best
    if reached:
        return Extrapolation(
            fit.embedding, target, full_size, float(full_size), "reached", True, [], best.model
        )
    needed = best.size_for(target)
    by_model = {c.model: c.size_for(target) for c in fit.competitors(delta_aicc)}
    reasons = _fit_reasons(best, len(fit.sizes), min_sizes, min_r2, max_backtest_error)
    if math.isfinite(needed):
        reasons += _reach_reasons(needed, full_size, max_factor)
        reasons += _disagreement_reasons(by_model, best.model, needed)
    status, items = ("extrapolated", float(needed)) if math.isfinite(needed) else ("not reachable", math.inf)
    return Extrapolation(
        fit.embedding, target, full_size, items, status, not reasons, reasons, best.model, by_model
    )


def _close(a: float, b: float, rel: float = 0.5) -> bool:
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    return abs(a - b) <= rel * max(a, b)


def _items_text(n: float) -> str:
    return f"{n:,.0f} items" if math.isfinite(n) else "not reachable"
