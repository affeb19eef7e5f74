"""Tags the parent run carries beyond its params (set after the run opened, so not params)."""

from __future__ import annotations

__all__ = ["LR_TAG"]

#: Prefix + family name: the learning rate chosen for that family on dev (``advisor.pipeline._tune``).
LR_TAG = "advisor.lr."
