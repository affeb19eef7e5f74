"""A small linear-chain CRF in torch (forward algorithm, Viterbi, marginals): no extra dependency.

Scores of a tag path ``y`` for emissions ``E`` (batch x time x tags) are
``start[y_0] + sum_t E[t, y_t] + sum_t trans[y_{t-1}, y_t] + end[y_last]``. The loss is the negative
log-likelihood ``log Z - score(gold)``; ``log Z`` comes from the forward algorithm in log space.
Decoding can be restricted to IOB2-valid paths (``allowed`` masks), so the CRF never outputs a
stray ``I-``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["LinearChainCRF", "iob2_allowed_transitions"]

_FORBIDDEN = -1e4


def iob2_allowed_transitions(labels: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """Boolean ``(start_allowed[tags], transition_allowed[from, to])`` for valid IOB2 paths."""
    n = len(labels)
    start = torch.ones(n, dtype=torch.bool)
    trans = torch.ones(n, n, dtype=torch.bool)
    for j, to_tag in enumerate(labels):
        if not to_tag.startswith("I-"):
            continue
        start[j] = False
        entity_type = to_tag[2:]
        for i, from_tag in enumerate(labels):
            trans[i, j] = from_tag in (f"B-{entity_type}", f"I-{entity_type}")
    return start, trans


class LinearChainCRF(nn.Module):
    """Transition, start and end scores over ``num_tags`` tags; all methods take a boolean ``mask``.

    Masks must be left-aligned (true for the first ``length`` steps), as padded batches are.
    """

    def __init__(
        self,
        num_tags: int,
        start_allowed: torch.Tensor | None = None,
        transition_allowed: torch.Tensor | None = None,
    ) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.start = nn.Parameter(torch.zeros(num_tags))
        self.end = nn.Parameter(torch.zeros(num_tags))
        self.transitions = nn.Parameter(torch.zeros(num_tags, num_tags))
        if start_allowed is None:
            start_allowed = torch.ones(num_tags, dtype=torch.bool)
        if transition_allowed is None:
            transition_allowed = torch.ones(num_tags, num_tags, dtype=torch.bool)
        # Constraints act as fixed additive penalties, so training and decoding see the same model.
        self.register_buffer("start_penalty", (~start_allowed).float() * _FORBIDDEN)
        self.register_buffer("transition_penalty", (~transition_allowed).float() * _FORBIDDEN)

    def _scores(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.start + self.start_penalty, self.transitions + self.transition_penalty

    def path_score(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Unnormalised score of the given tag paths (batch,)."""
        start, trans = self._scores()
        maskf = mask.float()
        batch = torch.arange(emissions.shape[0], device=emissions.device)
        emit = emissions.gather(2, tags.unsqueeze(2)).squeeze(2)  # (B, T)
        score = start[tags[:, 0]] + (emit * maskf).sum(1)
        if tags.shape[1] > 1:
            step = trans[tags[:, :-1], tags[:, 1:]]  # (B, T-1)
            score = score + (step * maskf[:, 1:]).sum(1)
        last = tags[batch, mask.long().sum(1) - 1]
        return score + self.end[last]

    def log_partition(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``log Z`` of each sequence (batch,), by the forward algorithm."""
        start, trans = self._scores()
        alpha = start + emissions[:, 0]  # (B, K)
        for t in range(1, emissions.shape[1]):
            step = torch.logsumexp(alpha.unsqueeze(2) + trans.unsqueeze(0), dim=1) + emissions[:, t]
            alpha = torch.where(mask[:, t].unsqueeze(1), step, alpha)
        return torch.logsumexp(alpha + self.end, dim=1)

    def neg_log_likelihood(
        self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor
    ) -> torch.Tensor:
        """Summed over the batch: ``sum(log Z - score(gold))``."""
        return (self.log_partition(emissions, mask) - self.path_score(emissions, tags, mask)).sum()

    def marginals(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``p(y_t = k | x)`` (batch, time, tags): the gradient of ``log Z`` w.r.t. the emissions."""
        with torch.enable_grad():
            emissions = emissions.detach().requires_grad_(True)
            log_z = self.log_partition(emissions, mask).sum()
            (grad,) = torch.autograd.grad(log_z, emissions)
        return grad * mask.unsqueeze(2).float()

    @torch.no_grad()
    def viterbi(self, emissions: torch.Tensor, mask: torch.Tensor) -> list[list[int]]:
        """Best tag path of each sequence, cut to its length."""
        start, trans = self._scores()
        n_steps = emissions.shape[1]
        score = start + emissions[:, 0]
        backpointers = []
        for t in range(1, n_steps):
            candidates = score.unsqueeze(2) + trans.unsqueeze(0)  # (B, from, to)
            best, best_from = candidates.max(dim=1)
            step = best + emissions[:, t]
            keep = mask[:, t].unsqueeze(1)
            score = torch.where(keep, step, score)
            # Past the end, point each tag to itself so backtracking passes through unchanged.
            identity = torch.arange(self.num_tags, device=emissions.device).expand_as(best_from)
            backpointers.append(torch.where(keep, best_from, identity))
        score = score + self.end
        best_last = score.argmax(dim=1)
        lengths = mask.long().sum(1).tolist()
        path = [best_last]
        for pointers in reversed(backpointers):
            path.append(pointers.gather(1, path[-1].unsqueeze(1)).squeeze(1))
        path.reverse()
        full = torch.stack(path, dim=1).tolist()
        return [row[:length] for row, length in zip(full, lengths, strict=True)]
