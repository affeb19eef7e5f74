from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from trainers import TrainConfig
from trainers import _errors as trainer_codes
from trainers._errors import CATALOG, T101, T204, ConfigError, InputError, define, define_in

ROOT = Path(__file__).resolve().parents[2]


def literal_codes(package: str) -> list[tuple[str, str]]:
    """(code, where) of every ``code="..."`` still written at a call site in ``package``."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                        found.append((str(keyword.value.value), f"{path.relative_to(ROOT)}:{node.lineno}"))
    return found


def test_the_catalog_keeps_to_its_prefix():  # beside advisor's: tests/advisor/test_two_error_catalogs.py
    assert CATALOG
    assert all(re.fullmatch(r"T\d{3}", code) for code in CATALOG)


def test_every_code_used_in_trainers_is_in_its_catalog_and_none_in_advisors():
    literals = literal_codes("trainers")
    foreign = [f"{code} at {where}" for code, where in literals if code not in CATALOG]
    assert not foreign, foreign


def test_a_code_of_the_other_catalog_or_one_defined_twice_is_refused():
    with pytest.raises(ValueError, match="not T followed by digits"):
        define("E211", "an advisor code in the trainers catalog")
    with pytest.raises(ValueError, match="T101 is defined twice"):
        define("T101", "something else")
    with pytest.raises(ValueError, match="kind must be"):
        define_in({}, "T", "T999", "x", None, "warning")


def test_each_trainers_code_is_written_once_under_its_own_name():
    source = Path(trainer_codes.__file__).read_text(encoding="utf-8")
    definitions = re.findall(r'^(T\d{3}) = define\(\s*"(T\d{3})"', source, flags=re.M)
    assert len(definitions) == len(CATALOG)
    assert all(name == code for name, code in definitions)


def test_bad_training_settings_keep_their_messages_under_trainers_codes():
    with pytest.raises(ConfigError) as unknown:
        TrainConfig(classifier="svm")  # type: ignore[arg-type]
    assert str(unknown.value) == "[T101] unknown classifier 'svm'\n  hint: choose one of: cnn, bilstm"
    cases = {
        "[T102] hidden must be at least 1, got 0": {"hidden": 0},
        "[T102] patience must be at least 1, got 0": {"patience": 0},
        "[T102] min_steps must lie in [0, max_steps], got 50": {"max_steps": 40, "min_steps": 50},
        "[T102] lr must be positive, got 0.0": {"lr": 0.0},
        "[T102] dropout must be in [0, 1), got 1.0": {"dropout": 1.0},
    }
    for text, bad in cases.items():
        with pytest.raises(ConfigError) as error:
            TrainConfig(**bad)
        assert str(error.value) == text


def test_an_input_entry_locates_the_file_line():
    error = T204(name="train", i=3, n_tokens=5, n_rows=4, file="train.conll", line=12)
    assert isinstance(error, InputError) and error.code == "T204"
    assert str(error).startswith("train.conll:12: train item 3 has 5 tokens but 4 feature rows [T204]")
    assert isinstance(T101(classifier="x", choices="cnn"), ConfigError)
