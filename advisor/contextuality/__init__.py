"""How contextual the encoder is, which of its layers the task uses, and sentences that name what was measured.

- :func:`measure_contextuality`: Ethayarajh (2019) self-similarity, intra-sentence similarity and
  maximum explainable variance per layer, each with its anisotropy baseline;
- :func:`layer_sweep`: the downstream model trained on each single layer and on the scalar mix;
- :func:`layer_reasons` / :func:`layer_caveats`: the verdict's sentences about the encoder;
- ``plot_*``: figures of those results.
"""

from __future__ import annotations

from advisor.contextuality._describe import (
    STRONGER_ENCODER,
    encoder_name,
    is_sentence_embedding_model,
    layer_caveats,
    layer_figures,
    layer_reasons,
    layer_report,
    mix_weight_summary,
)
from advisor.contextuality._measures import (
    TABLE_COLUMNS,
    ContextualityResult,
    explained_by_first_pc,
    mean_pairwise_cosine,
    measure_contextuality,
)
from advisor.contextuality._plot import plot_contextuality, plot_layer_sweep, plot_mix_weights
from advisor.contextuality._stage import (
    CONTEXTUALITY_TABLE,
    MIX_WEIGHTS_TABLE,
    contextuality_for,
    log_contextuality,
    log_mix_weights,
    mix_weights_frame,
    mix_weights_table,
    run_contextuality_stage,
    write_table,
)
from advisor.contextuality._sweep import LayerSweep, layer_sweep, log_layer_sweep, sweep_summary

__all__ = [
    "CONTEXTUALITY_TABLE",
    "MIX_WEIGHTS_TABLE",
    "STRONGER_ENCODER",
    "TABLE_COLUMNS",
    "ContextualityResult",
    "LayerSweep",
    "contextuality_for",
    "encoder_name",
    "explained_by_first_pc",
    "is_sentence_embedding_model",
    "layer_caveats",
    "layer_figures",
    "layer_reasons",
    "layer_report",
    "layer_sweep",
    "log_contextuality",
    "log_layer_sweep",
    "log_mix_weights",
    "mean_pairwise_cosine",
    "measure_contextuality",
    "mix_weight_summary",
    "mix_weights_frame",
    "mix_weights_table",
    "plot_contextuality",
    "plot_layer_sweep",
    "plot_mix_weights",
    "run_contextuality_stage",
    "sweep_summary",
    "write_table",
]
