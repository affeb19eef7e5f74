"""The Configure & run page: the run form, the ``advisor run`` command it makes, and the running job's monitor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from advisor.app import _form as form
from advisor.app import display_command, live_progress, run_command, start_run
from advisor.app._page_results import show_verdict
from advisor.app._session import POLL_SECONDS, state, tracking_uri
from advisor.backends import check_backend
from advisor.errors import AdvisorError
from advisor.grid import DEFAULT_APP_PROFILE, profiles
from advisor.pipeline import check_budget, expected_duration_text
from advisor.settings import RunSettings
from advisor.tracking import load_analysis
from advisor.validate import check_embeddings, check_layer, encoder_layers
from advisor.verdict import check_decision_inputs

#: What the app's form preselects for ``--until`` (issue 31: the CLI default stays ``complete``).
APP_UNTIL = "decided"


def _settings(dataset: dict[str, Any], uri: str) -> RunSettings:
    """The run's settings from the form; bad values raise ConfigError (shown, not thrown).

    Widgets are drawn in this order (a bad value stops the form where it is read): profile,
    embeddings, until and the time budget, the grid row, Compute, Models.
    """
    values: dict[str, Any] = {
        "profile": form.choice(st, "profile", default=DEFAULT_APP_PROFILE, format_func=_profile_text),
        "embeddings": form.multichoice(st, "embeddings"),
        # the app answers as soon as the evidence allows; the CLI's default stays the whole grid
        "until": form.choice(st, "until", default=APP_UNTIL, radio=True, horizontal=True),
        "budget": form.or_default("budget", form.text(st, "budget", tooltip=True).strip()),
    }
    check_budget(values["budget"])  # a bad budget is said on the form, before Run
    values.update(_grid())
    values["backend"], values["ray_address"] = _backend()
    values.update(_models(dataset["task"]))
    values.update(_decision())
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


def _models(task: str) -> dict[str, Any]:
    """The encoder, its layers and pooling (and for pairs how the two texts enter it), the static vectors
    and the MLflow experiment (blank: default)."""
    pair: dict[str, Any] = {}
    with st.expander("Models"):
        contextual = form.text(st, "contextual")
        mcols = st.columns(2)
        layer = form.text(mcols[0], "layer", tooltip=True)
        pooling = form.choice(mcols[1], "pooling")
        if task == "pair":  # the option is refused for other tasks: it would change nothing
            pair["pair_encoding"] = form.choice(st, "pair_encoding", radio=True, horizontal=True)
        static = form.text(st, "static")
        experiment = form.text(st, "experiment")
    contextual, layer = form.or_default("contextual", contextual), form.or_default("layer", layer.strip())
    check_layer(layer, encoder_layers(contextual))  # a bad layer is said on the form, before Run
    return {
        "contextual": contextual,
        "layer": layer,
        "pooling": pooling,
        **pair,
        "static": form.or_default("static", static),
        "experiment": form.or_default("experiment", experiment),
    }


def _decision() -> dict[str, Any]:
    """What the verdict weighs accuracy against: the loss you accept, a latency budget, volume and prices."""
    with st.expander("Decision: acceptable loss, latency budget, serving volume and prices"):
        cols = st.columns(3)
        values = {
            "acceptable_loss": form.amount(cols[0], "acceptable_loss", 0.99, step=0.005, format="%.3f"),
            "latency_budget_ms": form.amount(cols[1], "latency_budget_ms", step=1.0),
            "latency_batch": form.choice(cols[2], "latency_batch", radio=True, horizontal=True),
            "monthly_items": form.amount(cols[0], "monthly_items", step=1e6, format="%.0f"),
            "price_per_hour": form.amount(cols[1], "price_per_hour", step=0.5),
            "value_per_point": form.amount(cols[2], "value_per_point", step=1.0),
            "label_cost": form.amount(cols[0], "label_cost", step=0.1),
        }
    check_decision_inputs(values, complete=True)  # e.g. a value per point without a price: said on the form
    return values


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
            st.code(display_command(command), language="bash", wrap_lines=True)
            with st.spinner(
                "Estimating the duration (the first time on this machine: timing a sample, seconds)…"
            ):
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
        st.code(display_command(ss.job.command), language="bash", wrap_lines=True)
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
            st.success("Finished: the verdict is below; the Results page has the reasons, costs and items.")
        else:
            st.error(f"`advisor run` exited with status {code}: see the log below.")
        if ss.get("monitor_was_running"):
            ss.monitor_was_running = False
            st.rerun(scope="app")  # the run ended: redraw the page once, without the polling fragment
        if run_id and (code == 0 or job.stop_requested):
            _ended_verdict(run_id)
    else:
        ss.monitor_was_running = True
    st.caption(f"log: {job.log_path}")
    st.code(job.log_tail(25) or "(no output yet)", language="text", wrap_lines=True)


def _ended_verdict(run_id: str) -> None:
    """The ended run's verdict, the very block the Results page shows, and a button to that page."""
    show_verdict(run_id, tracking_uri())
    if st.button("Open the Results page", key="open_results", on_click=_to_results, args=(run_id,)):
        st.rerun(scope="app")  # the page picker lives outside this fragment


def _to_results(run_id: str) -> None:
    """Before the rerun: the page picker on Results, showing this run."""
    st.session_state["page"] = "Results"
    st.query_params["run"] = run_id
