"""The Data page: upload a labelled file (or pick the demo data), choose its task, read it as a run would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from advisor.app import (
    demo_datasets,
    detect_task,
    max_upload_mb,
    preview_dataset,
    store_upload,
    summary_rows,
    upload_root,
)
from advisor.app._columns import column_choices
from advisor.app._session import set_dataset, state
from advisor.data import TASKS
from advisor.errors import AdvisorError


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
        set_dataset(None)
        st.info("Upload a labelled file, or pick the bundled demo data.")
        return None
    try:
        train = _store(uploaded, uri)
        dev = _store(dev_file, uri) if dev_file is not None else None
        test = _store(test_file, uri) if test_file is not None else None
    except AdvisorError as error:
        set_dataset(None)
        st.error(error.render())
        return None
    task, columns = _task_and_columns(uploaded.file_id, train.path)
    if columns is None:
        set_dataset(None)
        st.info("Choose the text and the label column above.")
        return None
    text_col, label_col = columns
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


def _task_and_columns(file_id: str, path: Path) -> tuple[str, tuple[str | None, str | None] | None]:
    """The task (detected, changeable) and, for tabular classification and pair files, the text and label columns
    (``--text-col`` / ``--label-col``; None: not chosen yet).

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
    choices = column_choices(path, task)
    if choices is None:
        return task, (None, None)
    if not choices.header:
        st.caption("No header row: the first line reads as data, so columns are numbered from 0.")
    cols = st.columns(len(choices.roles))
    picked = [
        col.selectbox(
            f"{role.capitalize()} column",
            choices.options,
            index=choices.index(role),
            format_func=choices.labels.get,
            placeholder=f"choose the {role} column",
            key=f"{role.replace(' ', '_')}_col_{file_id}",
        )
        for col, role in zip(cols, choices.roles, strict=True)
    ]
    if any(p is None for p in picked):
        return task, None
    return task, choices.as_options(*picked)


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
        set_dataset(None)
        return
    for warning in preview.warnings:
        st.warning(_as_named(warning, named))
    set_dataset(dataset)
    st.success(f"Ready: {dataset['label']} as a {dataset['task']} dataset. Next: Configure & run.")
    st.subheader("Summary")
    st.caption("The same summary `advisor inspect` prints.")
    st.table(summary_rows(preview.summary).set_index("property"))
    st.subheader("First items")
    st.dataframe(preview.preview, hide_index=True, width="stretch", placeholder="–")
