"""What ``advisor inspect`` reports about a dataset: computed here, printed by the CLI and the app."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from advisor.data._corpus import Corpus, DataSplits

__all__ = ["HIGH_OVERLAP", "DatasetSummary", "PairSummary", "SideLengths", "summarize", "word_overlap"]

#: A pair whose second text shares at least this share of its words with the first counts as high-overlap.
HIGH_OVERLAP = 0.5


@dataclass(frozen=True)
class SideLengths:
    """Length in tokens of one side of the pairs."""

    mean: float
    median: float
    minimum: int
    maximum: int


@dataclass(frozen=True)
class PairSummary:
    """Both texts' lengths and how much the two sides share: high word overlap is the known easy case
    of paraphrase and entailment data, so a dataset made mostly of it flatters every model."""

    first: SideLengths
    second: SideLengths
    overlap_mean: float  # mean per-item share of the second text's words also in the first
    overlap_high: float  # share of items whose overlap is at least HIGH_OVERLAP


def word_overlap(first: Sequence[str], second: Sequence[str]) -> float:
    """Share of the second text's distinct words (lowercased; punctuation left out unless it is all
    there is) that also occur in the first."""
    words_b = {w.lower() for w in second if any(ch.isalnum() for ch in w)} or {w.lower() for w in second}
    if not words_b:
        return 0.0
    words_a = {w.lower() for w in first}
    return len(words_b & words_a) / len(words_b)


def _lengths(lengths: list[int]) -> SideLengths:
    if not lengths:
        return SideLengths(0.0, 0.0, 0, 0)
    return SideLengths(sum(lengths) / len(lengths), statistics.median(lengths), min(lengths), max(lengths))


def _pair_summary(corpus: Corpus) -> PairSummary:
    sides = [corpus.sides(i) for i in range(len(corpus))]
    overlaps = [word_overlap(a, b) for a, b in sides]
    n = max(len(overlaps), 1)
    return PairSummary(
        first=_lengths([len(a) for a, _ in sides]),
        second=_lengths([len(b) for _, b in sides]),
        overlap_mean=sum(overlaps) / n,
        overlap_high=sum(o >= HIGH_OVERLAP for o in overlaps) / n,
    )


@dataclass(frozen=True)
class DatasetSummary:
    source: str
    task: str
    items: int
    tokens: int
    vocabulary: int
    mean_length: float
    labels: dict[str, int]
    scheme: str | None
    encoding: str
    split_sizes: dict[str, int]
    split_method: str
    entity_counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    skipped_lines: list[int] = field(default_factory=list)  # items with a label but no text
    pair: PairSummary | None = None  # the pair task's per-side lengths and overlap

    @property
    def skipped(self) -> int:
        return len(self.skipped_lines)

    @property
    def item_name(self) -> str:
        return {"ner": "sentences", "pair": "pairs"}.get(self.task, "items")

    def to_dict(self) -> dict:
        return asdict(self)


def _entity_counts(corpus: Corpus) -> dict[str, int]:
    """Entities per type: one ``B-`` tag opens each (labels are IOB2)."""
    counts: dict[str, int] = {}
    for tag, n in corpus.label_counts().items():
        if tag.startswith("B-"):
            counts[tag[2:]] = counts.get(tag[2:], 0) + n
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def summarize(
    corpus: Corpus, splits: DataSplits | None = None, warnings: list[str] | None = None
) -> DatasetSummary:
    """Counts over the whole file ``corpus``; split sizes from ``splits`` (what a run would use)."""
    labels = dict(sorted(corpus.label_counts().items(), key=lambda kv: (-kv[1], kv[0])))
    return DatasetSummary(
        source=corpus.source,
        task=corpus.task,
        items=len(corpus),
        tokens=corpus.n_tokens,
        vocabulary=len(corpus.vocabulary()),
        mean_length=corpus.n_tokens / max(len(corpus), 1),
        labels=labels,
        scheme=corpus.scheme,
        encoding=corpus.encoding,
        split_sizes=splits.sizes() if splits else {},
        split_method=splits.split_method if splits else "",
        entity_counts=_entity_counts(corpus) if corpus.task == "ner" else {},
        warnings=list(warnings or []) + (list(splits.warnings) if splits else []),
        skipped_lines=list(corpus.skipped_lines),
        pair=_pair_summary(corpus) if corpus.is_pair else None,
    )
