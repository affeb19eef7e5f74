"""BiLSTM tagger over frozen word vectors, with an optional CRF layer and a casing feature.

Why a casing feature: the uncased encoders (all-MiniLM, bert-base-uncased) and lowercased GloVe
have lost the capitalisation that NER leans on ("apple" vs "Apple"), while random vectors keyed
on the raw word keep it. Concatenating the same small one-hot casing class to *every* embedding
gives all of them that signal, so the comparison measures the embedding, not a casing accident.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from trainers._crf import LinearChainCRF, iob2_allowed_transitions
from trainers._mix import ScalarMix
from trainers._rnn import BiLSTM

__all__ = ["CASING_CLASSES", "BiLSTMTagger", "casing_ids"]

CASING_CLASSES: tuple[str, ...] = ("lower", "upper", "title", "mixed", "digit", "punct", "other")


@functools.lru_cache(maxsize=2**16)
def _casing_class(token: str) -> int:
    if any(ch.isdigit() for ch in token):
        return 4
    if not any(ch.isalnum() for ch in token):
        return 5 if token else 6
    cased = [ch for ch in token if ch.isalpha() and ch.lower() != ch.upper()]
    if not cased:  # letters without case (CJK, Arabic, ...)
        return 6
    if all(ch.islower() for ch in cased):
        return 0
    if all(ch.isupper() for ch in cased):
        return 1 if len(cased) > 1 else 2
    if cased[0].isupper() and all(ch.islower() for ch in cased[1:]):
        return 2
    return 3


def casing_ids(tokens: Sequence[str]) -> np.ndarray:
    """Index into :data:`CASING_CLASSES` for each token (a digit wins over letters).

    Classified once per distinct word, then looked up: every cell re-reads its splits' casing, so
    the per-token cached call ran ~400k times per full-size cell.
    """
    classes = {tok: _casing_class(tok) for tok in set(tokens)}
    return np.fromiter(map(classes.__getitem__, tokens), dtype=np.int64, count=len(tokens))


class BiLSTMTagger(nn.Module):
    """[Scalar mix of layers ->] projection -> [+ casing one-hot] -> BiLSTM -> per-token tag scores (-> CRF)."""

    def __init__(
        self,
        input_dim: int,
        labels: Sequence[str],
        projection: int,
        hidden: int,
        dropout: float,
        use_crf: bool = False,
        casing_features: bool = True,
        observed_transitions: np.ndarray | None = None,
        mix: ScalarMix | None = None,
    ) -> None:
        super().__init__()
        self.mix = mix
        self.labels = list(labels)
        self.casing_features = casing_features
        self.project = nn.Linear(input_dim, projection)
        self.dropout = nn.Dropout(dropout)
        casing_dim = len(CASING_CLASSES) if casing_features else 0
        self.lstm = BiLSTM(projection + casing_dim, hidden)
        self.output = nn.Linear(2 * hidden, len(self.labels))
        self.crf: LinearChainCRF | None = None
        if use_crf:
            start_ok, trans_ok = iob2_allowed_transitions(self.labels)
            if observed_transitions is not None:
                # Never forbid what the gold training data itself contains.
                trans_ok |= torch.as_tensor(observed_transitions, dtype=torch.bool)
            self.crf = LinearChainCRF(len(self.labels), start_ok, trans_ok)

    def emissions(self, vectors: torch.Tensor, casing: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Tag scores (batch, time, tags) from padded vectors (or layer stacks) and casing ids."""
        if self.mix is not None:
            vectors = self.mix(vectors)
        hidden = self.dropout(self.project(vectors))
        if self.casing_features:
            onehot = nn.functional.one_hot(casing, len(CASING_CLASSES)).to(hidden.dtype)
            hidden = torch.cat([hidden, onehot], dim=-1)
        hidden = self.lstm(hidden, mask.sum(1))
        return self.output(self.dropout(hidden))

    def loss(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Mean per-token loss: cross-entropy, or the CRF negative log-likelihood per token."""
        n_tokens = mask.sum().clamp(min=1)
        if self.crf is not None:
            return self.crf.neg_log_likelihood(emissions, tags, mask) / n_tokens
        return nn.functional.cross_entropy(emissions[mask], tags[mask], reduction="sum") / n_tokens

    @torch.no_grad()
    def decode(
        self, emissions: torch.Tensor, mask: torch.Tensor, with_probs: bool = True
    ) -> tuple[list[list[int]], torch.Tensor | None]:
        """Best tag ids per item and ``p(tag)`` per token (CRF marginals or softmax).

        ``with_probs=False`` skips the probabilities (``None``): early stopping needs only the tags,
        and the CRF marginals are a second forward-backward pass.
        """
        if self.crf is not None:
            marginals = self.crf.marginals(emissions, mask) if with_probs else None
            return self.crf.viterbi(emissions, mask), marginals
        lengths = mask.sum(1).tolist()
        probs = emissions.softmax(dim=-1)
        best = probs.argmax(dim=-1).tolist()
        return [row[:n] for row, n in zip(best, lengths, strict=True)], probs if with_probs else None
