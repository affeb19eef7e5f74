from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from advisor import _error_codes
from advisor._error_codes import CATALOG, E211, E533, VARIANTS, ErrorCode, define, variant
from advisor.errors import ConfigError, InputError

PACKAGE = Path(__file__).resolve().parents[2] / "advisor"

#: Units (``advisor.<part>``) that still write ``code="E..."`` at a call site, with the catalog entry to
#: raise instead. Strict xfails: the entry goes with the fix (issue 27 item 6).
KNOWN_INLINE: dict[str, str] = {}
_ENTRY_NAME = re.compile(r"E\d{3}(_[A-Z0-9_]+)?")
_CALL_KEYWORDS = {"hint", "file", "line"}  # ErrorCode.__call__'s own keywords


def _literal_codes(package: Path = PACKAGE) -> list[tuple[str, str, str]]:
    """(code, exception class, where) of every ``code="E..."`` written at a call site under ``package``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                    where = f"{path.relative_to(package.parent).as_posix()}:{node.lineno}"
                    found.append((str(keyword.value.value), ast.unparse(node.func), where))
    return found


def _unit(where: str) -> str:
    """``advisor/verdict/_x.py:12`` -> ``advisor.verdict``; ``advisor/finetune.py:3`` -> ``advisor.finetune``."""
    parts = where.split(":")[0].removesuffix(".py").split("/")
    return ".".join(parts[:2])


def _fields(text: str | None) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text or "") if name}


def _field_mismatches(package: Path = PACKAGE, entries: dict[str, ErrorCode] | None = None) -> list[str]:
    """Calls of a catalog entry (``E211(...)``, ``E101_READ(...)``) that miss a field of its template or
    hint, or pass one it does not have: the error would be a KeyError or lose words at raise time."""
    entries = entries if entries is not None else _entries()
    wrong = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            entry = entries.get(node.func.id)
            if entry is None or not _ENTRY_NAME.fullmatch(node.func.id) or node.args:
                continue
            given = {k.arg for k in node.keywords}
            if None in given:  # **fields: not checkable here
                continue
            needed = _fields(entry.template) | (set() if "hint" in given else _fields(entry.hint))
            if needed != given - _CALL_KEYWORDS:
                where = f"{path.relative_to(package.parent).as_posix()}:{node.lineno}"
                wrong.append(
                    f"{where} {node.func.id} needs {sorted(needed)}, got {sorted(given - _CALL_KEYWORDS)}"
                )
    return wrong


def _entries() -> dict[str, ErrorCode]:
    """The catalog module's entries and variants by their names."""
    return {name: value for name, value in vars(_error_codes).items() if isinstance(value, ErrorCode)}


def test_a_code_defined_twice_is_refused():
    with pytest.raises(ValueError, match="E211 is defined twice"):
        define("E211", "something else")


def test_each_code_is_written_once_in_the_catalog_under_its_own_name():
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted((PACKAGE / "_error_codes").glob("*.py")))
    definitions = re.findall(r'^(E\d{3}) = define\(\s*"(E\d{3})"', source, flags=re.M)
    codes = [code for _, code in definitions]
    assert len(codes) == len(set(codes)) == len(CATALOG)
    assert all(name == code for name, code in definitions)
    reserved = {"file", "line", "hint"}  # keywords of ErrorCode.__call__, not template fields
    fields = {f for e in [*CATALOG.values(), *VARIANTS] for f in _fields(e.template) | _fields(e.hint)}
    assert not fields & reserved


def test_no_call_site_writes_a_code():
    """Every error is raised from the catalog: ``E211(...)``, never ``ConfigError(..., code="E211")``."""
    found = [
        f"{code} ({cls}) at {where}"
        for code, cls, where in _literal_codes()
        if _unit(where) not in KNOWN_INLINE
    ]
    assert not found, found


@pytest.mark.parametrize(
    "unit",
    [
        pytest.param(u, marks=pytest.mark.xfail(strict=True, reason=r))
        for u, r in sorted(KNOWN_INLINE.items())
    ],
)
def test_units_still_writing_codes(unit: str):
    assert [w for _, _, w in _literal_codes() if _unit(w) == unit] == []


def test_the_inline_code_check_can_fail(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text(
        "def f(x):\n    if x:\n        raise E211(option='x', requirement='be 1')\n"
        "    raise ConfigError('x must be 1', code='E211')\n",
        encoding="utf-8",
    )
    assert _literal_codes(package) == [("E211", "ConfigError", "pkg/m.py:4")]


def test_every_catalog_call_passes_the_fields_of_its_template():
    assert not _field_mismatches()


def test_the_field_check_can_fail(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text(
        "E211(option='x', requirement='be 1')\nE211(option='x')\nE211(option='x', requirement='r', extra=1)\n"
        "E240(folder='f', hint='h')\nE240(hint='h')\n",
        encoding="utf-8",
    )
    assert _field_mismatches(package) == [
        "pkg/m.py:2 E211 needs ['option', 'requirement'], got ['option']",
        "pkg/m.py:3 E211 needs ['option', 'requirement'], got ['extra', 'option', 'requirement']",
        "pkg/m.py:5 E240 needs ['folder'], got []",
    ]


def test_variants_are_named_after_their_code_and_keep_its_kind():
    named = {name: entry for name, entry in _entries().items() if entry in VARIANTS}
    assert len(named) == len(VARIANTS) > 0
    assert all(name.startswith(entry.code + "_") for name, entry in named.items())
    assert all(entry.kind == CATALOG[entry.code].kind for entry in VARIANTS)
    assert len({(e.code, e.template) for e in VARIANTS}) == len(VARIANTS)  # no wording twice
    error = _error_codes.E101_READ(reason="disk gone", file="x.txt")
    assert isinstance(error, InputError) and error.code == "E101" and error.hint is None
    assert str(error) == "x.txt: cannot read the file: disk gone [E101]"
    with pytest.raises(ValueError, match="not a catalog entry"):
        variant(ErrorCode("E999", "not defined"), "another wording")


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
