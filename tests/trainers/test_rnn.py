from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from trainers._rnn import BiLSTM, _reversal_index, _row_index, _take_steps

LENGTHS = torch.tensor([5, 2, 7, 1, 4])
STEPS, DIM, HIDDEN = 7, 6, 4


def _packed_reference(bilstm: BiLSTM) -> nn.LSTM:
    """A packed ``nn.LSTM(bidirectional=True)`` holding the same weights."""
    reference = nn.LSTM(DIM, HIDDEN, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name, _ in bilstm.forward_lstm.named_parameters():
            getattr(reference, name).copy_(getattr(bilstm.forward_lstm, name))
            getattr(reference, f"{name}_reverse").copy_(getattr(bilstm.backward_lstm, name))
    return reference


def _packed_run(reference: nn.LSTM, inputs: torch.Tensor) -> torch.Tensor:
    packed = pack_padded_sequence(inputs, LENGTHS, batch_first=True, enforce_sorted=False)
    output, _ = reference(packed)
    return pad_packed_sequence(output, batch_first=True, total_length=STEPS)[0]


def test_outputs_and_gradients_equal_the_packed_bidirectional_lstm():
    torch.manual_seed(0)
    bilstm = BiLSTM(DIM, HIDDEN)
    reference = _packed_reference(bilstm)
    inputs = torch.randn(len(LENGTHS), STEPS, DIM)
    inputs[torch.arange(STEPS)[None, :] >= LENGTHS[:, None]] = 123.0  # padding must not leak in
    ours_in, theirs_in = inputs.clone().requires_grad_(), inputs.clone().requires_grad_()
    ours, theirs = bilstm(ours_in, LENGTHS), _packed_run(reference, theirs_in)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    weights = torch.randn_like(ours)
    (ours * weights).sum().backward()
    (theirs * weights).sum().backward()
    torch.testing.assert_close(ours_in.grad, theirs_in.grad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(
        bilstm.backward_lstm.weight_hh_l0.grad, reference.weight_hh_l0_reverse.grad, rtol=1e-5, atol=1e-6
    )


def test_padded_steps_are_zero():
    out = BiLSTM(DIM, HIDDEN)(torch.randn(len(LENGTHS), STEPS, DIM), LENGTHS)
    padded = torch.arange(STEPS)[None, :] >= LENGTHS[:, None]
    assert out[padded].abs().max() == 0
    assert out[~padded].abs().min() > 0


def test_a_seed_gives_the_initial_weights_of_the_bidirectional_module():
    torch.manual_seed(3)
    ours = BiLSTM(DIM, HIDDEN)
    torch.manual_seed(3)
    theirs = nn.LSTM(DIM, HIDDEN, batch_first=True, bidirectional=True)
    torch.testing.assert_close(ours.forward_lstm.weight_ih_l0, theirs.weight_ih_l0, rtol=0, atol=0)
    torch.testing.assert_close(ours.backward_lstm.bias_hh_l0, theirs.bias_hh_l0_reverse, rtol=0, atol=0)


def test_the_reversal_and_its_gradient_are_exact_copies_of_the_gathered_steps():
    """The row selection (forward and backward) equals ``gather`` and its ``scatter_add`` bit for bit."""
    reverse = _reversal_index(LENGTHS, STEPS)
    inputs = torch.randn(len(LENGTHS), STEPS, DIM, requires_grad=True)
    weights = torch.randn(len(LENGTHS), STEPS, DIM)
    gathered = inputs.gather(1, reverse.unsqueeze(2).expand(-1, -1, DIM))
    (expected_grad,) = torch.autograd.grad((gathered * weights).sum(), inputs)
    selected = _take_steps(inputs, _row_index(reverse))
    (grad,) = torch.autograd.grad((selected * weights).sum(), inputs)
    assert torch.equal(selected, gathered)
    assert torch.equal(grad, expected_grad)
    assert torch.equal(_take_steps(selected, _row_index(reverse)), inputs)  # its own inverse
