"""The verdict's record: the decision as codes and numbers, and every result behind it.

:func:`advisor.verdict.recommend` fills it; :mod:`advisor.verdict._wording` is the one renderer of
its sentences. ``headline``, ``reasons``, ``caveats`` and ``summary_lines()`` ask that renderer, so
every caller (CLI, report, app, ``verdict.json``) reads the same words.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from advisor.verdict._codes import INCONCLUSIVE, NOT_JUDGED, Note
from advisor.verdict._convergence import ConvergenceAudit
from advisor.verdict._cost import CostComparison
from advisor.verdict._efficiency import DataEfficiency
from advisor.verdict._fit import Extrapolation, LearningCurveFit
from advisor.verdict._gaps import ScoreGap
from advisor.verdict._headroom import Headroom
from advisor.verdict._slices import SliceFinding
from advisor.verdict._thresholds import Thresholds
from advisor.verdict._wording import caveats, headline, reasons, render

__all__ = ["Recommendation"]


@dataclass
class Recommendation:
    """The verdict, the rule and notes that led there (codes), and every number behind them."""

    thresholds: Thresholds
    task: str
    primary_metric: str
    full_size: int
    sizes: list[int]
    n_seeds: int
    verdict: str = INCONCLUSIVE
    rule: Note = field(default_factory=lambda: Note(NOT_JUDGED))  # the rule that gave the verdict
    problems: list[Note] = field(default_factory=list)  # failed evidence gates (rule NOT_JUDGED)
    reason_notes: list[Note] = field(default_factory=list)
    caveat_notes: list[Note] = field(default_factory=list)
    gaps: list[ScoreGap] = field(default_factory=list)
    efficiency: list[DataEfficiency] = field(default_factory=list)
    fits: dict[str, LearningCurveFit] = field(default_factory=dict)
    extrapolations: list[Extrapolation] = field(default_factory=list)
    costs: CostComparison | None = None
    slices: list[SliceFinding] = field(default_factory=list)
    overlap: pd.DataFrame | None = None  # pairwise overlap of the metrics' difficult slices
    headroom: Headroom | None = None  # fine-tuned reference vs frozen contextual, when it ran
    convergence: ConvergenceAudit | None = None  # steps and under-trained cells per (family, size)
    tradeoff: Note | None = None  # contextual's gap against its cost, stated after the headline (_worth)

    @property
    def headline(self) -> str:
        """The verdict in one sentence (the renderer's)."""
        return headline(self)

    @property
    def reasons(self) -> list[str]:
        """The sentences that led there (the renderer's)."""
        return reasons(self)

    @property
    def caveats(self) -> list[str]:
        """What limits the verdict (the renderer's)."""
        return caveats(self)

    @property
    def reason_codes(self) -> list[str]:
        """The reasons as codes, in order: what tests of the decision assert on."""
        return [note.code for note in self.reason_notes]

    @property
    def caveat_codes(self) -> list[str]:
        """The caveats as codes, in order."""
        return [note.code for note in self.caveat_notes]

    @property
    def carrying_slices(self) -> list[SliceFinding]:
        """Difficulty slices on which contextual's advantage is significantly larger."""
        return [s for s in self.slices if s.carried_by == "difficult"]

    def gap(self, pair: str) -> ScoreGap | None:
        return next((g for g in self.gaps if g.pair == pair), None)

    def extrapolation(self, embedding: str) -> Extrapolation | None:
        return next((x for x in self.extrapolations if x.embedding == embedding), None)

    def summary_lines(self) -> list[str]:
        """Plain lines for the terminal: verdict, reasons, caveats, thresholds."""
        return render(self).summary_lines()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe (NaN and inf become None) for MLflow ``log_dict`` and the app."""
        words = render(self)
        return _jsonable(
            {
                "verdict": self.verdict,
                "headline": words.headline,
                "reasons": words.reasons,
                "caveats": words.caveats,
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
                "tradeoff": self.tradeoff.values if self.tradeoff is not None else None,
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
