"""``advisor inspect FILE --task ner|classify|pair``: what the readers see, before anything is trained."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from advisor.cli._app import app, console, err_console, titled_table
from advisor.cli._options import DataOptions, with_data_options
from advisor.data import HIGH_OVERLAP, DatasetSummary, SideLengths, read_corpus, summarize

__all__ = ["inspect", "render_summary"]


def render_summary(summary: DatasetSummary) -> Table:
    """The summary as a table; every string from the data (file name, labels, entity types) is plain
    :class:`~rich.text.Text`: Rich reads ``str`` cells as markup, so a label ``[/]`` raised MarkupError,
    ``[bold]neg`` was restyled and ``a\\[b`` lost its backslash (even through ``escape``)."""
    e = Text
    table = titled_table(e(summary.source), show_header=False)
    table.add_column("property", style="bold")
    table.add_column("value")
    table.add_row("task", e(summary.task))
    table.add_row(e(summary.item_name), f"{summary.items:,}")
    if summary.skipped:
        lines = ", ".join(map(str, summary.skipped_lines[:5])) + (" …" if summary.skipped > 5 else "")
        why = "an empty text on one side" if summary.pair else "no text"
        table.add_row("skipped", f"{summary.skipped:,} with a label but {why} (lines {lines})")
    table.add_row("tokens", f"{summary.tokens:,}")
    table.add_row("vocabulary", f"{summary.vocabulary:,} types")
    table.add_row(
        "mean length", f"{summary.mean_length:.1f} tokens" + (" (both texts)" if summary.pair else "")
    )
    if summary.pair:
        _pair_rows(table, summary)
    kind = "tags" if summary.task == "ner" else "labels"
    shown = ", ".join(f"{k} {v:,}" for k, v in summary.labels.items())
    table.add_row(kind, e(f"{len(summary.labels)}: {shown}"))
    if summary.task == "ner":
        table.add_row("scheme", e(f"{summary.scheme} (normalised to IOB2)"))
        entities = ", ".join(f"{k} {v:,}" for k, v in summary.entity_counts.items()) or "none"
        table.add_row("entities", e(entities))
    table.add_row("encoding", e(str(summary.encoding)))
    if summary.split_sizes:
        sizes = ", ".join(f"{k} {v:,}" for k, v in summary.split_sizes.items())
        table.add_row("splits", e(f"{sizes} ({summary.split_method})"))
    return table


def _side(lengths: SideLengths) -> str:
    return (
        f"mean {lengths.mean:.1f}, median {lengths.median:g}, "
        f"min {lengths.minimum:,}, max {lengths.maximum:,} tokens"
    )


def _pair_rows(table: Table, summary: DatasetSummary) -> None:
    """Each text's lengths and the overlap of the two (high overlap: the easy cases of pair tasks)."""
    pair = summary.pair
    assert pair is not None
    table.add_row("first text", _side(pair.first))
    table.add_row("second text", _side(pair.second))
    table.add_row(
        "word overlap",
        f"{pair.overlap_mean:.0%} of the second text's words are in the first (mean per pair); "
        f"{pair.overlap_high:.0%} of pairs overlap at least {HIGH_OVERLAP:.0%}",
    )


@app.command()
@with_data_options
def inspect(options: DataOptions) -> None:
    """Summarise a dataset: items, tokens, vocabulary, labels, tag scheme, encoding and split sizes."""
    splits = options.load()  # the file is read once: ``splits.whole`` is it before any split
    corpus = splits.whole
    if corpus is None:
        corpus, _ = read_corpus(
            options.data, options.task, options.text_col, options.label_col, strict=options.strict
        )
    summary = summarize(corpus, splits)
    for warning in dict.fromkeys(summary.warnings):
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    console.print(render_summary(summary))
