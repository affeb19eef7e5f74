"""The Layers page: start ``advisor layers`` on the page's dataset, and read a logged layer sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from advisor.app import _form as form
from advisor.app import (
    display_command,
    find_layer_sweeps,
    job_for,
    layers_command,
    load_layer_sweep,
    start_run,
    sweep_label,
    sweep_table,
)
from advisor.app._session import POLL_SECONDS, state, store_exists
from advisor.embeddings import POOLINGS
from advisor.grid import DEFAULT_APP_PROFILE, profiles
from advisor.tracking import DEFAULT_EXPERIMENT


@st.cache_data(show_spinner=False, max_entries=16)
def _sweep(run_id: str, uri: str) -> Any:  # a logged sweep never changes
    return load_layer_sweep(run_id, uri)


def page_layers(uri: str) -> None:
    st.header("4 · Encoder layers")
    st.caption(
        "`advisor layers`: the downstream model trained on each single encoder layer (0 = input "
        "embeddings) and on the learned scalar mix, at one mid-size training set with a few seeds: "
        "which layers carry your task, and whether the mix (the run's default) finds them."
    )
    layers_launcher(uri)
    st.divider()
    sweeps = find_layer_sweeps(uri) if store_exists(uri) else []
    if not sweeps:
        st.info(f"No layer sweep in {uri} yet: start one above, or `advisor layers DATA --task …`.")
        return
    ids = [r.info.run_id for r in sweeps]
    run_id = st.selectbox(
        "Layer sweep", ids, format_func=lambda i: sweep_label(sweeps[ids.index(i)]), key="sweep_run"
    )
    render_sweep(_sweep(run_id, uri))


def render_sweep(view: Any) -> None:
    """Dev score by layer next to the scalar mix's, the figure, and the mix's mean weights."""
    from advisor.contextuality import plot_layer_sweep

    st.caption(
        f"{Path(view.data).name} · {view.task} · {view.encoder} · dev {view.metric} × 100 at "
        f"{view.size:,} training items, {view.n_seeds} seeds · run {view.run_id}"
    )
    table = sweep_table(view)
    best = table[table["best layer"]].iloc[0]
    mix = table[table["layer"] == "scalar mix"]
    verdict = f"Best single layer: **{best['layer']}** (dev {best['dev mean']:.1f})"
    if len(mix):
        gap = float(mix["dev mean"].iloc[0]) - float(best["dev mean"])
        verdict += f"; scalar mix: **{float(mix['dev mean'].iloc[0]):.1f}** ({gap:+.1f} vs the best layer)"
    st.markdown(verdict + ".")
    metric_columns = {c: "{:.1f}" for c in table.columns if c.startswith(("dev mean", "test "))}
    st.dataframe(  # the mix's own row has no "dev − mix": a dash, not Streamlit's "None"
        table.style.format({**metric_columns, "dev − mix": "{:+.1f}"}, na_rep="–"),
        hide_index=True,
        placeholder="–",
    )
    st.caption("dev − mix: each layer's dev mean minus the scalar mix's (– on the mix's own row).")
    left, right = st.columns(2)
    left.pyplot(plot_layer_sweep(view.table, f"dev {view.metric}"), width="stretch")
    if not view.mix_weights.empty:
        weights = view.mix_weights.groupby("layer")["weight"].mean().rename("mean mix weight")
        right.caption("The scalar mix's learned weight per layer (mean over seeds)")
        right.dataframe(weights.to_frame().style.format("{:.2f}"), width="content", placeholder="–")


def _layers_key(ss: Any) -> str:
    return f"{ss.session_id}/layers"  # the page's layer-sweep job, beside its run job


def layers_launcher(uri: str) -> None:
    """Start ``advisor layers`` on the page's dataset; its log while it runs."""
    ss = state()
    job = job_for(_layers_key(ss))
    if ss.dataset is None:
        st.info("Choose a dataset on the Data page to sweep its layers; logged sweeps are listed below.")
    else:
        with st.expander(f"Run a layer sweep on {ss.dataset['label']}", expanded=job is None):
            names = profiles.names()
            cols = st.columns(4)
            profile = cols[0].selectbox(
                "Profile (step budget, mid size)",
                names,
                index=names.index(DEFAULT_APP_PROFILE),
                key="layers_profile",
            )
            seeds = int(cols[1].number_input("Seeds", 1, 10, 2, key="layers_seeds"))
            size = int(cols[2].number_input("Training items (0: mid size)", 0, None, 0, key="layers_size"))
            pooling = cols[3].selectbox("Sub-word pooling", list(POOLINGS), key="layers_pooling")
            contextual = st.text_input(
                "Contextual encoder (HF id or local folder; blank: packaged all-MiniLM-L6-v2)",
                key="layers_contextual",
            )
            pair_encoding = _pair_encoding(ss.dataset["task"])
            command = layers_command(
                ss.dataset,
                tracking_uri=uri,
                experiment=DEFAULT_EXPERIMENT,
                profile=profile,
                seeds=seeds,
                size=size or None,
                contextual=contextual or None,
                pooling=pooling,
                pair_encoding=pair_encoding,
            )
            st.code(display_command(command), language="bash", wrap_lines=True)
            if st.button("Run layer sweep", disabled=job is not None and job.running, key="run_layers"):
                log = (
                    Path(ss.dataset["folder"]) / "layers" / "layers.log"
                )  # its own folder: own progress file
                start_run(command, log, _layers_key(ss))
                st.rerun()
    if job is not None:
        st.fragment(run_every=POLL_SECONDS if job.running else None)(layers_monitor)()


def _pair_encoding(task: str) -> str | None:
    """How a pair's two texts enter the encoder (pair data only: the sweep measures that encoding)."""
    if task != "pair":
        return None
    return form.choice(st, "pair_encoding", radio=True, horizontal=True, key="layers_pair_encoding")


def layers_monitor() -> None:
    """The sweep's log while it runs; the page is redrawn once when it ends (its result then lists below)."""
    ss = state()
    job = job_for(_layers_key(ss))
    if job is None:
        return
    if job.running:
        ss.layers_was_running = True
        st.info("Layer sweep running: every layer trains with every seed; it is listed below when it ends.")
        if st.button("Stop the layer sweep", key="stop_layers"):
            job.stop()
            st.rerun(scope="app")
    else:
        if job.stop_requested:
            st.warning("Layer sweep stopped: nothing was logged (a sweep is logged when it ends).")
        elif job.returncode == 0:
            st.success("Layer sweep finished: it is the newest one below.")
        else:
            st.error(f"`advisor layers` exited with status {job.returncode}: see the log.")
        if ss.get("layers_was_running"):
            ss.layers_was_running = False
            st.rerun(scope="app")
    st.caption(f"log: {job.log_path}")
    st.code(job.log_tail(15) or "(no output yet)", language="text", wrap_lines=True)
