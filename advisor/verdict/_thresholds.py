"""What the user is willing to trade, and the reliability rules every verdict obeys."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from advisor._error_codes import E211, E244, E245, E602, E603, E604
from advisor.costs import BATCH_SIZES
from advisor.settings import DECISION_INPUTS, DECISION_PARAM, LIMITS, setting

__all__ = ["Thresholds", "check_decision_inputs", "run_thresholds", "stored_inputs"]


@dataclass(frozen=True)
class Thresholds:
    """What the user is willing to trade; every default is stated here and in the report.

    - ``acceptable_loss``: score (on the [0, 1] scale) you accept to lose for a cheaper embedding;
      0.01 = one F1/accuracy point. A cheap embedding is "enough" only when the *upper* end of the
      interval of its gap to every costlier embedding is within this loss.
    - ``latency_budget_ms``: serving latency per item (raw text to prediction) you can afford at batch
      ``latency_batch`` (1 or 64); a family over it is never the recommendation. None = no limit.
    - ``price_per_hour``: what the serving machine costs per hour; when set, the verdict prices 1M items
      (batch-64 throughput) per embedding and states the trade-off in money. None = in machine-hours.
    - ``monthly_items``: serving volume (items per month): the extra serving cost is also stated per month.
    - ``value_per_point``: money one point (0.01 of the score) is worth per 1M items served; with a price,
      contextual is "worth it" only if the lower end of its gap's interval is worth more than its extra
      serving cost, "not worth it" if the upper end is worth less, else undecided (:mod:`._worth`).
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
    latency_batch: int = 1
    monthly_items: float | None = None
    value_per_point: float | None = None

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
            "monthly_items",
            "value_per_point",
        ):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise E602(name=name, requirement=f"not be negative, got {value}")
        if self.labelling_budget_money is not None and not self.label_cost:
            raise E603()
        if self.latency_batch not in BATCH_SIZES:  # the batch sizes the serving pass times
            raise E602(name="latency batch", requirement=f"be 1 or 64, got {self.latency_batch}")
        if self.value_per_point is not None and self.price_per_hour is None:
            raise E604()
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


def stored_inputs(params: Mapping[str, Any]) -> dict[str, Any]:
    """The decision inputs a run was given (``params[DECISION_PARAM]``, JSON); older runs: their price tag."""
    raw = params.get(DECISION_PARAM)
    if raw:
        given = json.loads(raw) if isinstance(raw, str) else dict(raw)
        return {name: value for name, value in given.items() if name in DECISION_INPUTS}
    price = params.get("price_per_hour")
    return {"price_per_hour": float(price)} if price not in (None, "") else {}


def run_thresholds(
    params: Mapping[str, Any], given: Mapping[str, Any] | None = None, **others: Any
) -> Thresholds:
    """Thresholds for judging a run: its stored decision inputs, each overridden by one ``given`` (not None)
    (``advisor report``'s options), the rest (``others``, then the defaults) as stated."""
    inputs = stored_inputs(params) | {k: v for k, v in (given or {}).items() if v is not None}
    if "latency_batch" in inputs:
        inputs["latency_batch"] = int(inputs["latency_batch"])
    return Thresholds(**others, **inputs)


def check_decision_inputs(values: Mapping[str, float | None], complete: bool = False) -> None:
    """The decision inputs as options (``advisor run``, ``advisor report`` and the app alike, named by their
    flags, before anything is created or read): finite (E244), not negative, within
    :data:`~advisor.settings.LIMITS` (E245), a loss on the 0-1 scale, a batch size the serving pass times;
    ``complete`` (all of one run's, not a report's overrides): a value per point needs a price (E604)."""
    for name, value in values.items():
        if value is None:
            continue
        option = setting(name).flag
        if not math.isfinite(value):  # NaN passes every `value < 0` check
            raise E244(option=option, value=value)
        if value < 0:
            raise E211(option=option, requirement=f"not be negative, got {value}", hint="write 0 or more")
        limit, why = LIMITS.get(name, (math.inf, ""))
        if value > limit:
            raise E245(option=option, limit=f"{limit:,}", value=value, why=why)
    loss = values.get("acceptable_loss")
    if loss is not None and loss >= 1:
        requirement = f"be below 1 (the 0-1 score scale), got {loss}"
        raise E211(
            option="--acceptable-loss", requirement=requirement, hint="0.01 means one accuracy/F1 point"
        )
    batch = values.get("latency_batch")
    if batch is not None and batch not in BATCH_SIZES:
        requirement = f"be 1 or 64 (the batch sizes the serving pass measures), got {batch}"
        raise E211(
            option="--latency-batch", requirement=requirement, hint="1: one request at a time; 64: bulk"
        )
    if complete and values.get("value_per_point") is not None and values.get("price_per_hour") is None:
        raise E604()
