"""What the upload page shows: a preview of the first items and the ``advisor inspect`` summary.

Errors the user can fix come back as text in the result (the page shows them with ``st.error``),
never as exceptions, so a malformed upload cannot end in a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from advisor.data import Corpus, DatasetSummary, read_corpus, read_splits, summarize
from advisor.errors import AdvisorError

__all__ = ["DatasetPreview", "preview_dataset", "preview_frame", "summary_rows"]


@dataclass
class DatasetPreview:
    """Either a summary and a preview table, or the rendered error that stopped the readers."""

    summary: DatasetSummary | None = None
    preview: pd.DataFrame | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.summary is not None


def _bracket_entities(tokens: list[str], tags: list[str]) -> str:
    """``John Smith lives`` + ``B-PER I-PER O`` -> ``[John Smith]PER lives`` (IOB2 spans)."""
    out: list[str] = []
    span: list[str] = []
    kind = ""
    for token, tag in [*zip(tokens, tags, strict=True), ("", "O")]:
        if span and tag != f"I-{kind}":
            out.append(f"[{' '.join(span)}]{kind}")
            span = []
        if tag.startswith(("B-", "I-")) and not span:
            span, kind = [token], tag[2:]
        elif span:
            span.append(token)
        elif token:
            out.append(token)
    return " ".join(out)


def preview_frame(corpus: Corpus, n: int = 20) -> pd.DataFrame:
    """The first ``n`` items with their line numbers; NER shows entities as ``[New York]LOC``."""
    rows = []
    for i in range(min(n, len(corpus))):
        if corpus.task == "ner":
            tagged = _bracket_entities(corpus.tokens[i], corpus.labels[i])
            entities = sum(tag.startswith("B-") for tag in corpus.labels[i])
            rows.append({"line": corpus.line_numbers[i], "tokens": tagged, "entities": entities})
        else:
            rows.append({"line": corpus.line_numbers[i], "text": corpus.texts[i], "label": corpus.labels[i]})
    return pd.DataFrame(rows)


def summary_rows(summary: DatasetSummary) -> pd.DataFrame:
    """The rows ``advisor inspect`` prints, as a two-column table."""
    kind = "tags" if summary.task == "ner" else "labels"
    rows = [
        ("source", Path(summary.source).name),
        ("task", summary.task),
        (summary.item_name, f"{summary.items:,}"),
        ("tokens", f"{summary.tokens:,}"),
        ("vocabulary", f"{summary.vocabulary:,} types"),
        ("mean length", f"{summary.mean_length:.1f} tokens"),
        (kind, f"{len(summary.labels)}: " + ", ".join(f"{k} {v:,}" for k, v in summary.labels.items())),
    ]
    if summary.task == "ner":
        rows.append(("scheme", f"{summary.scheme} (normalised to IOB2)"))
        rows.append(("entities", ", ".join(f"{k} {v:,}" for k, v in summary.entity_counts.items()) or "none"))
    rows.append(("encoding", summary.encoding))
    if summary.split_sizes:
        sizes = ", ".join(f"{k} {v:,}" for k, v in summary.split_sizes.items())
        rows.append(("splits", f"{sizes} ({summary.split_method})"))
    return pd.DataFrame(rows, columns=["property", "value"])


def preview_dataset(
    path: str | Path,
    task: str,
    dev: str | Path | None = None,
    test: str | Path | None = None,
    text_col: str | None = None,
    label_col: str | None = None,
    split_seed: int = 0,
    n_preview: int = 20,
) -> DatasetPreview:
    """Read the file(s) as ``advisor inspect`` does; an :class:`AdvisorError` becomes ``error`` text."""
    try:
        corpus, warnings = read_corpus(path, task, text_col, label_col)
        splits = read_splits(
            path, task, dev=dev, test=test, text_col=text_col, label_col=label_col, seed=split_seed
        )
    except AdvisorError as error:
        return DatasetPreview(error=error.render())
    except (OSError, UnicodeError, ValueError) as error:  # a reader gap: still a message, not a traceback
        return DatasetPreview(
            error=f"{Path(path).name}: cannot read the file ({type(error).__name__}: {error})"
        )
    summary = summarize(corpus, splits, warnings)
    return DatasetPreview(
        summary=summary,
        preview=preview_frame(corpus, n_preview),
        warnings=list(dict.fromkeys(summary.warnings)),
    )
