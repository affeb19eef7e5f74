from __future__ import annotations

import itertools

import pytest
import torch

from trainers import LinearChainCRF, iob2_allowed_transitions


def _brute_force(crf: LinearChainCRF, emissions: torch.Tensor, length: int) -> dict[tuple[int, ...], float]:
    """Score of every tag path of one sequence, straight from the definition."""
    paths = {}
    for path in itertools.product(range(crf.num_tags), repeat=length):
        tags = torch.tensor([list(path) + [0] * (emissions.shape[1] - length)])
        mask = torch.arange(emissions.shape[1]).unsqueeze(0) < length
        with torch.no_grad():
            paths[path] = float(crf.path_score(emissions, tags, mask)[0])
    return paths


@pytest.fixture
def random_crf() -> LinearChainCRF:
    torch.manual_seed(3)
    crf = LinearChainCRF(3)
    with torch.no_grad():
        crf.transitions.normal_()
        crf.start.normal_()
        crf.end.normal_()
    return crf


def test_path_score_matches_hand_computation(random_crf: LinearChainCRF) -> None:
    emissions = torch.randn(1, 3, 3)
    tags = torch.tensor([[2, 0, 1]])
    expected = (
        random_crf.start[2]
        + emissions[0, 0, 2]
        + random_crf.transitions[2, 0]
        + emissions[0, 1, 0]
        + random_crf.transitions[0, 1]
        + emissions[0, 2, 1]
        + random_crf.end[1]
    )
    with torch.no_grad():
        score = random_crf.path_score(emissions, tags, torch.ones(1, 3, dtype=torch.bool))
    assert float(score[0]) == pytest.approx(float(expected.detach()), abs=1e-5)


def test_viterbi_partition_and_marginals_match_brute_force(random_crf: LinearChainCRF) -> None:
    emissions = torch.randn(2, 4, 3)
    lengths = [4, 2]  # second sequence padded: the padding must not change anything
    mask = torch.arange(4).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    best = random_crf.viterbi(emissions, mask)
    log_z = random_crf.log_partition(emissions, mask).detach()
    marginals = random_crf.marginals(emissions, mask)
    for i, length in enumerate(lengths):
        scores = _brute_force(random_crf, emissions[i : i + 1], length)
        best_path = max(scores, key=scores.get)
        assert tuple(best[i]) == best_path
        all_scores = torch.tensor(list(scores.values()))
        assert float(log_z[i]) == pytest.approx(float(torch.logsumexp(all_scores, 0)), abs=1e-4)
        probs = (all_scores - torch.logsumexp(all_scores, 0)).exp()
        for t in range(length):
            for k in range(3):
                expected = sum(p for path, p in zip(scores, probs.tolist(), strict=True) if path[t] == k)
                assert float(marginals[i, t, k]) == pytest.approx(expected, abs=1e-4)
        assert torch.all(marginals[i, length:] == 0)


def test_neg_log_likelihood_is_log_partition_minus_gold_score(random_crf: LinearChainCRF) -> None:
    emissions = torch.randn(1, 3, 3)
    tags = torch.tensor([[1, 1, 0]])
    mask = torch.ones(1, 3, dtype=torch.bool)
    scores = _brute_force(random_crf, emissions, 3)
    all_scores = torch.tensor(list(scores.values()))
    expected = float(torch.logsumexp(all_scores, 0)) - scores[(1, 1, 0)]
    nll = random_crf.neg_log_likelihood(emissions, tags, mask).detach()
    assert float(nll) == pytest.approx(expected, abs=1e-4)


def test_iob2_constraints_forbid_stray_inside_tags() -> None:
    labels = ["B-PER", "I-PER", "O"]
    start_ok, trans_ok = iob2_allowed_transitions(labels)
    assert start_ok.tolist() == [True, False, True]
    assert trans_ok[2, 1].item() is False  # O -> I-PER
    assert trans_ok[0, 1].item() is True  # B-PER -> I-PER
    crf = LinearChainCRF(3, start_ok, trans_ok)
    emissions = torch.tensor([[[0.0, 5.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 1.0], [0.0, 5.0, 0.0]]])
    path = crf.viterbi(emissions, torch.ones(1, 4, dtype=torch.bool))[0]
    tags = [labels[k] for k in path]
    for previous, tag in zip(["O", *tags], tags, strict=False):
        if tag == "I-PER":
            assert previous in ("B-PER", "I-PER")
