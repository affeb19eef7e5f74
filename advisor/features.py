"""Word-level feature matrices shared by every embedding family and every trainer.

The type is defined in :mod:`trainers._features` (trainers depend on nothing in ``advisor``; the
embeddings build what the trainers take) and re-exported here under its usual name.
"""

from __future__ import annotations

from trainers import RowView, TokenFeatures, offsets_from_lengths

__all__ = ["RowView", "TokenFeatures", "offsets_from_lengths"]
