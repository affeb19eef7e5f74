"""What the user is willing to trade, and the reliability rules every verdict obeys."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from advisor._error_codes import E602, E603

__all__ = ["Thresholds"]


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
            raise E602(
                name="acceptable loss",
                requirement=f"be in [0, 1) (score scale), got {self.acceptable_loss}",
                hint="0.01 means one F1/accuracy point",
            )
        if not 0.5 <= self.confidence < 1:
            raise E602(name="confidence", requirement=f"be in [0.5, 1), got {self.confidence}")
        for name in (
            "latency_budget_ms",
            "label_cost",
            "labelling_budget_items",
            "labelling_budget_money",
            "price_per_hour",
        ):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise E602(name=name, requirement=f"not be negative, got {value}")
        if self.labelling_budget_money is not None and not self.label_cost:
            raise E603()
        if self.min_seeds < 2:
            raise E602(name="min_seeds", requirement="be at least 2: one seed gives no interval")
        if self.max_extrapolation < 1:
            raise E602(name="max_extrapolation", requirement=f"be ≥ 1, got {self.max_extrapolation}")

    def labelling_budget(self, full_size: int) -> float:
        """Extra labelled items affordable: the tightest of the items and money budgets (default: full_size)."""
        budgets: list[float] = []
        if self.labelling_budget_items is not None:
            budgets.append(float(self.labelling_budget_items))
        if self.labelling_budget_money is not None and self.label_cost:
            budgets.append(self.labelling_budget_money / self.label_cost)
        return min(budgets) if budgets else float(full_size)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
