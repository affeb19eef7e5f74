"""How the tests themselves are laid out: what several modules share lives in ``tests/helpers.py`` (and
the fixtures on it in ``tests/conftest.py``), so no test module imports another; the trainers' tests
import nothing of ``advisor``, not even through a helper module."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _imports(tree: ast.AST) -> list[tuple[str, int]]:
    """(module, line) of every import in ``tree``, lazy ones included."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def _on_import(tree: ast.Module) -> list[tuple[str, int]]:
    """The imports that run when the module is imported: not in functions, not under TYPE_CHECKING."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        found += _imports(node)
    return found


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _file_of(module: str) -> Path | None:
    """The file of a ``tests.…`` module, if it is one."""
    if not module.startswith("tests."):
        return None
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports_of_test_modules(path: Path) -> list[str]:
    """``file:line imports module`` for each import (lazy ones included) of a ``test_*`` module or a conftest."""
    wrong = []
    for module, line in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        leaf = module.rsplit(".", 1)[-1]
        if module.startswith("tests.") and (leaf.startswith("test_") or leaf == "conftest"):
            wrong.append(f"{_shown(path)}:{line} imports {module}")
    return wrong


def _advisor_reached_from(path: Path, seen: set[Path], lazy: bool = True) -> list[str]:
    """Imports of ``advisor`` in ``path`` (every one when ``lazy``, else those run on import), and in the
    ``tests.…`` modules it imports on import, followed transitively (there only those run on import)."""
    if path in seen:
        return []
    seen.add(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    wrong = [
        f"{_shown(path)}:{line} imports {module}"
        for module, line in (_imports(tree) if lazy else _on_import(tree))
        if module == "advisor" or module.startswith("advisor.")
    ]
    for module, _ in _on_import(tree):
        helper = _file_of(module)
        if helper is not None:
            wrong += _advisor_reached_from(helper, seen, lazy=False)
    return wrong


def test_no_test_module_imports_another() -> None:
    wrong = [w for path in sorted(TESTS.rglob("*.py")) for w in _imports_of_test_modules(path)]
    assert wrong == []


def test_the_trainers_tests_import_nothing_of_advisor() -> None:
    seen: set[Path] = set()
    wrong = [
        w for path in sorted((TESTS / "trainers").rglob("*.py")) for w in _advisor_reached_from(path, seen)
    ]
    assert wrong == []


def test_both_checks_can_fail(tmp_path: Path) -> None:
    importer = tmp_path / "test_x.py"
    importer.write_text("def f():\n    from tests.advisor.test_runner import write_ner\n", encoding="utf-8")
    assert _imports_of_test_modules(importer) == [f"{importer}:2 imports tests.advisor.test_runner"]
    lazy = tmp_path / "test_y.py"
    lazy.write_text("def f():\n    from advisor.errors import ConfigError\n", encoding="utf-8")
    assert _advisor_reached_from(lazy, set()) == [f"{lazy}:2 imports advisor.errors"]
    through_helper = tmp_path / "test_z.py"
    through_helper.write_text("from tests.advisor.app.layer_store import CONTEXTUALITY\n", encoding="utf-8")
    assert any(
        "layer_store.py" in w and "imports advisor" in w for w in _advisor_reached_from(through_helper, set())
    )
    helpers = tmp_path / "test_h.py"
    helpers.write_text("from tests.helpers import write_ner\n", encoding="utf-8")
    assert _advisor_reached_from(helpers, set()) == []  # its lazy and TYPE_CHECKING imports do not run
