"""The run form is generated from the settings schema: each widget's key, label, default and choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from advisor.app import _form as form
from advisor.backends import BACKENDS
from advisor.embeddings import POOLINGS, embedding_choices
from advisor.errors import ConfigError
from advisor.grid import profiles
from advisor.settings import FORM_LABELS, SETTINGS, default_of, setting
from advisor.validate import choices_of
from advisor.vocabulary import task_choices
from tests.helpers import NewStore


class Recorder:
    """A stand-in Streamlit container: records each widget call and answers with a set value or the default."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.answers = answers or {}

    def __getattr__(self, widget: str) -> Any:
        def draw(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((widget, args, kwargs))
            if kwargs["key"] in self.answers:
                return self.answers[kwargs["key"]]
            if widget in ("selectbox", "radio"):
                return args[1][kwargs["index"]]
            return kwargs["default"] if widget == "multiselect" else args[-1]

        return draw


def test_every_form_label_names_a_setting_and_only_those_have_one():
    names = {s.name for s in SETTINGS}
    assert set(FORM_LABELS) <= names
    assert {s.name for s in SETTINGS if s.label} == set(FORM_LABELS)


def test_choices_come_from_the_registries():
    assert choices_of("embeddings") == embedding_choices()
    assert choices_of("profile") == profiles.names()
    assert choices_of("task") == task_choices()
    assert choices_of("pooling") == list(POOLINGS)
    assert choices_of("backend") == list(BACKENDS)
    assert choices_of("layer") is None


def test_widgets_take_key_label_default_and_choices_from_the_schema():
    box = Recorder()
    assert form.choice(box, "pooling") == default_of("pooling")
    assert form.multichoice(box, "embeddings") == default_of("embeddings")
    assert form.text(box, "layer", tooltip=True) == default_of("layer")
    assert form.text(box, "static") == ""
    (_, pool_args, pool_kw), (_, emb_args, _), (_, layer_args, layer_kw), _ = box.calls
    assert pool_args == (setting("pooling").label, list(POOLINGS)) and pool_kw["key"] == "pooling"
    assert emb_args == (setting("embeddings").label, embedding_choices())
    assert layer_args == (setting("layer").label, "mix")
    assert layer_kw == {"key": "layer", "help": setting("layer").help}
    assert "help" not in box.calls[3][2]  # a tooltip only where asked for


def test_choice_preselects_the_given_default_and_radio_on_request():
    box = Recorder()
    assert form.choice(box, "profile", default="thorough") == "thorough"
    assert form.choice(box, "backend", radio=True, horizontal=True) == "local"
    assert [c[0] for c in box.calls] == ["selectbox", "radio"]
    assert box.calls[1][2] == {"index": 0, "key": "backend", "horizontal": True}


def test_number_fields_read_as_the_setting_kind_and_name_it_in_errors():
    box = Recorder({"sizes": "64, 128", "fractions": "0.5,1", "seeds": 0})
    assert form.number_list(box, "sizes", "100,200,400") == [64, 128]
    assert form.number_list(box, "fractions", "0.25,0.5,1") == [0.5, 1.0]
    assert form.count(box, "seeds", 0, 20) is None  # 0: the profile's
    assert form.count(Recorder({"seeds": 3}), "seeds", 0, 20) == 3
    with pytest.raises(ConfigError, match="as sizes"):
        form.number_list(Recorder({"sizes": "64,lots"}), "sizes", "100")


def test_blank_text_is_the_settings_default_and_unknown_fields_are_refused():
    assert form.or_default("experiment", "") == default_of("experiment")
    assert form.or_default("contextual", "") is None and form.or_default("static", "g.txt") == "g.txt"
    with pytest.raises(KeyError, match="no form label"):
        form.text(Recorder(), "workers")
    with pytest.raises(KeyError, match="no registry"):
        form.choice(Recorder(), "layer")


@pytest.fixture
def run_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_store: NewStore) -> AppTest:
    """The app on its Configure & run page with the bundled demo data, in its own store."""
    monkeypatch.setenv("ADVISOR_TRACKING_URI", new_store(tmp_path))
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "uploads"))
    at = AppTest.from_string("from advisor.app.page import main\nmain()", default_timeout=120).run()
    at.radio(key="source").set_value("Bundled demo data").run()
    at.sidebar.radio(key="page").set_value("Configure & run").run()
    return at


def test_the_page_draws_every_form_setting_with_its_schema_label(run_page: AppTest):
    at = run_page
    at.radio(key="grid").set_value("sizes").run()
    assert not at.exception and not at.error
    shown = {
        w.key: w.label
        for kind in ("selectbox", "multiselect", "radio", "text_input", "number_input")
        for w in getattr(at, kind)
    }
    for name, label in FORM_LABELS.items():
        # fractions: drawn instead of sizes when the grid is set by fractions; pair_encoding: for pairs only
        if name not in ("fractions", "pair_encoding"):
            assert shown[name] == label, name
    assert "pair_encoding" not in shown  # refused for other tasks: the form does not offer it


def test_the_pair_demo_offers_the_pair_encoding_and_passes_a_changed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_store: NewStore
):
    monkeypatch.setenv("ADVISOR_TRACKING_URI", new_store(tmp_path))
    monkeypatch.setenv("ADVISOR_UPLOAD_DIR", str(tmp_path / "uploads"))
    at = AppTest.from_string("from advisor.app.page import main\nmain()", default_timeout=120).run()
    at.radio(key="source").set_value("Bundled demo data").run()
    at.selectbox(key="demo_task").set_value("pair").run()
    at.sidebar.radio(key="page").set_value("Configure & run").run()
    assert not at.exception and not at.error
    encoding = at.radio(key="pair_encoding")
    assert encoding.label == FORM_LABELS["pair_encoding"] and encoding.value == "joint"
    assert "--task pair" in at.code[0].value and "--pair-encoding" not in at.code[0].value
    encoding.set_value("separate").run()
    assert "--pair-encoding separate" in at.code[0].value


def test_a_blank_layer_means_the_default_and_a_bad_one_is_said_on_the_form(run_page: AppTest):
    at = run_page
    at.text_input(key="layer").set_value("").run()
    assert not at.exception and not at.error
    assert "--layer ''" not in at.code[0].value and "--layer mix" in at.code[0].value
    at.text_input(key="layer").set_value("mean-last-99").run()
    assert not at.exception and "[E231]" in at.error[0].value
    assert not any(b.key == "run" for b in at.button)  # no command, no Run button for a bad layer
    assert not any("mean-last-99" in c.value for c in at.code)


def test_an_amount_is_blank_until_stated_and_takes_the_schema_label():
    box = Recorder()
    assert form.amount(box, "label_cost") is None  # blank: not stated, the verdict's default
    ((widget, args, kwargs),) = box.calls
    assert widget == "number_input" and args == (setting("label_cost").label, 0.0, None, None)
    assert kwargs == {"key": "label_cost", "help": setting("label_cost").help}
    assert form.amount(Recorder({"acceptable_loss": 0.02}), "acceptable_loss", 0.99) == 0.02


def test_the_decision_fields_go_into_the_command_and_a_bad_mix_is_said(run_page: AppTest):
    at = run_page
    at.number_input(key="latency_budget_ms").set_value(10.0).run()
    at.radio(key="latency_batch").set_value(64).run()
    at.number_input(key="price_per_hour").set_value(2.0).run()
    assert not at.exception and not at.error
    command = at.code[0].value
    assert "--latency-budget-ms 10.0" in command and "--latency-batch 64" in command
    assert "--price-per-hour 2.0" in command and "--value-per-point" not in command
    at.number_input(key="price_per_hour").set_value(None).run()
    at.number_input(key="value_per_point").set_value(5.0).run()
    assert not at.exception and "[E604]" in at.error[0].value
    assert not any(b.key == "run" for b in at.button)  # said on the form, before Run


def test_the_app_runs_until_decided_unless_told_complete(run_page: AppTest):
    at = run_page
    assert at.radio(key="until").value == "decided"  # the app answers as soon as the evidence allows
    assert "--until decided" in at.code[0].value
    at.radio(key="until").set_value("complete").run()
    assert not at.exception and not at.error
    assert "--until decided" not in at.code[0].value  # the whole grid: the CLI's default
