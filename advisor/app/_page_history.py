"""The History page: every analysis in the store, and chosen ones side by side with a link to MLflow."""

from __future__ import annotations

import streamlit as st

from advisor.app import (
    MLFLOW_UI_URL,
    compare_url,
    experiment_url,
    history_frame,
    mlflow_ui_command,
    server_url,
)
from advisor.app._page_results import analyses, cached_analysis, cached_recommend, run_label
from advisor.report import is_partial, partial_label, partial_notice


def page_history(uri: str) -> None:
    st.header("5 · History")
    runs = analyses(uri, max_results=200)
    if not runs:
        st.info(f"No analysis in {uri} yet.")
        return
    frame = history_frame(runs)
    shown = frame.drop(columns=["experiment_id"]).assign(run_id=frame["run_id"].str[:8])  # as labelled below
    st.dataframe(shown, hide_index=True, width="stretch", placeholder="–")  # short ids: the columns fit
    ids = list(frame["run_id"])
    chosen = st.multiselect(
        "Compare side by side",
        ids,
        default=ids[: min(2, len(ids))],
        format_func=lambda i: run_label(runs[ids.index(i)]),
        key="compare",
    )
    server = server_url(uri)
    if server:  # the tracking server serves the MLflow UI itself: nothing to start
        st.markdown(f"Open the same runs in the MLflow UI of the tracking server: [{server}]({server})")
    else:
        st.markdown("Open the same runs in the MLflow UI:")
        st.code(mlflow_ui_command(uri), language="bash", wrap_lines=True)
    tables = [experiment_url(e, server or MLFLOW_UI_URL) for e in dict.fromkeys(frame["experiment_id"])]
    st.markdown("Runs table: " + " · ".join(f"[{url}]({url})" for url in tables))
    if chosen:
        experiments = list(frame.set_index("run_id").loc[chosen, "experiment_id"])
        link = compare_url(chosen, experiments, base=server or MLFLOW_UI_URL)
        st.markdown(f"Run ids: {', '.join(f'`{i}`' for i in chosen)} · [compare in MLflow]({link})")
    from advisor.plots import plot_learning_curves

    for column, run_id in zip(st.columns(max(len(chosen), 1)), chosen, strict=False):
        run = runs[ids.index(run_id)]
        version = f"{run.info.status}:{run.info.end_time}"
        analysis = cached_analysis(run_id, uri, version)
        rec = cached_recommend(run_id, uri, version)
        column.markdown(f"**{run.info.run_name}** · `{run_id[:8]}` · {run.info.status.lower()}")
        if is_partial(analysis.status):
            column.warning(
                f"**{partial_notice(analysis.status)}**\n\nVerdict so far: {rec.verdict.upper()} "
                f"({partial_label(analysis.status)}): {rec.headline}"
            )
        else:
            column.markdown(f"**{rec.verdict.upper()}**: {rec.headline}")
        if len(analysis.curves):
            column.pyplot(plot_learning_curves(analysis, rec.fits), width="stretch")
