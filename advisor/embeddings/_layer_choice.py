"""The ``layer`` option of an encoder family: which hidden states make a word's vector.

Why a module of its own: the contextual family reads its cached layer stack by it, the distilled
family checks its one layer with it, and validation checks ``--layer`` before any model loads; all
three parse the same text the same way (:func:`parse_layer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor._error_codes import E231, E231_UNKNOWN

__all__ = ["LayerChoice", "parse_layer"]


@dataclass(frozen=True)
class LayerChoice:
    """Which hidden states make the word vector: one index, or the mean of the last ``k``."""

    text: str
    index: int | None = None
    last_k: int | None = None
    mix: bool = False

    @classmethod
    def parse(cls, layer: str | int, n_layers: int) -> LayerChoice:
        allowed = (
            f'"mix" (learned scalar mix of all layers), "last", an integer from {-(n_layers + 1)} to '
            f'{n_layers} (0 = embeddings), or "mean-last-K" with 1 <= K <= {n_layers}'
        )
        text = str(layer).strip().lower()
        if text == "mix":
            return cls("mix", mix=True)
        if text == "last":
            return cls("last", index=-1)
        match = re.fullmatch(r"mean-last-(\d+)", text)
        if match:
            k = int(match.group(1))
            if not 1 <= k <= n_layers:
                raise E231(what="layer", layer=layer, problem="out of range", allowed=allowed)
            return cls(text, last_k=k)
        try:
            index = int(text)
        except ValueError:
            raise E231_UNKNOWN(layer=layer, allowed=allowed) from None
        if not -(n_layers + 1) <= index <= n_layers:
            raise E231(what="layer", layer=layer, problem="out of range", allowed=allowed)
        return cls(str(index), index=index)

    def indices(self, n_layers: int) -> list[int]:
        """Hidden-state indices (0 = embeddings, ``n_layers`` = last) this choice reads."""
        if self.mix:
            return list(range(n_layers + 1))
        if self.last_k is not None:
            return list(range(n_layers + 1 - self.last_k, n_layers + 1))
        assert self.index is not None
        return [self.index % (n_layers + 1)]


def parse_layer(layer: str | int, n_layers: int) -> LayerChoice:
    """``layer`` ("mix", "last", an index, "mean-last-K") for an encoder of ``n_layers`` layers; ConfigError if bad."""
    return LayerChoice.parse(layer, n_layers)
