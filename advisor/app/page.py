"""The advisor app's page: upload data, configure and run an analysis, read the recommendation, compare runs.

It ships inside the package, so ``advisor ui`` works from an installed wheel: it runs this file
(``streamlit run <site-packages>/advisor/app/page.py -- --tracking-uri URI``); in a checkout,
``streamlit_app.py`` is a shim that calls :func:`main`. This file picks the page; each page is a
module of its own (``_page_data``, ``_page_run``, ``_page_results``, ``_page_layers``,
``_page_history``) and the session state they share is in ``_session``. Only display code lives in
them; reading files, the run subprocess, MLflow polling and the tables shown are in
:mod:`advisor.app`, and the verdict comes from :func:`advisor.verdict.recommend`, as in the CLI.
"""

from __future__ import annotations

import streamlit as st

from advisor.app import upload_root
from advisor.app._page_data import page_data
from advisor.app._page_history import page_history
from advisor.app._page_layers import page_layers
from advisor.app._page_results import page_results
from advisor.app._page_run import page_run
from advisor.app._session import state, tracking_uri
from advisor.errors import AdvisorError

PAGES = ("Data", "Configure & run", "Results", "Layers", "History")


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
