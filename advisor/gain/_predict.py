"""Score unlabelled production text with a logged gain model: how much would context help *there*?

Input formats (``read_unlabelled``): one text per line (tokenised with the readers' tokenizer; blank
lines are skipped), or CoNLL (one token per row, sentences separated by blank lines) with or without a
tag column; tags are ignored. ``auto`` picks CoNLL when the file has blank-line-separated blocks and
(at least 90 % of) its rows are a lone token or end in an IOB-style tag. A pair model reads one pair
per line, its two texts separated by the line's first tab (the layout of a GLUE TSV without its
label column); CoNLL cannot hold pairs.

Uncertainty of the traffic-level numbers has two parts, combined in quadrature:

- sampling: a percentile-free normal bootstrap over *texts* (lines, CoNLL sentences, pairs) of the
  mean predicted value (how much the number would move with other traffic of the same kind);
- model error: the standard deviation over CV folds of (mean prediction - mean truth) on held-out
  folds, recorded at fit time: the systematic error of the model's average, which more traffic
  does not shrink.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from advisor._error_codes import E830, E831, E832, E833, E834, E835, E836, E836_EMPTY, E837
from advisor.data import TextFile, read_text_file, tokenize
from advisor.gain._features import FEATURES, gain_features, item_of, unit_of
from advisor.gain._model import GainModel

__all__ = ["FORMATS", "GainForecast", "UnlabelledText", "predict_gain", "read_unlabelled"]

FORMATS: tuple[str, ...] = ("auto", "lines", "conll")
_TAG = re.compile(r"^(O|[BIESLU]-\S+|[BIESLU]_\S+)$")


@dataclass(frozen=True)
class UnlabelledText:
    """Token lists of unlabelled text, with the line each item starts on (pairs: both texts' words,
    ``pair_split`` the first text's word count, as in ``Corpus``)."""

    tokens: list[list[str]]
    line_numbers: list[int]
    source: str
    format: str
    warnings: list[str] = field(default_factory=list)
    pair_split: list[int] = field(default_factory=list)


def _is_conll(rows: list[tuple[int, list[str]]], has_blocks: bool) -> bool:
    """Blank-line-separated blocks whose rows (90 %, so a broken row is reported, not misread) are a
    lone token or end in a tag."""
    if not has_blocks or not rows:
        return False
    looks = sum(len(columns) == 1 or bool(_TAG.match(columns[-1])) for _, columns in rows)
    return looks >= 0.9 * len(rows)


def _line_items(text: TextFile) -> tuple[list[list[str]], list[int]]:
    """One item per non-blank line: its tokens and line number."""
    tokens: list[list[str]] = []
    starts: list[int] = []
    for number, line in enumerate(text.lines, start=1):
        if line.strip():
            tokens.append(tokenize(line))
            starts.append(number)
    return tokens, starts


def _pair_items(text: TextFile) -> tuple[list[list[str]], list[int], list[int]]:
    """One pair per non-blank line, split at its first tab: both texts' words, line numbers, first text's length."""
    tokens: list[list[str]] = []
    starts: list[int] = []
    splits: list[int] = []
    for number, line in enumerate(text.lines, start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            raise E836(file=text.path, line=number)
        first, second = (tokenize(part) for part in line.split("\t", 1))
        for side, words in (("first", first), ("second", second)):
            if not words:
                raise E836_EMPTY(side=side, file=text.path, line=number)
        tokens.append(first + second)
        starts.append(number)
        splits.append(len(first))
    return tokens, starts, splits


def _conll_items(text: TextFile, rows: list[tuple[int, list[str]]]) -> tuple[list[list[str]], list[int]]:
    """One item per blank-line-separated block of token rows (tag columns ignored): tokens, first line."""
    tokens: list[list[str]] = []
    starts: list[int] = []
    width = len(rows[0][1]) if rows else 0
    current: list[str] = []
    for number, line in enumerate(text.lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("-DOCSTART-"):
            if current:
                tokens.append(current)
                current = []
            continue
        columns = stripped.split()
        if len(columns) != width:
            raise E831(
                n=len(columns),
                columns="columns" if len(columns) != 1 else "column",
                width=width,
                file=text.path,
                line=number,
            )
        if not current:
            starts.append(number)
        current.append(columns[0])
    if current:
        tokens.append(current)
    return tokens, starts


def read_unlabelled(path: str | Path, task: str, format: str = "auto") -> UnlabelledText:
    """Read production text for :func:`predict_gain`; bad input raises InputError with file:line."""
    if format not in FORMATS:
        raise E830(name=format, choices=", ".join(FORMATS))
    if task not in FEATURES:
        raise E833(task=task)
    if task == "pair" and format == "conll":
        raise E837()
    text = read_text_file(path)
    if task == "pair":
        tokens, starts, splits = _pair_items(text)
        if not tokens:
            raise E832(file=text.path, line=1)
        return UnlabelledText(tokens, starts, text.path, "lines", list(text.warnings), splits)
    rows = [
        (number, line.split())
        for number, line in enumerate(text.lines, start=1)
        if line.strip() and not line.strip().startswith("-DOCSTART-")
    ]
    blank = [not line.strip() for line in text.lines]
    has_blocks = any(
        blank[i] and not blank[i - 1] and i + 1 < len(blank) and not blank[i + 1]
        for i in range(1, len(blank))
    )
    chosen = format if format != "auto" else ("conll" if _is_conll(rows, has_blocks) else "lines")
    tokens, starts = _line_items(text) if chosen == "lines" else _conll_items(text, rows)
    if not tokens:
        raise E832(file=text.path, line=1)
    return UnlabelledText(tokens, starts, text.path, chosen, list(text.warnings))


@dataclass
class GainForecast:
    """Expected share of units where context helps and expected score gain on the given text."""

    task: str
    unit: str
    baseline: str
    n_sentences: int
    n_units: int
    expected_share: float
    share_lo: float
    share_hi: float
    expected_gain: float  # score units (0-1): accuracy (classification) / token accuracy (NER)
    gain_lo: float
    gain_hi: float
    sampling_sd: dict[str, float]
    model_sd: dict[str, float]
    confidence: float
    learned_something: bool
    training_gain: float  # mean advantage on the run's evaluation data, for comparison
    training_share: float
    per_unit: pd.DataFrame

    def summary_lines(self) -> list[str]:
        score = "token accuracy" if self.task == "ner" else "accuracy"
        units = f"{self.unit}s"
        level = f"{self.confidence:.0%}"
        # one unit per text (a sentence, a pair): counted once, in the task's word; NER: texts and tokens
        texts = units if self.unit == item_of(self.task) else "texts"
        counted = (
            f"{self.n_units:,} {units}"
            if texts == units
            else f"{self.n_sentences:,} texts, {self.n_units:,} {units}"
        )
        lines = [
            f"{counted} scored against the run's training statistics.",
            f"Context expected to help (right where {self.baseline} is wrong) on {self.expected_share:.1%} of "
            f"{units} ({level} interval {self.share_lo:.1%} to {self.share_hi:.1%}); "
            f"on the run's evaluation data: {self.training_share:.1%}.",
            f"Expected gain of contextual over {self.baseline}: {100 * self.expected_gain:+.1f} points of {score} "
            f"({level} interval {100 * self.gain_lo:+.1f} to {100 * self.gain_hi:+.1f}; "
            f"on the run's evaluation data: {100 * self.training_gain:+.1f}).",
            f"Uncertainty: sampling sd {100 * self.sampling_sd['gain']:.2f} points (bootstrap over {texts}), "
            f"model sd {100 * self.model_sd['gain']:.2f} points (CV error of the mean).",
        ]
        if not self.learned_something:
            lines.append(
                "Warning: the gain model learned nothing reliable on its run (see gain_cv_auc): these numbers "
                "are close to the run's average and do not say where context helps."
            )
        return lines


def _bootstrap_sd(per_sentence: np.ndarray, counts: np.ndarray, n_boot: int, seed: int) -> float:
    """Sd of the unit-weighted mean over sentence resamples (ratio of weighted sums)."""
    rng = np.random.default_rng(seed)
    n = len(counts)
    means = np.empty(n_boot)
    for b in range(n_boot):
        weights = np.bincount(rng.integers(0, n, size=n), minlength=n)
        total = float(weights @ counts)
        means[b] = float(weights @ per_sentence) / total if total else np.nan
    return float(np.nanstd(means, ddof=1)) if n_boot > 1 else 0.0


def predict_gain(
    model: GainModel,
    tokens: list[list[str]],
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    cache_dir: Path | str | None = None,
    *,
    pair_split: list[int] | None = None,
) -> GainForecast:
    """Predict per unit, then the traffic-level share and gain with their uncertainty (module docstring);
    a pair model needs ``pair_split`` (``UnlabelledText.pair_split``)."""
    from scipy import stats

    if not 0 < confidence < 1:
        raise E834(option="confidence", requirement=f"be in (0, 1), got {confidence}")
    table = gain_features(model.statistics, tokens, model.features, cache_dir, pair_split=pair_split)
    if table.empty:
        raise E835()
    x = table[model.features]
    table["predicted_gain"] = model.booster.predict(x)
    share = float(model.meta.get("share_helps", 0.0))
    table["p_helps"] = model.helps_booster.predict(x) if model.helps_booster is not None else share
    items = table["item"].to_numpy()
    n_sentences = len(tokens)
    counts = np.bincount(items, minlength=n_sentences).astype(float)
    present = counts > 0
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    sampling, model_sd, bounds = {}, {}, {}
    for key, column in (("gain", "predicted_gain"), ("share", "p_helps")):
        per_sentence = np.bincount(items, weights=table[column].to_numpy(float), minlength=n_sentences)
        sampling[key] = _bootstrap_sd(per_sentence[present], counts[present], n_boot, seed)
        error = float(model.meta.get("model_error", {}).get(key, 0.0))
        model_sd[key] = error if np.isfinite(error) else 0.0
        mean = float(table[column].mean())
        half = z * float(np.hypot(sampling[key], model_sd[key]))
        bounds[key] = (mean, mean - half, mean + half)
    share_mean, share_lo, share_hi = bounds["share"]
    return GainForecast(
        task=model.task,
        unit=unit_of(model.task),  # the task's word, also for a model saved before pairs had their own
        baseline=str(model.meta.get("baseline", "static")),
        n_sentences=n_sentences,
        n_units=len(table),
        expected_share=share_mean,
        share_lo=max(0.0, share_lo),
        share_hi=min(1.0, share_hi),
        expected_gain=bounds["gain"][0],
        gain_lo=bounds["gain"][1],
        gain_hi=bounds["gain"][2],
        sampling_sd=sampling,
        model_sd=model_sd,
        confidence=confidence,
        learned_something=model.learned_something,
        training_gain=float(model.meta.get("mean_advantage", float("nan"))),
        training_share=share,
        per_unit=table,
    )
