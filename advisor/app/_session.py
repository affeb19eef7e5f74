"""What every page of the app shares: the tracking store it reads and the browser session's state.

Why a module of its own: each page (``_page_*``) reads the session's dataset and job, and the page
script (:mod:`advisor.app.page`) runs as ``__main__`` under ``streamlit run``, so the pages cannot
import it back.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import streamlit as st

from advisor.app import job_for, session_memory
from advisor.tracking import store_uri

#: Seconds between two redraws of a running job's monitor.
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


def set_dataset(dataset: dict[str, Any] | None) -> None:
    """The page's dataset, also kept by the server for this session (a refresh keeps it)."""
    ss = state()
    ss.dataset = session_memory(ss.session_id)["dataset"] = dataset


def store_exists(uri: str) -> bool:
    """A local sqlite store that was never written has nothing to show, and reading must not create it."""
    return not uri.startswith("sqlite:///") or Path(uri.removeprefix("sqlite:///")).is_file()
