"""What ``advisor inspect`` reports about a dataset: computed here, printed by the CLI and the app."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from advisor.data._corpus import Corpus, DataSplits

__all__ = ["DatasetSummary", "summarize"]


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

    @property
    def skipped(self) -> int:
        return len(self.skipped_lines)

    @property
    def item_name(self) -> str:
        return "sentences" if self.task == "ner" else "items"

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
    )
