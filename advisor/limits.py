"""The most a numeric run setting may be, and why: the bounds :func:`advisor.validate.validate_settings`
and the verdict's input check (``advisor.verdict``) refuse a typing mistake with.

Why apart from :mod:`advisor.settings`: they are the checks' data, not the settings' shape; the
settings module re-exports them under the name every reader already uses.
"""

from __future__ import annotations

__all__ = ["LIMITS"]

#: The most a numeric setting may be, and why: far beyond any real analysis, so only a typing mistake
#: reaches it (``--seeds 100000`` would otherwise run for months, ``--random-dim 10**9`` allocate 7 GiB
#: after the run was created, a 20-digit seed overflow numpy). ``validate_settings`` refuses a value
#: above it with the reason as the hint; every number must also be finite.
LIMITS: dict[str, tuple[int, str]] = {
    "seeds": (1000, "1000 seeds per cell is 200x the paper's 5; each seed trains every cell once more"),
    "workers": (1024, "one worker per CPU core is the default; more than 1024 processes only contend"),
    "max_steps": (
        10_000_000,
        "the profiles stop cells after a few thousand steps; 10 million is already weeks",
    ),
    "patience": (10_000, "patience counts dev evaluations (every 20-100 steps); the profiles use 3-8"),
    "random_dim": (16_384, "wider than any encoder (BERT-large is 1024); every token takes dim x 4 bytes"),
    "projection": (4096, "the profiles try 64 and 256; a map wider than 4096 outgrows any encoder it reads"),
    "finetune_epochs": (1000, "fine-tuning converges in a few epochs; the default is 10"),
    "finetune_seeds": (1000, "the fine-tuned reference uses at most the grid's seeds"),
    "split_seed": (2**32 - 1, "numpy and scikit-learn take 32-bit seeds"),
    "price_per_hour": (1_000_000, "a price per machine hour; 1,000,000 is beyond any cloud machine"),
    "latency_budget_ms": (3_600_000, "a latency budget of an hour per item is no budget"),
    "monthly_items": (10**15, "a quadrillion items a month is beyond any service"),
    "value_per_point": (10**12, "a trillion per accuracy point per 1M items is beyond any business case"),
    "label_cost": (1_000_000, "a million per labelled item is beyond any annotation project"),
}
