"""The advisor app's page: upload data, configure and run an analysis, read the recommendation, compare runs.

It ships inside the package, so ``advisor ui`` works from an installed wheel: it runs this file
(``streamlit run <site-packages>/advisor/app/page.py -- --tracking-uri URI``); in a checkout,
``streamlit_app.py`` is a shim that calls :func:`main`. Only display code lives here; reading files,
the run subprocess, MLflow polling and the tables shown are in :mod:`advisor.app`, and the verdict
comes from :func:`advisor.verdict.recommend`, as in the CLI.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import streamlit as st

from advisor.app import (
    CONTEXTUALITY_LABELS,
    MLFLOW_UI_URL,
    compare_url,
    contextuality_table,
    cost_table,
    demo_datasets,
    detect_task,
    display_command,
    filter_items,
    find_layer_sweeps,
    history_frame,
    item_metric_columns,
    item_outcomes,
    job_for,
    layers_command,
    live_progress,
    load_layer_sweep,
    load_predictions,
    load_test_tokens,
    max_upload_mb,
    mix_weights_by_cell,
    mlflow_ui_command,
    preview_dataset,
    run_command,
    server_url,
    session_memory,
    slice_table,
    start_run,
    store_upload,
    summary_rows,
    sweep_label,
    sweep_table,
    upload_root,
    verdict_text,
)
from advisor.app import _form as form
from advisor.backends import check_backend
from advisor.data import TASKS
from advisor.embeddings._contextual import POOLINGS
from advisor.errors import AdvisorError
from advisor.grid import DEFAULT_APP_PROFILE, expected_duration_text, profiles
from advisor.mlflow_views import store_uri
from advisor.report import is_partial, partial_label, partial_notice
from advisor.settings import RunSettings
from advisor.tracking import DEFAULT_EXPERIMENT, find_analyses, load_analysis
from advisor.validate import check_embeddings, check_layer, encoder_layers

PAGES = ("Data", "Configure & run", "Results", "Layers", "History")
POLL_SECONDS = 3


def tracking_uri() -> str:
    """``-- --tracking-uri`` from ``advisor ui``, else ``ADVISOR_TRACKING_URI``, else MLflow's usual lookup."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--tracking-uri", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return store_uri(known.tracking_uri or os.environ.get("ADVISOR_TRACKING_URI"))  # creates nothing


def state() -> Any:
    """Per-browser-session state with its defaults.

    The session id tags this page's runs and sits in the URL (``?session=``), so a refreshed page
    finds its running job, with its Stop button, in the server's job registry.
    """
    ss = st.session_state
    if "session_id" not in ss:
        ss.session_id = st.query_params.get("session") or uuid.uuid4().hex
        st.query_params["session"] = ss.session_id
    ss.setdefault("stored", {})  # uploader file_id -> StoredUpload (so a rerun does not write it again)
    if ss.get("dataset") is None:
        ss.dataset = session_memory(ss.session_id).get("dataset")  # kept across a refresh
    if ss.get("job") is None:
        ss.job = job_for(ss.session_id)
    ss.setdefault("job_run_id", None)
    return ss


def _set_dataset(dataset: dict[str, Any] | None) -> None:
    """The page's dataset, also kept by the server for this session (a refresh keeps it)."""
    ss = state()
    ss.dataset = session_memory(ss.session_id)["dataset"] = dataset


def _store_exists(uri: str) -> bool:
    """A local sqlite store that was never written has nothing to show, and reading must not create it."""
    return not uri.startswith("sqlite:///") or Path(uri.removeprefix("sqlite:///")).is_file()


# -- data ------------------------------------------------------------------------------------------


def _store(uploaded: Any, uri: str) -> Any:
    """Write an upload once, in a folder of its own (same-named train/dev/test files never collide)."""
    ss = state()
    if uploaded.file_id not in ss.stored:
        ss.stored[uploaded.file_id] = store_upload(uploaded.name, uploaded.getvalue(), upload_root(uri))
    return ss.stored[uploaded.file_id]


def _as_named(text: str, uploads: list[Any]) -> str:
    """Messages name uploads as the user named them, not by their path in the upload folder."""
    for upload in uploads:
        text = text.replace(str(upload.path), upload.original_name)
    return text


def page_data(uri: str) -> None:
    st.header("1 · Your data")
    demos = demo_datasets()
    sources = ["Upload a file"] + (["Bundled demo data"] if demos else [])
    source = st.radio("Dataset", sources, horizontal=True, key="source")
    dataset = _demo_dataset(demos, uri) if source == "Bundled demo data" else _uploaded_dataset(uri)
    if dataset is not None:
        _show_dataset(dataset)


def _demo_dataset(demos: dict[str, Any], uri: str) -> dict[str, Any]:
    """The bundled demo files of the chosen task (package data, so also there in an installed wheel)."""
    task = st.selectbox("Demo task", list(demos), key="demo_task")
    demo = demos[task]
    st.caption(f"{demo.train.name}, {demo.dev.name}, {demo.test.name} from {demo.train.parent}")
    return {
        "data": str(demo.train),
        "dev": str(demo.dev),
        "test": str(demo.test),
        "task": task,
        "folder": str(upload_root(uri) / state().session_id),
        "label": f"demo {task}",
    }


def _uploaded_dataset(uri: str) -> dict[str, Any] | None:
    """The uploaded files, stored, with the task and columns chosen for them; None (said why) otherwise."""
    limit = max_upload_mb()
    uploaded = st.file_uploader(
        f"Training file: CoNLL, CSV, TSV, JSONL, or `label text` lines with any extension (at most {limit} MB)",
        key="upload_train",
        max_upload_size=limit,
    )
    with st.expander("Separate dev / test files (optional: otherwise a seeded split of the training file)"):
        dev_file = st.file_uploader("Dev file", key="upload_dev", max_upload_size=limit)
        test_file = st.file_uploader("Test file", key="upload_test", max_upload_size=limit)
    if uploaded is None:
        _set_dataset(None)
        st.info("Upload a labelled file, or pick the bundled demo data.")
        return None
    try:
        train = _store(uploaded, uri)
        dev = _store(dev_file, uri) if dev_file is not None else None
        test = _store(test_file, uri) if test_file is not None else None
    except AdvisorError as error:
        _set_dataset(None)
        st.error(error.render())
        return None
    task, text_col, label_col = _task_and_columns(uploaded.file_id, train.path)
    return {
        "data": str(train.path),
        "dev": str(dev.path) if dev else None,
        "test": str(test.path) if test else None,
        "task": task,
        "text_col": text_col,
        "label_col": label_col,
        "folder": str(train.folder),
        "label": uploaded.name,
        "stored": [u for u in (train, dev, test) if u is not None],
    }


def _task_and_columns(file_id: str, path: Path) -> tuple[str, str | None, str | None]:
    """The task (detected, changeable) and, for tabular classification files, the text and label columns.

    Widgets are keyed by the upload: a new file gets its own detected task and columns, never the
    previous file's choices.
    """
    detected = detect_task(path.name, path.read_bytes()[:65536])
    options = list(TASKS)
    task = st.selectbox(
        f"Task (detected: {detected or 'unknown'})",
        options,
        index=options.index(detected) if detected in options else 0,
        key=f"task_{file_id}",
    )
    if task != "classify" or path.suffix.lower() not in (".csv", ".tsv", ".jsonl", ".json", ".ndjson"):
        return task, None, None
    cols = st.columns(2)
    text_col = cols[0].text_input("Text column (blank: guess)", key=f"text_col_{file_id}") or None
    label_col = cols[1].text_input("Label column (blank: guess)", key=f"label_col_{file_id}") or None
    return task, text_col, label_col


def _show_dataset(dataset: dict[str, Any]) -> None:
    """Read the files as a run would: errors and warnings naming the user's files, the summary, first items."""
    preview = preview_dataset(
        dataset["data"],
        dataset["task"],
        dev=dataset.get("dev"),
        test=dataset.get("test"),
        text_col=dataset.get("text_col"),
        label_col=dataset.get("label_col"),
    )
    named = dataset.get("stored", [])
    if not preview.ok:
        st.error(_as_named(preview.error or "", named))
        _set_dataset(None)
        return
    for warning in preview.warnings:
        st.warning(_as_named(warning, named))
    _set_dataset(dataset)
    st.success(f"Ready: {dataset['label']} as a {dataset['task']} dataset. Next: Configure & run.")
    st.subheader("Summary")
    st.caption("The same summary `advisor inspect` prints.")
    st.table(summary_rows(preview.summary).set_index("property"))
    st.subheader("First items")
    st.dataframe(preview.preview, hide_index=True, width="stretch")


# -- configure & run -------------------------------------------------------------------------------


def _settings(dataset: dict[str, Any], uri: str) -> RunSettings:
    """The run's settings from the form; bad values raise ConfigError (shown, not thrown).

    Widgets are drawn in this order (a bad value stops the form where it is read): profile and
    embeddings, the grid row, Compute, Models.
    """
    values: dict[str, Any] = {
        "profile": form.choice(st, "profile", default=DEFAULT_APP_PROFILE, format_func=_profile_text),
        "embeddings": form.multichoice(st, "embeddings"),
    }
    values.update(_grid())
    values["backend"], values["ray_address"] = _backend()
    values.update(_models())
    check_embeddings(values["embeddings"])  # none chosen is said on the form, before Run
    return RunSettings(
        data=dataset["data"],
        task=dataset["task"],
        dev=dataset.get("dev"),
        test=dataset.get("test"),
        text_col=dataset.get("text_col"),
        label_col=dataset.get("label_col"),
        tracking_uri=uri,
        **values,
    )


def _profile_text(name: str) -> str:
    """A profile as the form lists it: its description and the grid it runs."""
    profile = profiles.get(name)
    return (
        f"{name}: {profile.description} ({profile.n_sizes} sizes × "
        f"{profile.seeds} seeds, ≤{profile.max_steps:,} steps a model)"
    )


def _grid() -> dict[str, Any]:
    """Sizes or fractions (or the profile's grid) and the seeds, in one row."""
    cols = st.columns(3)
    grid = cols[0].radio("Training-set sizes", ["from the profile", "sizes", "fractions"], key="grid")
    sizes = fractions = None
    if grid == "sizes":
        sizes = form.number_list(cols[1], "sizes", "100,200,400")
    elif grid == "fractions":
        fractions = form.number_list(cols[1], "fractions", "0.25,0.5,1")
    seeds = form.count(cols[2], "seeds", 0, 20)
    return {"sizes": sizes, "fractions": fractions, "seeds": seeds}


def _models() -> dict[str, Any]:
    """The encoder, its layers and pooling, the static vectors and the MLflow experiment (blank: default)."""
    with st.expander("Models"):
        contextual = form.text(st, "contextual")
        mcols = st.columns(2)
        layer = form.text(mcols[0], "layer", tooltip=True)
        pooling = form.choice(mcols[1], "pooling")
        static = form.text(st, "static")
        experiment = form.text(st, "experiment")
    contextual, layer = form.or_default("contextual", contextual), form.or_default("layer", layer.strip())
    check_layer(layer, encoder_layers(contextual))  # a bad layer is said on the form, before Run
    return {
        "contextual": contextual,
        "layer": layer,
        "pooling": pooling,
        "static": form.or_default("static", static),
        "experiment": form.or_default("experiment", experiment),
    }


def _backend() -> tuple[str, str | None]:
    """Where the cells train: local worker processes, or Ray (a local runtime, or a cluster's address)."""
    with st.expander("Compute: local worker processes or Ray"):
        cols = st.columns([1, 3])
        backend = form.choice(cols[0], "backend", radio=True, horizontal=True)
        address = form.text(cols[1], "ray_address", disabled=backend != "ray")
    ray_address = (address.strip() or None) if backend == "ray" else None
    check_backend(backend, ray_address)  # e.g. Ray not installed: said on the form, before Run
    return backend, ray_address


def page_run(uri: str) -> None:
    ss = state()
    st.header("2 · Configure and run")
    if ss.dataset is None:
        st.info("Choose a dataset on the Data page first.")
    else:
        st.caption(f"Dataset: {ss.dataset['label']} ({ss.dataset['task']})")
        try:
            settings = _settings(ss.dataset, uri)
        except AdvisorError as error:
            st.error(error.render())
            settings = None
        if settings is not None:
            command = run_command(settings, ss.session_id)
            st.code(display_command(command), language="bash")
            st.caption(expected_duration_text(settings))
            running = ss.job is not None and ss.job.running
            if st.button("Run", type="primary", disabled=running, key="run"):
                folder = Path(ss.dataset["folder"])
                ss.job = start_run(command, folder / "run.log", ss.session_id)
                ss.job_run_id = None
                st.rerun()
    if ss.job is not None:
        st.divider()
        st.caption("This page's run:")
        st.code(display_command(ss.job.command), language="bash")
        if ss.job.running and st.button("Stop", key="stop"):
            with st.spinner("Stopping: the run ends KILLED, finished cells are kept"):
                ss.job.stop()
            st.rerun()
        # Poll only while the run is alive: an idle page (or one whose run ended) costs nothing.
        st.fragment(run_every=POLL_SECONDS if ss.job.running else None)(run_monitor)()


@st.cache_data(show_spinner=False, max_entries=8)
def _live_curves(run_id: str, uri: str, cells_done: int) -> Any:
    """The learning curves so far, reread from MLflow only when another cell has finished."""
    from advisor.plots import plot_learning_curves

    analysis = load_analysis(run_id, uri)
    return plot_learning_curves(analysis) if len(analysis.curves) else None


def run_monitor() -> None:
    """Stage, progress and ETA from the run's small progress file; the curves when a cell is added."""
    ss = state()
    job = ss.job
    if job is None:
        return
    running = job.running
    progress = job.progress()
    fraction, text = live_progress(progress, running)
    st.progress(fraction, text=text)
    run_id = (progress or {}).get("run_id") or None
    if run_id:
        ss.job_run_id = run_id
        st.caption(f"MLflow run {run_id}")
        done = int(progress.get("done", 0)) if progress.get("stage") in ("cell", "analysis", "done") else 0
        figure = _live_curves(run_id, tracking_uri(), done) if done else None
        if figure is not None:
            st.pyplot(figure, width="content")
    if not running:
        code = job.returncode
        if job.stop_requested:
            st.warning(
                f"Stopped (exit {code}): the run ended KILLED and finished cells are kept; run again to resume. "
                "Its verdict on the Results page is labelled partial."
            )
        elif code == 0:
            st.success("Finished: open the Results page for the recommendation.")
        else:
            st.error(f"`advisor run` exited with status {code}: see the log below.")
        if ss.get("monitor_was_running"):
            ss.monitor_was_running = False
            st.rerun(scope="app")  # the run ended: redraw the page once, without the polling fragment
    else:
        ss.monitor_was_running = True
    st.caption(f"log: {job.log_path}")
    st.code(job.log_tail(25) or "(no output yet)", language="text")


# -- results ---------------------------------------------------------------------------------------


def _run_label(run: Any) -> str:
    verdict = verdict_text(run.data.tags.get("advisor.verdict", ""), run.info.status)
    return f"{run.info.run_name} · {run.info.status.lower()} · {verdict} · {run.info.run_id[:8]}"


def _analyses(uri: str, max_results: int = 100) -> list[Any]:
    """The store's analyses, after closing those whose owner process is gone (shown KILLED, not RUNNING)."""
    if not _store_exists(uri):
        return []
    from advisor.lifecycle import close_stale_runs

    close_stale_runs(uri)
    return find_analyses(uri, max_results=max_results)


@st.cache_data(show_spinner=False, max_entries=32)
def _analysis(
    run_id: str, uri: str, version: str
) -> Any:  # version: end time + status, so a finished run is reread
    return load_analysis(run_id, uri)


@st.cache_data(show_spinner=False, max_entries=16)
def _predictions(run_id: str, uri: str, version: str) -> Any:
    return load_predictions(run_id, uri)


@st.cache_resource(show_spinner=False, max_entries=32)
def _recommend(run_id: str, uri: str, version: str) -> Any:
    """The verdict of a run version, computed once (its bootstrap takes seconds): page switches stay fast."""
    from advisor.verdict import recommend

    return recommend(_analysis(run_id, uri, version))


@st.cache_data(show_spinner=False, max_entries=16)
def _tokens(run_id: str, uri: str, version: str) -> Any:
    return load_test_tokens(run_id, uri)


def page_results(uri: str) -> None:
    ss = state()
    st.header("3 · Recommendation")
    runs = _analyses(uri)
    if not runs:
        st.info(f"No analysis in {uri} yet: run one on the Configure & run page (or `advisor run`).")
        return
    ids = [r.info.run_id for r in runs]
    wanted = st.query_params.get("run") or ss.job_run_id
    run_id = st.selectbox(
        "Analysis",
        ids,
        index=ids.index(wanted) if wanted in ids else 0,
        format_func=lambda i: _run_label(runs[ids.index(i)]),
        key="result_run",
    )
    run = runs[ids.index(run_id)]
    version = f"{run.info.status}:{run.info.end_time}"
    analysis = _analysis(run_id, uri, version)
    render_recommendation(analysis, _recommend(run_id, uri, version))
    render_layers(analysis)
    tokens = _tokens(run_id, uri, version) if analysis.task == "ner" else {}
    render_items(analysis, _predictions(run_id, uri, version), tokens)


def _number(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def render_recommendation(analysis: Any, rec: Any) -> None:
    from advisor.plots import plot_costs, plot_data_efficiency, plot_difficulty_gaps, plot_learning_curves

    dataset = analysis.dataset.get("name", "")
    st.caption(
        f"{dataset} · {analysis.task} · {analysis.primary_metric} · full size {rec.full_size} · "
        f"{rec.n_seeds} seeds · run {analysis.run_id} ({analysis.status})"
    )
    notice = partial_notice(analysis.status)
    if notice:  # never the green "final" style for a run that did not finish
        st.warning(
            f"**{notice}**\n\nVerdict so far: **{rec.verdict.upper()}** ({partial_label(analysis.status)})"
            f"\n\n{rec.headline}"
        )
    else:
        box = {"use contextual": st.success, "inconclusive": st.warning}.get(rec.verdict, st.info)
        box(f"**Verdict: {rec.verdict.upper()}**\n\n{rec.headline}")
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
        st.subheader("Costs")
        st.dataframe(cost_table(rec.costs).style.format(_number), width="stretch")
        with st.expander("Cost figure"):
            st.pyplot(plot_costs(rec.costs), width="content")
    st.subheader("Difficulty slices: where the gap comes from")
    table = slice_table(analysis.slices)
    if table.empty:
        st.info("This run has no difficulty analysis.")
    else:
        st.caption("Gaps in points at the largest size; CI of difficult − easy from the sentence bootstrap.")
        st.dataframe(
            table.style.format(
                {"difficult": "{:+.1f}", "easy": "{:+.1f}", "difficult − easy": "{:+.1f}"}, na_rep="–"
            ),
            hide_index=True,
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
    st.dataframe(shown, hide_index=True, width="stretch")


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
            weights.style.format({c: "{:.2f}" for c in layer_columns}), hide_index=True, width="stretch"
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
            context.style.format({**numbers, share: "{:.0%}"}, na_rep="–"), hide_index=True, width="stretch"
        )
        with st.expander("Contextuality figure"):
            st.pyplot(plot_contextuality(analysis.layer_tables["contextuality"]), width="stretch")


# -- layers ----------------------------------------------------------------------------------------


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
    sweeps = find_layer_sweeps(uri) if _store_exists(uri) else []
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
    st.dataframe(table.style.format({**metric_columns, "dev − mix": "{:+.1f}"}, na_rep="–"), hide_index=True)
    left, right = st.columns(2)
    left.pyplot(plot_layer_sweep(view.table, f"dev {view.metric}"), width="stretch")
    if not view.mix_weights.empty:
        weights = view.mix_weights.groupby("layer")["weight"].mean().rename("mean mix weight")
        right.caption("The scalar mix's learned weight per layer (mean over seeds)")
        right.dataframe(weights.to_frame().style.format("{:.2f}"), width="content")


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
            command = layers_command(
                ss.dataset,
                tracking_uri=uri,
                experiment=DEFAULT_EXPERIMENT,
                profile=profile,
                seeds=seeds,
                size=size or None,
                contextual=contextual or None,
                pooling=pooling,
            )
            st.code(display_command(command), language="bash")
            if st.button("Run layer sweep", disabled=job is not None and job.running, key="run_layers"):
                log = (
                    Path(ss.dataset["folder"]) / "layers" / "layers.log"
                )  # its own folder: own progress file
                start_run(command, log, _layers_key(ss))
                st.rerun()
    if job is not None:
        st.fragment(run_every=POLL_SECONDS if job.running else None)(layers_monitor)()


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
    st.code(job.log_tail(15) or "(no output yet)", language="text")


# -- history ---------------------------------------------------------------------------------------


def page_history(uri: str) -> None:
    st.header("5 · History")
    runs = _analyses(uri, max_results=200)
    if not runs:
        st.info(f"No analysis in {uri} yet.")
        return
    frame = history_frame(runs)
    st.dataframe(frame.drop(columns=["experiment_id"]), hide_index=True, width="stretch")
    ids = list(frame["run_id"])
    chosen = st.multiselect(
        "Compare side by side",
        ids,
        default=ids[: min(2, len(ids))],
        format_func=lambda i: _run_label(runs[ids.index(i)]),
        key="compare",
    )
    server = server_url(uri)
    if server:  # the tracking server serves the MLflow UI itself: nothing to start
        st.markdown(f"Open the same runs in the MLflow UI of the tracking server: [{server}]({server})")
    else:
        st.markdown("Open the same runs in the MLflow UI:")
        st.code(mlflow_ui_command(uri), language="bash")
    if chosen:
        experiments = list(frame.set_index("run_id").loc[chosen, "experiment_id"])
        link = compare_url(chosen, experiments, base=server or MLFLOW_UI_URL)
        st.markdown(f"Run ids: {', '.join(f'`{i}`' for i in chosen)} · [compare in MLflow]({link})")
    from advisor.plots import plot_learning_curves

    for column, run_id in zip(st.columns(max(len(chosen), 1)), chosen, strict=False):
        run = runs[ids.index(run_id)]
        version = f"{run.info.status}:{run.info.end_time}"
        analysis = _analysis(run_id, uri, version)
        rec = _recommend(run_id, uri, version)
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


def main() -> None:
    st.set_page_config(page_title="advisor: are contextual embeddings worth it?", layout="wide")
    state()
    st.title("Are contextual embeddings worth it on your data?")
    try:
        uri = tracking_uri()
    except AdvisorError as error:
        st.error(error.render())
        return
    requested = st.query_params.get("page")
    page = st.sidebar.radio(
        "Page", PAGES, index=PAGES.index(requested) if requested in PAGES else 0, key="page"
    )
    if requested != page:
        st.query_params["page"] = page  # a refresh stays on this page
    st.sidebar.caption(f"MLflow store: {uri}")
    st.sidebar.caption(f"Uploads: {upload_root(uri)}")
    try:
        {
            "Data": page_data,
            "Configure & run": page_run,
            "Results": page_results,
            "Layers": page_layers,
            "History": page_history,
        }[page](uri)
    except AdvisorError as error:
        st.error(error.render())


if __name__ == "__main__":  # run as the script by `streamlit run` (advisor ui)
    main()
