"""Is the contextual-vs-static (or -random) gap larger on difficult items than on easy ones?

How a slice is scored (all scores in [0, 1]):

- classification: accuracy on the slice's sentences.
- NER, ``level="entity"`` (default): recall-style share of the slice's gold entities that the
  prediction recognises *exactly* (same type and bounds under strict IOB2 decoding, as seqeval's
  strict mode would extract it). Precision is undefined for a slice of gold entities: a spurious
  predicted entity belongs to no gold entity's slice.
- NER, ``level="token"``: tag accuracy on the slice's tokens (predicted tag == gold IOB2 tag).
- NER, ``level="sentence"``: share of the slice's sentences whose whole tag sequence is right.

Uncertainty: the verdict's hierarchical bootstrap (:mod:`advisor.stats`): each
replicate draws the seeds with replacement and the evaluation *sentences* with replacement (all
units of a drawn sentence come along, since entities of one sentence are not independent), the
same draws for all metrics, embeddings and sizes (paired comparisons), so an interval covers both
test-item sampling and seed-to-seed spread. ``p_value`` is the bootstrap p-value of "no difference"
for the difficult-minus-easy rows; the verdict Holm-corrects them over every (metric, pair) it
reads. The item resampling is one matrix product of a replicate-by-sentence weight matrix with
per-sentence sums.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from advisor._error_codes import E530, E531, E532, E533, E534, E535, E536, E537, E538
from advisor.data import Corpus, check_predictions, check_task
from advisor.difficulty._context import default_level
from advisor.difficulty._items import item_metrics
from advisor.difficulty._ner import ner_units
from advisor.difficulty._partition import PartitionRule, partition
from advisor.grid import CellKey, cell_label
from advisor.stats import Resampler, two_sided_p
from advisor.vocabulary import FAMILIES as ALL_FAMILIES
from advisor.vocabulary import PAIRS, PAPER_FAMILIES, ordered, units_correct

__all__ = ["FAMILIES", "GAP_COLUMNS", "PAIRS", "SLICES", "gap_analysis", "item_correctness"]

#: Families a prediction set may come from, costliest first (as the verdict reads the pairs).
FAMILIES: tuple[str, ...] = tuple(ordered(PAPER_FAMILIES)[::-1])
SLICES: tuple[str, ...] = ("difficult", "easy", "difficult-minus-easy")
GAP_COLUMNS: list[str] = [
    "metric", "size", "pair", "slice", "n_items", "score_a", "score_b", "gap", "gap_lo", "gap_hi", "n_seeds",
    "p_value",
]  # fmt: skip


def _check_predictions(predictions: Mapping[CellKey, Sequence[Any]], evaluation: Corpus) -> list[CellKey]:
    if not predictions:
        raise E530()
    keys: list[CellKey] = []
    for key, predicted in predictions.items():
        if not (isinstance(key, tuple) and len(key) == 3):
            raise E531(key=key)
        if key[0] not in FAMILIES:
            raise E532(name=key[0], choices=", ".join(FAMILIES))
        check_predictions(predicted, evaluation, key, E533, E534)
        keys.append((str(key[0]), int(key[1]), int(key[2])))
    return keys


def _correctness(table: pd.DataFrame, evaluation: Corpus, level: str, predicted: Sequence[Any]) -> np.ndarray:
    """0/1 per table row: is this unit right under ``predicted``? (:func:`advisor.vocabulary.units_correct`)."""
    items = [int(i) for i in table["item"]]
    zeros = [0] * len(items)
    starts = table["start"].tolist() if "start" in table else zeros
    ends = table["end"].tolist() if "end" in table else zeros
    if evaluation.task == "ner" and level == "sentence":  # the whole tag sequence is the unit's gold
        golds: list[Any] = [evaluation.labels[i] for i in items]
    else:
        golds = table["gold"].tolist()
    units = zip(items, starts, ends, golds, strict=True)
    return units_correct(evaluation.task, level, units, lambda i: predicted[i])


def item_correctness(
    table: pd.DataFrame, evaluation: Corpus, predictions: Mapping[CellKey, Sequence[Any]]
) -> pd.DataFrame:
    """Per-row correctness (bool) of each prediction set, one column ``embedding/size/seed`` each.

    ``table`` is an :func:`item_metrics` table of ``evaluation``; rows scored as in :func:`gap_analysis`.
    """
    keys = _check_predictions(predictions, evaluation)
    level = table.attrs.get("level", default_level(evaluation.task))
    if evaluation.task == "ner" and level == "token" and len(table) != evaluation.n_tokens:
        raise E535()
    columns = {
        cell_label(key): _correctness(table, evaluation, level, predictions[original])
        for key, original in zip(keys, predictions, strict=True)
    }
    return pd.DataFrame(columns, index=table.index)


def _check_arguments(task: str, train: Corpus, evaluation: Corpus, n_boot: int) -> None:
    """Fail before any metric is computed on a task/data mismatch or an empty bootstrap."""
    check_task(task, train, evaluation, E536)
    if n_boot < 1:
        raise E537(n_boot=n_boot)


def _sliceable(predictions: Mapping[CellKey, Sequence[Any]]) -> dict[CellKey, Sequence[Any]]:
    """Drop registered families outside the paper's three (distilled, the fine-tuned reference, any family
    registered later): they are in no sliced pair. Read at call time: families may register after import."""
    unsliced = {(name,) for name in ALL_FAMILIES if name not in FAMILIES}
    return {k: v for k, v in predictions.items() if not (isinstance(k, tuple) and k[:1] in unsliced)}


def _metrics_table(
    train: Corpus,
    evaluation: Corpus,
    table: pd.DataFrame | None,
    level: str | None,
    spacy_model: str | None,
    cache_dir: Path | str | None,
) -> tuple[pd.DataFrame, str, list[str]]:
    """The per-unit metrics table (given or computed), its unit level and metric names; a given NER
    table must have exactly the evaluation split's units."""
    task = evaluation.task
    if table is None:
        table = item_metrics(train, evaluation, spacy_model, level=level, cache_dir=cache_dir)
    level = table.attrs.get("level", level or default_level(task))
    metric_names: list[str] = table.attrs.get("metrics") or []
    if task == "ner" and len(table) != len(ner_units(evaluation.labels, level)):
        raise E538()
    return table, level, metric_names


def gap_analysis(
    task: str,
    train: Corpus,
    evaluation: Corpus,
    predictions: Mapping[CellKey, Sequence[Any]],
    n_boot: int = 2000,
    seed: int = 0,
    *,
    rule: PartitionRule | None = None,
    level: str | None = None,
    table: pd.DataFrame | None = None,
    spacy_model: str | None = None,
    cache_dir: Path | str | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Gaps between embedding families on the difficult and easy slice of each difficulty metric.

    ``predictions`` maps ``(embedding, size, seed)`` (embedding in random/static/contextual) to one
    prediction per evaluation item (NER: IOB2 tag list; classification: label). Returns one row per
    (metric, size, pair, slice) with the columns of ``GAP_COLUMNS``; a pair appears at a size only
    when both embeddings have predictions there. A metric that cannot be split (see
    :func:`partition`) keeps its rows with ``n_items`` 0 and NaN scores; the reasons are in
    ``result.attrs["partitions"]``. Pass a precomputed ``table`` (from :func:`item_metrics`) to skip
    recomputing the metrics.
    """
    _check_arguments(task, train, evaluation, n_boot)
    sliced = _sliceable(predictions)
    if predictions and not sliced:  # e.g. a run of distilled alone: no pair to slice, not an error
        return pd.DataFrame(columns=GAP_COLUMNS)
    keys = _check_predictions(sliced, evaluation)
    table, level, metric_names = _metrics_table(train, evaluation, table, level, spacy_model, cache_dir)
    correct = item_correctness(table, evaluation, sliced).to_numpy(dtype=float)  # (units, P)
    partitions = {name: partition(table[name], rule) for name in metric_names}
    sums = _slice_sums(table, metric_names, partitions, correct, len(evaluation))
    resampler = Resampler(len(evaluation), sorted({d for _, _, d in keys}), n_boot, seed)
    boot = _SliceBoot(keys, resampler, sums, 1 + correct.shape[1])
    rows = _gap_rows(metric_names, partitions, keys, boot, (1.0 - confidence) / 2.0 * 100.0)
    result = pd.DataFrame(rows, columns=GAP_COLUMNS)
    result.attrs.update(
        {
            "task": task,
            "level": level,
            "n_boot": n_boot,
            "confidence": confidence,
            "partitions": {name: p.description for name, p in partitions.items()},
            "thresholds": {name: p.threshold for name, p in partitions.items()},
        }
    )
    return result


def _slice_sums(
    table: pd.DataFrame,
    metric_names: list[str],
    partitions: dict[str, Any],
    correct: np.ndarray,
    n_sentences: int,
) -> np.ndarray:
    """Per-sentence sums, columns per metric: [count_difficult, count_easy, correct_difficult(P), correct_easy(P)]."""
    items = table["item"].to_numpy(dtype=np.int64)
    n_sets = correct.shape[1]
    blocks = []
    for name in metric_names:
        for mask in (partitions[name].difficult.to_numpy(), partitions[name].easy.to_numpy()):
            block = np.zeros((n_sentences, 1 + n_sets))
            np.add.at(block[:, 0], items[mask], 1.0)
            np.add.at(block[:, 1:], items[mask], correct[mask])
            blocks.append(block)
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((n_sentences, 0))


class _SliceBoot:
    """Slice scores at the point estimate and per bootstrap replicate (sentences, then seeds resampled)."""

    def __init__(self, keys: list[CellKey], resampler: Resampler, sums: np.ndarray, width: int) -> None:
        self.keys, self.resampler, self.width = keys, resampler, width
        self.replicates = resampler.item_totals(sums)
        self.point = sums.sum(axis=0, keepdims=True)
        self.seed_column = {d: j for j, d in enumerate(resampler.seeds)}

    def scores(self, totals: np.ndarray, m: int, s: int) -> np.ndarray:
        """Slice scores of every prediction set: ``(rows, P)``, NaN where the slice is empty."""
        block = totals[:, (2 * m + s) * self.width : (2 * m + s + 1) * self.width]
        with np.errstate(invalid="ignore", divide="ignore"):
            return block[:, 1:] / block[:, :1]

    def seed_resampled(self, boot: np.ndarray, columns: list[int]) -> np.ndarray:
        """Replicates of the seed-averaged slice score: (n_boot, P) columns -> seeds -> (n_boot,)."""
        per_seed = np.full((len(boot), len(self.resampler.seeds)), np.nan)
        for c in columns:
            per_seed[:, self.seed_column[self.keys[c][2]]] = boot[:, c]
        return self.resampler.seed_average(per_seed)


def _gap_rows(
    metric_names: list[str],
    partitions: dict[str, Any],
    keys: list[CellKey],
    boot: _SliceBoot,
    tail: float,
) -> list[dict[str, Any]]:
    """Rows for every metric, size and pair whose two embeddings both have predictions at that size."""
    groups: dict[tuple[str, int], list[int]] = {}
    for column, (embedding, size, _) in enumerate(keys):
        groups.setdefault((embedding, size), []).append(column)
    sizes = sorted({size for _, size, _ in keys})
    rows: list[dict[str, Any]] = []
    for m, name in enumerate(metric_names):
        point = [boot.scores(boot.point, m, s)[0] for s in (0, 1)]
        replicates = [boot.scores(boot.replicates, m, s) for s in (0, 1)]
        for size in sizes:
            for a, b in PAIRS:
                if (a, size) in groups and (b, size) in groups:
                    columns = (groups[(a, size)], groups[(b, size)])
                    rows += _pair_rows(
                        name, partitions[name], size, (a, b), columns, point, replicates, boot, tail
                    )
    return rows


def _pair_rows(
    name: str,
    part: Any,
    size: int,
    pair: tuple[str, str],
    columns: tuple[list[int], list[int]],
    point: list[np.ndarray],
    replicates: list[np.ndarray],
    boot: _SliceBoot,
    tail: float,
) -> list[dict[str, Any]]:
    """The difficult, easy and difficult-minus-easy rows of one metric, size and pair."""
    (a, b), (cols_a, cols_b) = pair, columns
    n_seeds = min(len(cols_a), len(cols_b))
    rows, gaps_boot = [], []
    for s, slice_name in enumerate(SLICES[:2]):
        score_a = float(point[s][cols_a].mean())
        score_b = float(point[s][cols_b].mean())
        gap_boot = boot.seed_resampled(replicates[s], cols_a) - boot.seed_resampled(replicates[s], cols_b)
        gaps_boot.append(gap_boot)
        rows.append(
            _row(name, size, a, b, slice_name, (part.n_difficult, part.n_easy)[s], score_a, score_b,
                 score_a - score_b, gap_boot, tail, n_seeds)
        )  # fmt: skip
    difference = rows[-2]["gap"] - rows[-1]["gap"]
    rows.append(
        _row(name, size, a, b, SLICES[2], part.n_difficult + part.n_easy, np.nan, np.nan, difference,
             gaps_boot[0] - gaps_boot[1], tail, n_seeds)
    )  # fmt: skip
    return rows


def _row(
    metric: str,
    size: int,
    a: str,
    b: str,
    slice_name: str,
    n_items: int,
    score_a: float,
    score_b: float,
    gap: float,
    boot: np.ndarray,
    tail: float,
    n_seeds: int,
) -> dict[str, Any]:
    finite = boot[~np.isnan(boot)]
    low, high = np.percentile(finite, [tail, 100.0 - tail]) if len(finite) else (np.nan, np.nan)
    p_value = two_sided_p(boot) if slice_name == SLICES[2] else np.nan
    return {
        "metric": metric,
        "size": size,
        "pair": f"{a}-{b}",
        "slice": slice_name,
        "n_items": int(n_items),
        "score_a": score_a,
        "score_b": score_b,
        "gap": float(gap),
        "gap_lo": float(low),
        "gap_hi": float(high),
        "n_seeds": n_seeds,
        "p_value": p_value,
    }
