"""The Results page: one analysis's recommendation, costs, difficulty slices, encoder layers and items.

The cached readers here (:func:`analyses`, :func:`cached_analysis`, :func:`cached_recommend`) are
also the History page's, so a run switched between the two pages is read and judged once.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from advisor.app import (
    CONTEXTUALITY_LABELS,
    contextuality_table,
    cost_table,
    filter_items,
    item_metric_columns,
    item_outcomes,
    load_predictions,
    load_test_tokens,
    mix_weights_by_cell,
    slice_table,
    verdict_text,
)
from advisor.app._session import state, store_exists
from advisor.report import partial_label, partial_notice
from advisor.tracking import find_analyses, load_analysis


def run_label(run: Any) -> str:
    verdict = verdict_text(run.data.tags.get("advisor.verdict", ""), run.info.status)
    return f"{run.info.run_name} · {run.info.status.lower()} · {verdict} · {run.info.run_id[:8]}"


def analyses(uri: str, max_results: int = 100) -> list[Any]:
    """The store's analyses, after closing those whose owner process is gone (shown KILLED, not RUNNING)."""
    if not store_exists(uri):
        return []
    from advisor.tracking import close_stale_runs

    close_stale_runs(uri)
    return find_analyses(uri, max_results=max_results)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_analysis(
    run_id: str, uri: str, version: str
) -> Any:  # version: end time + status, so a finished run is reread
    return load_analysis(run_id, uri)


@st.cache_data(show_spinner=False, max_entries=16)
def _predictions(run_id: str, uri: str, version: str) -> Any:
    return load_predictions(run_id, uri)


@st.cache_resource(show_spinner=False, max_entries=32)
def cached_recommend(run_id: str, uri: str, version: str) -> Any:
    """The verdict of a run version, computed once (its bootstrap takes seconds): page switches stay fast."""
    from advisor.verdict import recommend

    return recommend(cached_analysis(run_id, uri, version))


@st.cache_data(show_spinner=False, max_entries=16)
def _tokens(run_id: str, uri: str, version: str) -> Any:
    return load_test_tokens(run_id, uri)


def page_results(uri: str) -> None:
    ss = state()
    st.header("3 · Recommendation")
    runs = analyses(uri)
    if not runs:
        st.info(f"No analysis in {uri} yet: run one on the Configure & run page (or `advisor run`).")
        return
    ids = [r.info.run_id for r in runs]
    wanted = st.query_params.get("run") or ss.job_run_id
    run_id = st.selectbox(
        "Analysis",
        ids,
        index=ids.index(wanted) if wanted in ids else 0,
        format_func=lambda i: run_label(runs[ids.index(i)]),
        key="result_run",
    )
    run = runs[ids.index(run_id)]
    version = f"{run.info.status}:{run.info.end_time}"
    analysis = cached_analysis(run_id, uri, version)
    render_recommendation(analysis, cached_recommend(run_id, uri, version))
    render_layers(analysis)
    tokens = _tokens(run_id, uri, version) if analysis.task == "ner" else {}
    render_items(analysis, _predictions(run_id, uri, version), tokens)


#: What the app's tables show for a missing value (Streamlit's own default is the word "None").
MISSING = "–"


def render_verdict(analysis: Any, rec: Any) -> None:
    """The verdict block: the label and its headline, never in the green "final" style for a partial run."""
    notice = partial_notice(analysis.status)
    if notice:
        st.warning(
            f"**{notice}**\n\nVerdict so far: **{rec.verdict.upper()}** ({partial_label(analysis.status)})"
            f"\n\n{rec.headline}"
        )
    else:
        box = {"use contextual": st.success, "inconclusive": st.warning}.get(rec.verdict, st.info)
        box(f"**Verdict: {rec.verdict.upper()}**\n\n{rec.headline}")


def show_verdict(run_id: str, uri: str) -> None:
    """One analysis's verdict block as the Results page shows it (read and judged once, cached)."""
    from advisor.tracking import client_for

    info = client_for(uri).get_run(run_id).info
    version = f"{info.status}:{info.end_time}"
    render_verdict(cached_analysis(run_id, uri, version), cached_recommend(run_id, uri, version))


def render_recommendation(analysis: Any, rec: Any) -> None:
    from advisor.plots import plot_data_efficiency, plot_learning_curves

    dataset = analysis.dataset.get("name", "")
    st.caption(
        f"{dataset} · {analysis.task} · {analysis.primary_metric} · full size {rec.full_size:,} · "
        f"{rec.n_seeds} seeds · run {analysis.run_id} ({analysis.status})"
    )
    render_verdict(analysis, rec)
    st.subheader("Why")
    st.markdown("\n".join(f"- {reason}" for reason in rec.reasons))
    for finding in rec.carrying_slices:
        st.markdown(f"- {finding.describe()}")
    for caveat in rec.caveats:
        st.warning(caveat)
    if not len(analysis.curves):
        return
    left, right = st.columns(2)
    left.subheader("Learning curves")
    left.pyplot(plot_learning_curves(analysis, rec.fits), width="stretch")
    if rec.efficiency:
        right.subheader("Data efficiency")
        right.pyplot(plot_data_efficiency(rec.efficiency), width="stretch")
    if rec.costs is not None:
        render_costs(rec.costs)
    render_slices(analysis)


def render_costs(costs: Any) -> None:
    """Costs as rows, embeddings and contextual's multiples as columns: a table as wide as the page."""
    from advisor.plots import plot_costs

    st.subheader("Costs")
    table = cost_table(costs)
    right = {
        c: st.column_config.TextColumn(alignment="right") for c in table.columns if c not in ("cost", "unit")
    }
    st.dataframe(
        table, hide_index=True, width="stretch", height="content", column_config=right, placeholder=MISSING
    )
    st.caption(
        f"At {costs.size:,} training items, median over seeds; "
        "'< 1' MB: a training peak memory below what resident-memory sampling resolves (no ratio)."
    )
    with st.expander("Cost figure"):
        st.pyplot(plot_costs(costs), width="content")


def render_slices(analysis: Any) -> None:
    """The difficulty gaps in points at the largest size, and their figure."""
    from advisor.plots import plot_difficulty_gaps

    st.subheader("Difficulty slices: where the gap comes from")
    table = slice_table(analysis.slices)
    if table.empty:
        st.info("This run has no difficulty analysis.")
        return
    unit = "sentence" if analysis.task == "ner" else "item"
    st.caption(f"Gaps in points at the largest size; CI of difficult − easy from the {unit} bootstrap.")
    st.dataframe(
        table.style.format(
            {"difficult": "{:+.1f}", "easy": "{:+.1f}", "difficult − easy": "{:+.1f}"}, na_rep=MISSING
        ),
        hide_index=True,
        height="content",
        placeholder=MISSING,
    )
    figure = plot_difficulty_gaps(analysis.slices)
    if figure is not None:
        with st.expander("Gap figure"):
            st.pyplot(figure, width="content")


def render_items(analysis: Any, predictions: Any, tokens: Any = None) -> None:
    st.subheader("Items: which embeddings got each one right")
    table = item_outcomes(analysis, predictions, tokens=tokens)
    if table.empty:
        st.info("No per-item predictions in this run.")
        return
    names = [n for n in analysis.embedding_names if f"right_{n}" in table.columns]
    cols = st.columns([2, 3, 3])
    metrics = item_metric_columns(analysis.task, table)
    metric = cols[0].selectbox("Difficulty metric", ["(none)", *metrics], key="item_metric")
    low = high = None
    keep_nonfinite = True
    if metric != "(none)":
        values = table[metric].astype(float)
        finite = values[values.map(math.isfinite)]
        if len(finite) and finite.min() < finite.max():
            low, high = cols[1].slider(
                f"{metric} between",
                float(finite.min()),
                float(finite.max()),
                (float(finite.min()), float(finite.max())),
                key="item_range",
            )
        keep_nonfinite = cols[1].checkbox(
            "keep infinite / missing values (e.g. never seen in training)", True, key="item_inf"
        )
    right: dict[str, bool] = {}
    choice_cols = cols[2].columns(len(names))
    for col, name in zip(choice_cols, names, strict=True):
        pick = col.selectbox(name, ["any", "right", "wrong"], key=f"item_right_{name}")
        if pick != "any":
            right[name] = pick == "right"
    shown = filter_items(table, None if metric == "(none)" else metric, low, high, right, keep_nonfinite)
    st.caption(
        f"{len(shown)} of {len(table)} rows; right_<embedding> = share of seeds that got the row right"
    )
    st.dataframe(shown, hide_index=True, width="stretch", placeholder=MISSING)


def render_layers(analysis: Any) -> None:
    """Which layers each cell's scalar mix used, and how contextual the encoder is per layer (issue 11)."""
    from advisor.contextuality import plot_contextuality, plot_mix_weights

    weights, context = mix_weights_by_cell(analysis), contextuality_table(analysis)
    if weights.empty and context.empty:
        return
    st.subheader("Encoder layers: which ones the task used, and how contextual they are")
    if not weights.empty:
        layer_columns = [c for c in weights.columns if c.startswith("layer ")]
        st.caption(
            "Learned scalar-mix weights of every contextual cell (softmax over layers, 0 = input "
            f"embeddings; uniform would be {1 / len(layer_columns):.2f} each)."
        )
        st.dataframe(
            weights.style.format({c: "{:.2f}" for c in layer_columns}),
            hide_index=True,
            width="stretch",
            placeholder=MISSING,
        )
        with st.expander("Mix-weight figure"):
            st.pyplot(plot_mix_weights(analysis.layer_tables["mix_weights"]), width="content")
    if not context.empty:
        words = analysis.params.get("contextuality_words", "?")
        st.caption(
            f"How contextual the encoder's word vectors are on your training data, per layer (Ethayarajh "
            f"2019), over {words} words occurring ≥ 5 times, each measure also with its anisotropy baseline "
            "subtracted. MEV bounds how much of a word's variance one static vector could explain."
        )
        share = CONTEXTUALITY_LABELS["static_share"]
        numbers = {c: "{:.3f}" for c in context.columns if c not in ("layer", share)}
        st.dataframe(
            context.style.format({**numbers, share: "{:.0%}"}, na_rep=MISSING),
            hide_index=True,
            width="stretch",
            placeholder=MISSING,
        )
        with st.expander("Contextuality figure"):
            st.pyplot(plot_contextuality(analysis.layer_tables["contextuality"]), width="stretch")
