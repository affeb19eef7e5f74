from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from advisor._error_codes import CATALOG, E211, E533, define
from advisor.errors import ConfigError, InputError

PACKAGE = Path(__file__).resolve().parents[2] / "advisor"


def _literal_codes() -> list[tuple[str, str, str]]:
    """(code, exception class, where) of every ``code="E..."`` still written at a call site."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                    where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                    found.append((str(keyword.value.value), ast.unparse(node.func), where))
    return found


def test_a_code_defined_twice_is_refused():
    with pytest.raises(ValueError, match="E211 is defined twice"):
        define("E211", "something else")


def test_each_code_is_written_once_in_the_catalog_under_its_own_name():
    source = (PACKAGE / "_error_codes.py").read_text(encoding="utf-8")
    definitions = re.findall(r'^(E\d{3}) = define\(\s*"(E\d{3})"', source, flags=re.M)
    codes = [code for _, code in definitions]
    assert len(codes) == len(set(codes)) == len(CATALOG)
    assert all(name == code for name, code in definitions)
    reserved = {"file", "line", "hint"}  # keywords of ErrorCode.__call__, not template fields
    fields = {f for e in CATALOG.values() for f in re.findall(r"{(\w+)", e.template + (e.hint or ""))}
    assert not fields & reserved


def test_every_code_used_in_the_package_is_in_the_catalog_with_its_kind():
    literals = _literal_codes()
    assert literals, "the scan found no call sites: is the package path right?"
    unknown = [f"{code} at {where}" for code, _, where in literals if code not in CATALOG]
    assert not unknown, unknown
    kinds = {"InputError": "input", "ConfigError": "config"}
    mismatched = [
        f"{code} ({cls}) at {where}"
        for code, cls, where in literals
        if cls in kinds and CATALOG[code].kind != kinds[cls]
    ]
    assert not mismatched, mismatched


def test_an_entry_builds_its_error_from_the_template_and_default_hint():
    error = E211(option="--seeds", requirement="be at least 1")
    assert isinstance(error, ConfigError) and error.code == "E211"
    assert str(error) == "[E211] --seeds must be at least 1"
    located = E533(key=("static", 8, 0), n=3, n_eval=4, file="test.conll", line=7, hint="predict all")
    assert isinstance(located, InputError) and located.line == 7 and located.hint == "predict all"
    assert "test.conll:7: predictions ('static', 8, 0) have 3 items" in str(located)


def test_the_colliding_codes_now_have_one_meaning_each():
    assert CATALOG["E212"].template == "option {name} must be true or false, got {value!r}"
    assert "tracking URI" in CATALOG["E220"].template and "word-vectors" in CATALOG["E123"].template
    assert CATALOG["E210"].template == "cannot read {text!r} as {what}"
    meanings = {CATALOG[c].template for c in ("E225", "E226", "E227", "E228", "E229", "E230")}
    assert len(meanings) == 6
