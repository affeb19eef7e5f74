"""``advisor contextuality DATA --task …``: how contextual the encoder's word vectors are on your data, per layer.

Ethayarajh (2019) self-similarity, intra-sentence similarity and maximum explainable variance for
the training words with at least ``--min-count`` occurrences, each with its anisotropy baseline
reported and subtracted; printed, and logged to MLflow (table + figure) as its own run
(tag ``advisor.kind=contextuality``). ``advisor run`` computes the same table into the analysis run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from advisor._error_codes import E211
from advisor.cli._app import app, console, err_console, titled_table
from advisor.cli._options import (
    DEFAULT_PAIR_ENCODING,
    DataOptions,
    PairEncodingOpt,
    check_pair_option,
    with_data_options,
)
from advisor.cli.run import (
    ContextualOpt,
    DeviceOpt,
    ExperimentOpt,
    PoolingOpt,
    ProgressDisplay,
    UriOpt,
    featurize_meter,
)
from advisor.settings import DEFAULT_POOLING

__all__ = ["contextuality_command", "render_contextuality"]

_COLUMNS = (
    ("self_similarity", "self-sim"),
    ("self_similarity_adjusted", "self-sim − base"),
    ("intra_similarity", "intra-sim"),
    ("intra_similarity_adjusted", "intra-sim − base"),
    ("mev", "MEV"),
    ("mev_baseline", "MEV base"),
    ("mev_adjusted", "MEV − base"),
    ("anisotropy", "anisotropy base"),
    ("static_share", "MEV > 0.5"),
)


def render_contextuality(result, title: str) -> Table:
    """One row per layer (0 = input embeddings), every measure with its baseline."""
    table = titled_table(title)
    table.add_column("layer", justify="right")
    for _, label in _COLUMNS:
        table.add_column(label, justify="right")
    for row in result.table.itertuples():
        cells = [
            f"{getattr(row, key):.0%}" if key == "static_share" else f"{getattr(row, key):.3f}"
            for key, _ in _COLUMNS
        ]
        table.add_row(str(row.layer), *cells)
    return table


MinCountOpt = Annotated[int, typer.Option("--min-count", help="words need at least this many occurrences")]
MaxOccurrencesOpt = Annotated[
    int, typer.Option("--max-occurrences", help="occurrences per word used at most (a seeded sample)")
]
CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir", help="feature cache (default: $ADVISOR_CACHE_DIR or ~/.cache/advisor/features)"
    ),
]


@app.command("contextuality")
@with_data_options
def contextuality_command(
    data_options: DataOptions,
    contextual: ContextualOpt = None,
    pooling: PoolingOpt = DEFAULT_POOLING,
    pair_encoding: PairEncodingOpt = DEFAULT_PAIR_ENCODING,
    min_count: MinCountOpt = 5,
    max_occurrences: MaxOccurrencesOpt = 50,
    cache_dir: CacheDirOpt = None,
    device: DeviceOpt = None,
    tracking_uri: UriOpt = None,
    experiment: ExperimentOpt = "advisor",
) -> None:
    """Self-similarity, intra-sentence similarity and MEV per layer, each against its anisotropy baseline."""
    from advisor.contextuality import all_layers_encoder, measure_contextuality

    if min_count < 2 or max_occurrences < min_count:
        raise E211(
            option="--min-count", requirement="be at least 2 and --max-occurrences at least --min-count"
        )
    encoding = check_pair_option(data_options.task, pair_encoding)  # E255 before any data or model is read
    splits = data_options.load()
    for warning in dict.fromkeys(splits.warnings):
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    embedding = all_layers_encoder(
        contextual, pooling, str(cache_dir) if cache_dir else None, device, encoding
    )
    with ProgressDisplay() as display:  # the featurize progress of `advisor run`: items, items/s, ETA
        embedding.on_progress = featurize_meter(display, "contextual", [len(splits.train)])
        stack = embedding.featurize_layers(splits.train)
    result = measure_contextuality(
        stack, splits.train.tokens, min_count=min_count, max_occurrences=max_occurrences
    )
    _print_result(result, embedding, data_options.data, min_count, encoding)
    run_id = _log_run(result, embedding, data_options, tracking_uri, experiment, encoding)
    console.print(f"logged to MLflow run {run_id}", highlight=False)


def _print_result(
    result: Any, embedding: Any, data: str, min_count: int, pair_encoding: str | None = None
) -> None:
    """The per-layer table, titled with what was measured (for pairs: how they were encoded), and a
    legend of the measures."""
    from advisor.contextuality import encoder_name

    items = f"pairs, pair encoding {pair_encoding}" if pair_encoding else "sentences"
    title = (
        f"{escape(encoder_name(embedding.model_ref))} on {escape(str(data))} (train split): {result.n_words:,} words "
        f"with ≥ {min_count} occurrences ({result.n_occurrences:,} used), {result.n_sentences:,} {items}; "
        "base = anisotropy baseline"
    )
    console.print(render_contextuality(result, title))
    console.print(
        "[dim]self-sim: cosine of a word's vectors across contexts (1 = static); intra-sim: cosine of a word with "
        "its sentence mean; MEV: variance share one static vector explains (upper bound on how well static could "
        "replace the word); MEV > 0.5: share of frequent words for which a static vector explains most variance.[/]"
    )


def _log_run(
    result: Any,
    embedding: Any,
    data_options: DataOptions,
    tracking_uri: str | None,
    experiment: str,
    pair_encoding: str | None = None,
) -> str:
    """One finished MLflow run (tag ``advisor.kind=contextuality``) with the encoder's params (and, for
    pairs, ``pair_encoding`` as ``advisor run`` logs it); its id."""
    from advisor.tracking import log_contextuality_run

    data = data_options.data
    described = {f"encoder_{k}": v for k, v in embedding.describe().items() if k != "layer"}
    params = {"data": str(data), **({"pair_encoding": pair_encoding} if pair_encoding else {}), **described}
    return log_contextuality_run(
        result, params, data_options.task, Path(str(data)).name, tracking_uri, experiment
    )
