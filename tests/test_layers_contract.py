"""Dependencies point one way: entry points -> orchestration -> domain -> foundation -> trainers.

Every import in ``advisor/`` and ``trainers/`` counts, also the ones inside functions (a lazy
import hides a cycle from Python, not from this test). ``trainers`` imports nothing from ``advisor``:
it takes arrays, :class:`trainers._features.TokenFeatures` and anything shaped like
:class:`trainers._corpus.LabelledItems`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Highest first. A module may import its own layer and the layers below it, never one above.
#: Units not named here (``advisor.data``, ``advisor.verdict``, ...) are the domain layer.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"advisor.cli", "advisor.app"}),  # entry points: the CLI and the Streamlit page
    frozenset(
        {
            "advisor.runner",
            "advisor.pipeline",
            "advisor.backends",
            "advisor.validate",
            "advisor.settings_schema",
        }
    ),
    frozenset(),  # the domain: everything else in advisor
    frozenset(
        {"advisor.registry", "advisor._error_codes", "advisor.errors", "advisor.features", "advisor.cache"}
    ),
    frozenset({"trainers"}),
)
DOMAIN = 2


def unit(module: str) -> str | None:
    """``advisor.<first part>`` or ``trainers``; None outside the two packages."""
    parts = module.split(".")
    if parts[0] == "trainers":
        return "trainers"
    if parts[0] != "advisor":
        return None
    return ".".join(parts[:2]) if len(parts) > 1 else "advisor"


def layer(name: str) -> int:
    for index, members in enumerate(LAYERS):
        if name in members:
            return index
    return 0 if name == "advisor" else DOMAIN  # the package itself re-exports for users: top


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[str, int]]:
    """Absolute module names imported anywhere in ``path`` (relative imports resolved), with lines."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module or ""]).strip(".")
            for alias in node.names:  # ``from advisor import cache`` imports the module advisor.cache
                sub = f"{module}.{alias.name}"
                found.append((sub if _is_module(sub) else module, node.lineno))
    return found


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def edges() -> list[tuple[str, str, str]]:
    """(importing unit, imported unit, where) for every import between two different units."""
    out = []
    for package in ("advisor", "trainers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            source = unit(module_name(path))
            for name, line in imports(path):
                target = unit(name)
                if source and target and target != source:
                    out.append((source, target, f"{path.relative_to(ROOT)}:{line}"))
    return out


def test_imports_point_down_the_layers() -> None:
    upward = [f"{where}: {s} imports {t}" for s, t, where in edges() if layer(s) > layer(t)]
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_trainers_import_nothing_from_advisor() -> None:
    found = [f"{where}: imports {t}" for s, t, where in edges() if s == "trainers" and t != "trainers"]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("module", ["trainers", "trainers._loop", "trainers._finetune"])
def test_importing_trainers_loads_no_advisor_module(module: str) -> None:
    """At run time too (no import through a re-export or a plugin): a fresh interpreter."""
    code = (
        f"import sys, importlib; m = importlib.import_module({module!r}); "
        "[getattr(m, n) for n in getattr(m, '__all__', [])]; "
        "print(sorted(k for k in sys.modules if k == 'advisor' or k.startswith('advisor.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_contract_can_fail() -> None:
    """The checker sees a lazy import inside a function, and an upward edge is reported."""
    tree = ast.parse("def f():\n    from advisor.runner import run_analysis\n")
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert names == ["advisor.runner"]
    assert layer("advisor.data") > layer(unit(names[0]) or "")
    assert layer("trainers") > layer("advisor.errors")
    assert _is_module("advisor.tracking") and not _is_module("advisor.tracking.load_analysis")
