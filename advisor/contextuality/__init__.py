"""How contextual the encoder is, which of its layers the task uses, and sentences that name what was measured.

- :func:`measure_contextuality` / :func:`contextuality_for`: Ethayarajh (2019) self-similarity,
  intra-sentence similarity and maximum explainable variance per layer, each with its anisotropy baseline;
- :func:`layer_sweep`: the downstream model trained on each single layer and on the scalar mix;
- :func:`mix_weights_frame`: the learned scalar-mix weights of a run's cells as one table;
- :func:`layer_reasons` / :func:`layer_caveats`: the verdict's sentences about the encoder;
- ``plot_*``: figures of those results.

Computing only: the run's stages (``advisor.pipeline``) measure and record, the record layer
(``advisor.tracking``) saves and loads these results.
"""

from __future__ import annotations

from advisor.contextuality._describe import (
    STRONGER_ENCODER,
    encoder_name,
    layer_caveats,
    layer_figures,
    layer_reasons,
    layer_report,
    mix_weight_summary,
)
from advisor.contextuality._measures import (
    TABLE_COLUMNS,
    ContextualityResult,
    contextuality_for,
    explained_by_first_pc,
    mean_pairwise_cosine,
    measure_contextuality,
)
from advisor.contextuality._mix import MIX_COLUMNS, mix_weights_frame, mix_weights_rows
from advisor.contextuality._plot import plot_contextuality, plot_layer_sweep, plot_mix_weights
from advisor.contextuality._sweep import LayerSweep, all_layers_encoder, layer_sweep, sweep_summary

__all__ = [
    "MIX_COLUMNS",
    "STRONGER_ENCODER",
    "TABLE_COLUMNS",
    "ContextualityResult",
    "LayerSweep",
    "all_layers_encoder",
    "contextuality_for",
    "encoder_name",
    "explained_by_first_pc",
    "layer_caveats",
    "layer_figures",
    "layer_reasons",
    "layer_report",
    "layer_sweep",
    "mean_pairwise_cosine",
    "measure_contextuality",
    "mix_weight_summary",
    "mix_weights_frame",
    "mix_weights_rows",
    "plot_contextuality",
    "plot_layer_sweep",
    "plot_mix_weights",
    "sweep_summary",
]
