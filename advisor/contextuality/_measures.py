"""How contextual an encoder's word vectors are on the user's data, per layer (Ethayarajh 2019).

Why: "context did not help" is only interpretable next to how much the vectors actually vary with
context. Per layer ℓ (0 = the input embeddings), over the words occurring at least ``min_count``
times:

- self-similarity: mean pairwise cosine of a word's vectors across its occurrences (1 = static);
- intra-sentence similarity: mean cosine of each word's vector with its sentence's mean vector;
- MEV (maximum explainable variance): σ₁² / Σσᵢ² of a word's (uncentred) occurrence matrix, the
  share of its variance one static vector could explain — an upper bound on how well a static
  embedding could replace it.

Each comes with an anisotropy baseline, reported and subtracted: the mean cosine of random pairs
of occurrences (for both similarities), and for MEV the same ratio on random occurrences, with as
many rows as the word has (MEV grows as rows shrink, so the baseline is matched per word). A layer
whose vectors all point one way has high raw similarities for every word; only the part above the
baseline is about context.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from advisor.features import TokenFeatures

__all__ = ["TABLE_COLUMNS", "ContextualityResult", "contextuality_for", "measure_contextuality"]

#: Columns of the per-layer table (one row per layer, layer 0 = input embeddings).
TABLE_COLUMNS: tuple[str, ...] = (
    "layer",
    "self_similarity",
    "self_similarity_adjusted",
    "intra_similarity",
    "intra_similarity_adjusted",
    "mev",
    "mev_baseline",
    "mev_adjusted",
    "anisotropy",
    "static_share",
)


@dataclass
class ContextualityResult:
    """The per-layer table and what it was computed on."""

    table: pd.DataFrame
    n_words: int  # distinct words with >= min_count occurrences
    n_occurrences: int  # their occurrences used (after the per-word cap)
    n_sentences: int  # sentences (>= 2 words) behind the intra-sentence similarity
    min_count: int
    max_occurrences: int

    def summary(self) -> dict[str, float | int]:
        return {
            "n_words": self.n_words,
            "n_occurrences": self.n_occurrences,
            "n_sentences": self.n_sentences,
            "min_count": self.min_count,
            "max_occurrences": self.max_occurrences,
        }


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def mean_pairwise_cosine(rows: np.ndarray) -> float:
    """Mean cosine over all ordered pairs i != j: (|Σ uᵢ|² − n) / (n(n − 1)) with uᵢ the unit rows."""
    n = len(rows)
    if n < 2:
        return float("nan")
    total = _unit(rows.astype(np.float64)).sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))


def explained_by_first_pc(rows: np.ndarray) -> float:
    """σ₁² / Σσᵢ² of the (uncentred) matrix: the largest eigenvalue of its Gram matrix over its trace."""
    rows = rows.astype(np.float64)
    gram = rows @ rows.T
    trace = float(np.trace(gram))
    return float(np.linalg.eigvalsh(gram)[-1] / trace) if trace > 0 else float("nan")


def _frequent_words(
    tokens: list[list[str]],
    offsets: np.ndarray,
    min_count: int,
    max_occurrences: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Row indices of each word with >= min_count occurrences, at most ``max_occurrences`` drawn at random."""
    rows: dict[str, list[int]] = defaultdict(list)
    for i, sent in enumerate(tokens):
        for j, word in enumerate(sent):
            rows[word].append(int(offsets[i]) + j)
    chosen = {}
    for word in sorted(rows):
        found = np.asarray(rows[word], dtype=np.int64)
        if len(found) < min_count:
            continue
        if len(found) > max_occurrences:
            found = np.sort(rng.choice(found, size=max_occurrences, replace=False))
        chosen[word] = found
    return chosen


def measure_contextuality(
    stack: TokenFeatures,
    tokens: list[list[str]],
    *,
    min_count: int = 5,
    max_occurrences: int = 50,
    max_sentences: int = 2000,
    n_baseline: int = 1000,
    mev_baseline_draws: int = 10,
    seed: int = 0,
) -> ContextualityResult:
    """Self-similarity, intra-sentence similarity and MEV per layer, each with its baseline.

    ``stack`` is a layer stack ``(words, layers, dim)`` (2-D features count as one layer) and
    ``tokens`` the words it was computed from. Sampling (occurrence caps, sentences, baselines) is
    seeded, so the table is reproducible.
    """
    vectors = stack.vectors if stack.vectors.ndim == 3 else stack.vectors[:, None, :]
    rng = np.random.default_rng(seed)
    words = _frequent_words(tokens, stack.offsets, min_count, max_occurrences, rng)
    lengths = stack.lengths()
    candidates = np.flatnonzero(lengths >= 2)
    if len(candidates) > max_sentences:
        candidates = np.sort(rng.choice(candidates, size=max_sentences, replace=False))
    n_rows = len(vectors)
    base_rows = np.sort(rng.choice(n_rows, size=min(n_baseline, n_rows), replace=False)) if n_rows else []
    sizes = sorted({len(r) for r in words.values()})
    mev_draws = {
        n: [rng.choice(n_rows, size=min(n, n_rows), replace=False) for _ in range(mev_baseline_draws)]
        for n in sizes
    }
    records = []
    for layer in range(vectors.shape[1]):
        records.append(_layer_row(layer, vectors, words, stack.offsets, candidates, base_rows, mev_draws))
    table = pd.DataFrame(records, columns=list(TABLE_COLUMNS))
    return ContextualityResult(
        table=table,
        n_words=len(words),
        n_occurrences=int(sum(len(r) for r in words.values())),
        n_sentences=len(candidates),
        min_count=min_count,
        max_occurrences=max_occurrences,
    )


def _layer_row(
    layer: int,
    vectors: np.ndarray,
    words: dict[str, np.ndarray],
    offsets: np.ndarray,
    sentences: np.ndarray,
    base_rows: np.ndarray,
    mev_draws: dict[int, list[np.ndarray]],
) -> dict[str, float]:
    """One row of the table: every measure of one layer."""
    column = vectors[:, layer, :]
    anisotropy = mean_pairwise_cosine(np.asarray(column[base_rows], np.float32)) if len(base_rows) else np.nan
    self_sims, mevs, mev_bases = [], [], []
    baseline_of_size = {
        n: float(np.mean([explained_by_first_pc(np.asarray(column[np.sort(d)], np.float32)) for d in draws]))
        for n, draws in mev_draws.items()
    }
    for rows in words.values():
        occurrences = np.asarray(column[rows], np.float32)
        self_sims.append(mean_pairwise_cosine(occurrences))
        mevs.append(explained_by_first_pc(occurrences))
        mev_bases.append(baseline_of_size[len(rows)])
    intra = []
    for i in sentences:
        rows = np.asarray(column[offsets[i] : offsets[i + 1]], np.float32).astype(np.float64)
        centre = rows.mean(axis=0)
        if np.linalg.norm(centre) > 0:
            intra.append(float((_unit(rows) @ (centre / np.linalg.norm(centre))).mean()))
    self_sim = float(np.nanmean(self_sims)) if self_sims else np.nan
    intra_sim = float(np.mean(intra)) if intra else np.nan
    mev = float(np.nanmean(mevs)) if mevs else np.nan
    mev_base = float(np.mean(mev_bases)) if mev_bases else np.nan
    return {
        "layer": layer,
        "self_similarity": self_sim,
        "self_similarity_adjusted": self_sim - anisotropy,
        "intra_similarity": intra_sim,
        "intra_similarity_adjusted": intra_sim - anisotropy,
        "mev": mev,
        "mev_baseline": mev_base,
        "mev_adjusted": mev - mev_base,
        "anisotropy": anisotropy,
        "static_share": float(np.mean(np.asarray(mevs) > 0.5)) if mevs else np.nan,
    }


def contextuality_for(options: dict[str, Any], corpus: Any) -> ContextualityResult:
    """Measure the encoder of the contextual ``options`` on ``corpus`` (the all-layer cache, no forward pass if cached)."""
    from advisor.embeddings import make_embedding

    embedding = make_embedding("contextual", **options)
    stack = embedding.featurize_layers(corpus)
    return measure_contextuality(stack, corpus.tokens)
