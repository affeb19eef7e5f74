"""Synthetic runs with a known answer, for tests, the app's demo mode and trying thresholds.

Like scikit-learn's ``make_*`` generators: curves follow a power law per embedding (or are given
point by point), costs are plausible constants, and an optional difficulty table plants a known
difficult-vs-easy effect. Nothing here trains or reads MLflow.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from advisor.analysis import Analysis
from advisor.stats import ItemScores
from advisor.vocabulary import PAIRS, ordered, primary_metric

__all__ = [
    "DEFAULT_COSTS",
    "DEFAULT_CURVES",
    "VERDICT_CURVES",
    "analysis_from_item_scores",
    "analysis_from_scores",
    "make_synthetic_analysis",
]

#: Power-law parameters (a, b, c) of score = a - b * n^(-c): contextual best, random worst.
DEFAULT_CURVES: dict[str, tuple[float, float, float]] = {
    "random": (0.72, 3.0, 0.45),
    "static": (0.80, 3.0, 0.45),
    "contextual": (0.86, 2.0, 0.45),
}

#: Curves that put each verdict in reach with ``noise=0.001`` and 3 seeds over 100..1600 items
#: (with ``noise=0.005`` the two "enough" cases become "inconclusive": the intervals widen past 1 point).
VERDICT_CURVES: dict[str, dict[str, tuple[float, float, float]]] = {
    # contextual clearly ahead at full data; static far from catching up
    "use contextual": {
        "random": (0.72, 3.0, 0.45),
        "static": (0.80, 3.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # static and contextual on the same curve; random clearly behind
    "static is enough": {
        "random": (0.70, 3.0, 0.45),
        "static": (0.86, 2.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # all three on the same curve
    "random is enough": {
        "random": (0.86, 2.0, 0.45),
        "static": (0.86, 2.0, 0.45),
        "contextual": (0.86, 2.0, 0.45),
    },
    # contextual ahead now, but static still climbs fast and catches up within a doubling of the data
    "label more data instead": {
        "random": (0.70, 3.0, 0.45),
        "static": (0.95, 3.0, 0.45),
        "contextual": (0.90, 1.0, 0.45),
    },
}

#: Plausible per-embedding costs (per cell at full data, and per embedding).
DEFAULT_COSTS: dict[str, dict[str, float]] = {
    "random": {
        "inference_ms_per_item": 0.30,
        "train_seconds": 4.0,
        "peak_memory_mb": 420.0,
        "n_params": 180_000,
        "epochs": 8,
        "dim": 300,
        "embedding_bytes": 12e6,
        "featurize_seconds": 0.4,
        "featurize_items_per_s": 25_000.0,
    },
    "static": {
        "inference_ms_per_item": 0.25,
        "train_seconds": 3.0,
        "peak_memory_mb": 480.0,
        "n_params": 60_000,
        "epochs": 8,
        "dim": 50,
        "embedding_bytes": 80e6,
        "featurize_seconds": 0.6,
        "featurize_items_per_s": 20_000.0,
    },
    "contextual": {
        "inference_ms_per_item": 0.35,
        "train_seconds": 6.0,
        "peak_memory_mb": 950.0,
        "n_params": 250_000,
        "epochs": 8,
        "dim": 384,
        "embedding_bytes": 90e6,
        "featurize_seconds": 40.0,
        "featurize_items_per_s": 150.0,
    },
}

_CELL_COSTS = ("inference_ms_per_item", "train_seconds", "peak_memory_mb", "n_params", "epochs")


def _cell_rows(
    embedding: str,
    curve: Mapping[int, Sequence[float]],
    cell_costs: Mapping[str, float],
    seeds: Sequence[int] | None,
    full: int,
) -> list[dict[str, object]]:
    """One curves row per finished cell of one embedding; a NaN (or None) score is a cell that did not finish."""
    rows: list[dict[str, object]] = []
    for size, values in curve.items():
        for i, value in enumerate(values):
            if value is None or not np.isfinite(value):
                continue
            seed = seeds[i] if seeds is not None else i
            # Training time scales with size, the other costs do not.
            row = {c: float(cell_costs[c]) for c in _CELL_COSTS}
            row["train_seconds"] *= int(size) / full
            rows.append(
                {
                    "embedding": embedding,
                    "seed": int(seed),
                    "size": int(size),
                    "fraction": int(size) / full,
                }
                | {"score": float(value)}
                | row
            )
    return rows


def _curves_table(
    scores: Mapping[str, Mapping[int, Sequence[float]]],
    costs: Mapping[str, Mapping[str, float]],
    seeds: Sequence[int] | None,
    full: int,
) -> pd.DataFrame:
    """The per-cell curves table of :class:`Analysis`; unknown embeddings get the static costs."""
    rows = []
    for embedding, curve in scores.items():
        rows.extend(_cell_rows(embedding, curve, costs.get(embedding, DEFAULT_COSTS["static"]), seeds, full))
    return pd.DataFrame(rows)


def _embeddings_table(names: Sequence[str], costs: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    """The per-embedding table (model, size on disk, featurisation cost), as a real run logs it."""
    models = {"contextual": "synthetic-encoder", "static": "synthetic-vectors.txt"}
    return pd.DataFrame(
        [
            {
                "embedding": name,
                "model": models.get(name, "random"),
                "dim": int(costs.get(name, DEFAULT_COSTS["static"])["dim"]),
                "embedding_bytes": int(costs.get(name, DEFAULT_COSTS["static"])["embedding_bytes"]),
                "featurize_seconds": costs.get(name, DEFAULT_COSTS["static"])["featurize_seconds"],
                "featurize_items_per_s": costs.get(name, DEFAULT_COSTS["static"])["featurize_items_per_s"],
            }
            for name in names
        ]
    )


def _dataset(task: str, full: int) -> dict[str, object]:
    """Dataset metadata shaped like a real run's, with the label set of the task."""
    labels = ["B-LOC", "B-ORG", "B-PER", "I-LOC", "I-ORG", "I-PER", "O"] if task == "ner" else ["neg", "pos"]
    return {
        "name": "synthetic",
        "content_hash": "0" * 16,
        "n_train": full,
        "n_dev": full // 4,
        "n_test": full // 4,
        "labels": labels,
        "scheme": "IOB2" if task == "ner" else None,
    }


def _params(sizes: list[int], seeds: list[int]) -> dict[str, object]:
    """Run parameters shaped like a real run's, so readers of ``Analysis.params`` need no special case."""
    return {
        "sizes": sizes,
        "seeds": seeds,
        "profile": "synthetic",
        "contextual_model": "synthetic-encoder",
        "static_file": "synthetic-vectors.txt",
        "device": "cpu",
    }


def _environment() -> dict[str, object]:
    """The environment of this process (a synthetic run has no other)."""
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "gpu": None,
        "libraries": {"numpy": np.__version__, "pandas": pd.__version__},
    }


def analysis_from_scores(
    scores: Mapping[str, Mapping[int, Sequence[float]]],
    *,
    task: str = "ner",
    seeds: Sequence[int] | None = None,
    costs: Mapping[str, Mapping[str, float]] | None = None,
    slices: pd.DataFrame | None = None,
    run_id: str | None = "synthetic",
    status: str | None = "FINISHED",
) -> Analysis:
    """An :class:`Analysis` from hand-written scores: ``scores[embedding][size] = [score per seed]``.

    Seeds default to 0, 1, ...; a NaN score means that cell did not finish (it is left out).
    """
    costs = {**DEFAULT_COSTS, **(costs or {})}
    full = max(int(size) for curve in scores.values() for size in curve)
    curves = _curves_table(scores, costs, seeds, full)
    sizes = sorted({int(s) for curve in scores.values() for s in curve})
    seed_list = list(seeds) if seeds is not None else sorted(set(curves["seed"])) if len(curves) else []
    return Analysis(
        task=task,
        primary_metric=primary_metric(task),
        curves=curves,
        embeddings=_embeddings_table(list(scores), costs),
        dataset=_dataset(task, full),
        params=_params(sizes, seed_list),
        environment=_environment(),
        slices=slices,
        run_id=run_id,
        experiment="synthetic",
        status=status,
    )


def analysis_from_item_scores(item_scores: ItemScores, **kwargs: object) -> Analysis:
    """An :class:`Analysis` whose curves are exactly the scores of per-item counts (``item_scores``
    attached), so the verdict takes its hierarchical path; ``kwargs`` go to :func:`analysis_from_scores`."""
    curves: dict[str, dict[int, list[float]]] = {}
    seeds = item_scores.seeds
    for embedding, size, seed in item_scores.keys:
        row = curves.setdefault(embedding, {}).setdefault(size, [float("nan")] * len(seeds))
        row[seeds.index(seed)] = item_scores.score((embedding, size, seed))
    task = "ner" if item_scores.measure == "f1" else "classify"
    analysis = analysis_from_scores(curves, task=task, seeds=seeds, **kwargs)  # type: ignore[arg-type]
    analysis.item_scores = item_scores
    return analysis


def make_synthetic_analysis(
    *,
    task: str = "ner",
    full_size: int = 1600,
    n_sizes: int = 5,
    seeds: Sequence[int] = (0, 1, 2),
    curves: Mapping[str, tuple[float, float, float]] | None = None,
    noise: float = 0.003,
    slice_effects: Mapping[str, float] | None = None,
    costs: Mapping[str, Mapping[str, float]] | None = None,
    random_state: int = 0,
) -> Analysis:
    """A run whose scores follow ``a - b * n^(-c)`` per embedding plus Gaussian seed noise.

    Sizes halve from ``full_size`` (``n_sizes`` of them, as the paper's powers of two).
    ``slice_effects`` maps a difficulty metric name to the planted difficult-minus-easy difference of
    the contextual-static gap (default: one metric with a large effect, one with none); pass ``{}``
    for a run without a difficulty table.
    """
    rng = np.random.default_rng(random_state)
    params = dict(curves if curves is not None else DEFAULT_CURVES)
    sizes = [max(full_size // 2**k, 1) for k in range(n_sizes - 1, -1, -1)]
    scores: dict[str, dict[int, list[float]]] = {}
    for name in ordered(params):
        a, b, c = params[name]
        scores[name] = {
            n: list(np.clip(a - b * n ** (-c) + rng.normal(0, noise, len(seeds)), 0.0, 1.0)) for n in sizes
        }
    effects = {"unseen": 0.08, "ambiguity": 0.0} if slice_effects is None else dict(slice_effects)
    slices = _synthetic_slices(scores, sizes, effects, len(seeds)) if effects else None
    return analysis_from_scores(scores, task=task, seeds=list(seeds), costs=costs, slices=slices)


def _synthetic_slices(
    scores: Mapping[str, Mapping[int, Sequence[float]]],
    sizes: list[int],
    effects: Mapping[str, float],
    n_seeds: int,
) -> pd.DataFrame:
    """A gap table (advisor.difficulty schema) whose difficult-minus-easy difference is ``effects[metric]``."""
    rows = []
    means = {e: {n: float(np.mean(v)) for n, v in curve.items()} for e, curve in scores.items()}
    pairs = [(a, b) for a, b in PAIRS if a in means and b in means]
    half_width = 0.02
    for metric, effect in effects.items():
        for size in sizes:
            for a, b in pairs:
                hard_a, hard_b = means[a][size] - 0.1, means[b][size] - 0.1 - effect / 2
                easy_a, easy_b = means[a][size] + 0.05, means[b][size] + 0.05 + effect / 2
                for slice_, sa, sb, n_items in (
                    ("difficult", hard_a, hard_b, 120),
                    ("easy", easy_a, easy_b, 380),
                ):
                    g = sa - sb
                    rows.append(
                        {
                            "metric": metric,
                            "size": size,
                            "pair": f"{a}-{b}",
                            "slice": slice_,
                            "n_items": n_items,
                        }
                        | {"score_a": sa, "score_b": sb, "gap": g, "gap_lo": g - 0.03, "gap_hi": g + 0.03}
                        | {"n_seeds": n_seeds}
                    )
                diff = (hard_a - hard_b) - (easy_a - easy_b)
                rows.append(
                    {"metric": metric, "size": size, "pair": f"{a}-{b}", "slice": "difficult-minus-easy"}
                    | {"n_items": 500, "score_a": np.nan, "score_b": np.nan, "gap": diff}
                    | {"gap_lo": diff - half_width, "gap_hi": diff + half_width, "n_seeds": n_seeds}
                )
    return pd.DataFrame(rows)
