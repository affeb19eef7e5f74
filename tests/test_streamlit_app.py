"""The Streamlit app through ``streamlit.testing.v1.AppTest``: upload (good, malformed, too big, demo),
configuration from the registries, the recommendation view and the history over a stored analysis."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from advisor.app import start_run
from advisor.embeddings import embedding_choices
from advisor.grid import profiles
from advisor.report import partial_notice
from advisor.tracking import load_analysis
from advisor.verdict import recommend
from tests.helpers import NewStore, headerless_questions

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")
CONLL = "\n\n".join(f"John\tB-PER\nlives\tO\nin\tO\nParis{i}\tB-LOC" for i in range(30)).encode() + b"\n"


@pytest.fixture()
def app(app_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("ADVISOR_TRACKING_URI", app_store.uri)
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "uploads"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def _task_box(at: AppTest):
    """The task selectbox of the current upload (its key carries the upload's id)."""
    return next(box for box in at.selectbox if box.label.startswith("Task"))


def _page(at: AppTest, name: str) -> AppTest:
    at.sidebar.radio(key="page").set_value(name).run()
    assert not at.exception, at.exception
    return at


def test_upload_a_valid_file_shows_summary_and_preview(app: AppTest, tmp_path: Path) -> None:
    app.file_uploader(key="upload_train").upload("../my train.conll", CONLL).run()
    assert not app.exception and not app.error
    assert _task_box(app).value == "ner"
    assert "detected: ner" in _task_box(app).label
    summary = app.table[0].value
    assert summary.loc["sentences", "value"] == "30" and summary.loc["task", "value"] == "ner"
    assert len(app.dataframe[0].value) == 20 and "[John]PER" in app.dataframe[0].value["tokens"][0]
    stored = list((tmp_path / "uploads").glob("*/*"))
    assert [p.name for p in stored] == ["my train.conll"] and stored[0].read_bytes() == CONLL
    dataset = app.session_state["dataset"]
    assert dataset["task"] == "ner" and dataset["data"] == str(stored[0])


def test_malformed_upload_shows_the_error_text_not_a_traceback(app: AppTest) -> None:
    bad = b"John\tB-PER\nlives\tO\n\nMary\tB-PER\tEXTRA\n"
    app.file_uploader(key="upload_train").upload("bad.conll", bad).run()
    assert not app.exception
    assert len(app.error) == 1
    text = app.error[0].value
    assert "bad.conll:4:" in text and "[E1" in text
    assert app.session_state["dataset"] is None and not app.dataframe and not app.table


def test_malformed_then_good_upload_of_another_task_uses_the_new_files_reader(app: AppTest) -> None:
    bad = b"John\tB-PER\nlives\tO\n\nMary\tB-PER\tEXTRA\n"
    app.file_uploader(key="upload_train").upload("bad.conll", bad).run()
    assert len(app.error) == 1 and "bad.conll:4:" in app.error[0].value
    assert "/" not in app.error[0].value.split(":")[0]  # named as uploaded, not by its stored path
    trec = "".join(
        f"{label} {text} ?\n"
        for label, text in [("DESC:manner", "How did it start"), ("LOC:city", "Where is Paris")] * 20
    )
    app.file_uploader(key="upload_train").upload("TREC.train.all", trec.encode()).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert _task_box(app).value == "classify" and "detected: classify" in _task_box(app).label
    rows = app.table[0].value["value"]
    assert rows["task"] == "classify" and rows["source"] == "TREC.train.all"
    assert app.session_state["dataset"]["task"] == "classify"


def _column_box(at: AppTest, role: str):
    """The text or label column selectbox of the current upload (its key carries the upload's id)."""
    return next(box for box in at.selectbox if box.label == f"{role} column")


def test_a_headerless_upload_offers_its_columns_instead_of_a_cli_hint(app: AppTest) -> None:
    rows = headerless_questions(60)
    body = "".join(f"{text}\t{label}\n" for text, label in rows).encode()
    app.file_uploader(key="upload_train").upload("questions.tsv", body).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    text_box, label_box = _column_box(app, "Text"), _column_box(app, "Label")
    assert text_box.options[0].startswith("column 0: 'What does the word river mean ?'")
    assert label_box.value == "1" and label_box.options == [
        "column 0: " + text_box.options[0][10:],
        "column 1: '0', '1', '2'",
    ]
    summary = app.table[0].value["value"]
    assert summary["items"] == "60" and summary["labels"].startswith("6: ")
    dataset = app.session_state["dataset"]
    assert (dataset["text_col"], dataset["label_col"]) == (None, None)  # the reader's own choice
    assert any("no header" in w.value for w in app.warning)


def test_a_column_the_reader_cannot_tell_is_chosen_on_the_page(app: AppTest) -> None:
    body = b"sentence,polarity\n" + b"a long and dull film,neg\nwarm and funny,pos\n" * 10
    app.file_uploader(key="upload_train").upload("reviews.csv", body).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert _column_box(app, "Label").value is None and app.session_state["dataset"] is None
    assert any("Choose the text and the label column" in i.value for i in app.info)
    _column_box(app, "Label").set_value("polarity").run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert app.session_state["dataset"]["label_col"] == "polarity"
    assert app.table[0].value["value"]["labels"].startswith("2: ")


def test_oversized_upload_is_refused(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_MAX_UPLOAD_MB", "1")
    app = AppTest.from_file(APP, default_timeout=120).run()  # the cap is read when the page is built
    assert app.file_uploader(key="upload_train").proto.max_upload_size_mb == 1
    app.file_uploader(key="upload_train").upload("big.csv", b"text,label\n" + b"x,a\n" * 300_000).run()
    assert (
        not app.exception and "over the 1 MB limit" in app.error[0].value and "[E150]" in app.error[0].value
    )


def test_demo_data_and_classification_task(app: AppTest) -> None:
    app.radio(key="source").set_value("Bundled demo data").run()
    app.selectbox(key="demo_task").set_value("classify").run()
    assert not app.exception and not app.error
    rows = app.table[0].value["value"]
    assert rows["task"] == "classify" and rows["splits"].startswith("train 600, dev 150, test 200")
    assert list(app.dataframe[0].value.columns) == ["line", "text", "label"]


def test_configuration_lists_registry_choices_and_builds_the_command(app: AppTest) -> None:
    app.radio(key="source").set_value("Bundled demo data").run()
    _page(app, "Configure & run")
    assert app.selectbox(key="profile").options[0].startswith(profiles.names()[0])
    assert len(app.selectbox(key="profile").options) == len(profiles.names())
    assert app.multiselect(key="embeddings").options == embedding_choices()
    app.multiselect(key="embeddings").set_value(["static", "contextual"])
    app.radio(key="grid").set_value("sizes").run()
    app.text_input(key="sizes").set_value("64,128").run()
    command = app.code[0].value
    session = app.session_state["session_id"]
    assert command.startswith("advisor run ") and "--task ner" in command
    assert "--sizes 64,128" in command and "--embeddings static,contextual" in command
    assert f"--tag app.session={session}" in command and "--profile default" in command
    app.text_input(key="sizes").set_value("64,lots").run()
    assert not app.exception and "cannot read '64,lots' as sizes" in app.error[0].value
    assert not app.code and not app.button  # no command and no Run button for bad settings
    app.text_input(key="sizes").set_value("64,128")
    app.multiselect(key="embeddings").set_value([]).run()  # settings check nothing: the form does
    assert not app.exception and "(none given)" in app.error[0].value and not app.code


def test_the_run_form_passes_the_backend_and_the_ray_address_on(app: AppTest) -> None:
    app.radio(key="source").set_value("Bundled demo data").run()
    _page(app, "Configure & run")
    assert "--backend" not in app.code[0].value  # local: the default, not spelled out
    assert app.text_input(key="ray_address").disabled
    app.radio(key="backend").set_value("ray").run()
    app.text_input(key="ray_address").set_value("ray://head:10001").run()
    assert not app.exception and not app.error
    assert "--backend ray --ray-address ray://head:10001" in app.code[0].value


def test_run_page_asks_for_data_first(app: AppTest) -> None:
    _page(app, "Configure & run")
    assert "Choose a dataset on the Data page first." in [i.value for i in app.info]


def test_recommendation_view_shows_the_verdict_of_recommend(app: AppTest, app_store) -> None:
    _page(app, "Results")
    assert app.selectbox(key="result_run").value == app_store.finished  # newest first
    rec = recommend(load_analysis(app_store.finished, app_store.uri))
    assert app.success[0].value == f"**Verdict: {rec.verdict.upper()}**\n\n{rec.headline}"
    assert not any("Partial result" in w.value for w in app.warning)
    reasons = app.markdown[1].value if len(app.markdown) > 1 else ""
    shown = "\n".join(m.value for m in app.markdown)
    assert all(reason in shown for reason in rec.reasons), reasons
    assert [w.value for w in app.warning] == rec.caveats
    subheaders = [s.value for s in app.subheader]
    for title in (
        "Learning curves",
        "Data efficiency",
        "Costs",
        "Difficulty slices: where the gap comes from",
    ):
        assert title in subheaders
    items = app.dataframe[-1].value
    assert {"right_random", "right_static", "right_contextual", "right_by", "ner_unseen"} <= set(
        items.columns
    )
    # NER rows show their sentence: tokens with the gold entities bracketed, not tags alone.
    first = items.iloc[0]
    assert f"[{first['text']}]{first['gold']}" in first["sentence"]
    n_all = len(items)
    app.selectbox(key="item_right_contextual").set_value("wrong").run()
    wrong = app.dataframe[-1].value
    assert 0 < len(wrong) < n_all and (wrong["right_contextual"] <= 0.5).all()


def test_results_of_a_run_in_flight(app: AppTest, app_store) -> None:
    _page(app, "Results")
    app.selectbox(key="result_run").set_value(app_store.partial).run()
    assert not app.exception and not app.success  # never the green final style for a partial run
    assert app.warning[0].value.startswith(f"**{partial_notice('RUNNING')}**")
    assert "(partial: run still running)" in app.warning[0].value
    assert any("the run's status is RUNNING" in w.value for w in app.warning)


def test_history_compares_runs_side_by_side(app: AppTest, app_store) -> None:
    _page(app, "History")
    table = app.dataframe[0].value
    # the table shows the first 8 characters of each id, as the compare labels do: the columns fit
    assert list(table["run_id"]) == [app_store.finished[:8], app_store.partial[:8]]
    assert list(table["verdict"]) == ["use contextual", "not judged yet (partial: run still running)"]
    assert app.multiselect(key="compare").value == [app_store.finished, app_store.partial]
    assert app.code[0].value == f"mlflow ui --backend-store-uri {app_store.uri}"
    links = "\n".join(m.value for m in app.markdown)
    assert "compare-runs?runs=" in links and app_store.finished in links
    assert "**USE CONTEXTUAL**" in links and "**INCONCLUSIVE**" not in links
    partial = [w.value for w in app.warning if "Partial result" in w.value]
    assert len(partial) == 1 and partial[0].startswith(f"**{partial_notice('RUNNING')}**")
    assert "Verdict so far: INCONCLUSIVE (partial: run still running)" in partial[0]


def _fake_run(run_id: str) -> str:
    """A stand-in ``advisor run``: writes a plan and a cell event to its progress file, then waits."""
    return (
        "import os, time\n"
        "from advisor.grid import Cell\n"
        "from advisor.progress import PROGRESS_FILE_ENV, ProgressFile\n"
        "from advisor.runner import ProgressEvent\n"
        "sink = ProgressFile(os.environ[PROGRESS_FILE_ENV], min_interval=0)\n"
        f"sink(ProgressEvent('plan', done=4, total=27, message='23 cells to compute', run_id='{run_id}'))\n"
        "sink(ProgressEvent('cell', done=5, total=27, cell=Cell('static', 16, 0), score=0.5, seconds=1.0, eta=600.0))\n"
        "print('grid: 27 cells, 4 already finished', flush=True)\n"
        "time.sleep(120)\n"
    )


def test_run_monitor_shows_staged_progress_log_and_stop_after_a_refresh(
    app: AppTest, app_store, tmp_path: Path
) -> None:
    job = start_run([sys.executable, "-c", _fake_run(app_store.partial)], tmp_path / "run.log", "page-1")
    try:
        deadline = time.time() + 60
        while "grid: 27 cells" not in job.log_tail() and time.time() < deadline:
            time.sleep(0.2)
        # A refreshed page: a new browser session with the same ?session= finds the job and its Stop.
        page = AppTest.from_file(APP, default_timeout=120)
        page.query_params["session"] = "page-1"
        page.query_params["page"] = "Configure & run"
        page.run()
        assert not page.exception and page.session_state["job"] is job
        progress = page.get("progress")[0]
        assert progress.proto.text.startswith("training cells [5/27] static")
        assert "of training left" in progress.proto.text  # the runner's training ETA, counted down
        assert page.session_state["job_run_id"] == app_store.partial
        assert "grid: 27 cells, 4 already finished" in page.code[-1].value
        page.button(key="stop").click().run()
        assert not page.exception and not job.running and job.returncode == -15  # SIGTERM, no handler
        assert any(w.value.startswith("Stopped (exit -15)") for w in page.warning)
        assert "stop" not in [b.key for b in page.button]
    finally:
        if job.running:
            job.process.kill()


@pytest.fixture()
def layers_app(layer_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("ADVISOR_TRACKING_URI", layer_store.uri)
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "uploads"))
    return AppTest.from_file(APP, default_timeout=120)


def _frame_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_results_show_each_cells_mix_weights_and_the_contextuality_table(
    layers_app: AppTest, layer_store
) -> None:
    from tests.advisor.app.layer_store import CONTEXTUALITY, planted_weights

    layers_app.query_params["page"] = "Results"
    layers_app.query_params["run"] = layer_store.analysis
    layers_app.run()
    assert not layers_app.exception, layers_app.exception
    assert any(s.value.startswith("Encoder layers") for s in layers_app.subheader)
    weights = _frame_with(layers_app, "top layer")
    assert len(weights) == 9 and list(weights["top layer"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2]  # by size
    first = weights.iloc[0]
    assert [round(first[f"layer {i}"], 6) for i in range(3)] == [round(w, 6) for w in planted_weights(16, 0)]
    context = _frame_with(layers_app, "MEV − baseline")
    assert list(context["MEV − baseline"]) == list(CONTEXTUALITY["mev_adjusted"])
    assert list(context["words with MEV > 0.5"]) == list(CONTEXTUALITY["static_share"])
    assert any("8 words occurring ≥ 5 times" in c.value for c in layers_app.caption)
    assert {"Mix-weight figure", "Contextuality figure"} <= {e.label for e in layers_app.expander}


def test_layers_page_shows_dev_score_by_layer_next_to_the_scalar_mix(
    layers_app: AppTest, layer_store
) -> None:
    layers_app.query_params["page"] = "Layers"
    layers_app.run()
    assert not layers_app.exception, layers_app.exception
    assert layers_app.selectbox(key="sweep_run").value == layer_store.sweep
    summary = "\n".join(m.value for m in layers_app.markdown)
    assert "Best single layer: **1** (dev 71.0); scalar mix: **70.0** (-1.0 vs the best layer)." in summary
    table = _frame_with(layers_app, "dev − mix").set_index("layer")
    assert list(table.index) == ["0", "1", "2", "scalar mix"]
    assert [round(v, 6) for v in table["dev − mix"][:3]] == [-19.0, 1.0, -9.0]
    assert len(_frame_with(layers_app, "mean mix weight")) == 3
    assert any("Choose a dataset" in i.value for i in layers_app.info)  # no dataset: no launcher


def test_layers_page_launches_advisor_layers_on_the_dataset_and_stops_it(layers_app: AppTest) -> None:
    layers_app.run()
    layers_app.radio(key="source").set_value("Bundled demo data").run()
    layers_app.selectbox(key="demo_task").set_value("classify").run()
    _page(layers_app, "Layers")
    command = next(c.value for c in layers_app.code if c.value.startswith("advisor layers"))
    assert "classify_train.csv --task classify --dev " in command and "--seeds 2" in command
    assert "--pair-encoding" not in command  # single texts: no pair encoding offered or passed
    assert not [r for r in layers_app.radio if r.key == "layers_pair_encoding"]
    layers_app.button(key="run_layers").click().run()
    assert not layers_app.exception, layers_app.exception
    from advisor.app import job_for

    job = job_for(f"{layers_app.session_state['session_id']}/layers")
    assert job is not None and job.running and job.command[3:5] == ["layers", command.split()[2]]
    try:
        layers_app.button(key="stop_layers").click().run()
        assert not layers_app.exception, layers_app.exception
        assert not job.running and job.stop_requested
        assert any(w.value.startswith("Layer sweep stopped") for w in layers_app.warning)
    finally:
        if job.running:
            job.process.kill()


def test_layers_page_offers_the_pair_encoding_for_pair_data_only(layers_app: AppTest) -> None:
    layers_app.run()
    layers_app.radio(key="source").set_value("Bundled demo data").run()
    layers_app.selectbox(key="demo_task").set_value("pair").run()
    _page(layers_app, "Layers")
    assert not layers_app.exception, layers_app.exception
    layers_app.radio(key="layers_pair_encoding").set_value("separate").run()
    command = next(c.value for c in layers_app.code if c.value.startswith("advisor layers"))
    assert "--task pair" in command and "--pair-encoding separate" in command


@pytest.mark.slow
def test_a_layer_sweep_launched_from_the_page_is_listed_when_it_ends(
    app: AppTest, tiny_bert_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, new_store: NewStore
) -> None:
    """End to end: `advisor layers` started by the page (tiny encoder, 32 items, 1 seed) logs a sweep it then shows."""
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ADVISOR_TRACKING_URI", new_store(tmp_path, "sweeps.db"))  # not the shared store
    app.radio(key="source").set_value("Bundled demo data").run()
    app.selectbox(key="demo_task").set_value("classify").run()
    _page(app, "Layers")
    app.text_input(key="layers_contextual").set_value(str(tiny_bert_dir))
    app.number_input(key="layers_seeds").set_value(1)
    app.number_input(key="layers_size").set_value(32)
    app.selectbox(key="layers_profile").set_value("quick").run()
    app.button(key="run_layers").click().run()
    from advisor.app import job_for

    job = job_for(f"{app.session_state['session_id']}/layers")
    assert job is not None
    assert job.process.wait(timeout=600) == 0, job.log_tail(40)
    app.run()
    assert not app.exception, app.exception
    assert any(s.value.startswith("Layer sweep finished") for s in app.success)
    sweep = _frame_with(app, "dev − mix").set_index("layer")
    assert list(sweep.index) == ["0", "1", "2", "scalar mix"]  # the tiny BERT: input embeddings + 2 layers
    assert f"{Path(str(tiny_bert_dir)).name} · dev accuracy × 100 at 32 training items, 1 seeds" in "\n".join(
        c.value for c in app.caption
    )
