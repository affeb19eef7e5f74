"""Tags the parent run carries beyond its params (set after the run opened, so not params)."""

from __future__ import annotations

__all__ = ["LR_TAG", "known_rates"]

#: Prefix + family name: the learning rate chosen for that family on dev (``advisor.pipeline._tune``).
LR_TAG = "advisor.lr."


def known_rates(tags: dict[str, str]) -> dict[str, float]:
    """The learning rate chosen per family, read from a parent run's tags."""
    return {k[len(LR_TAG) :]: float(v) for k, v in tags.items() if k.startswith(LR_TAG)}
