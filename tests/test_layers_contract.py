"""Dependencies point one way: entry points -> orchestration -> domain -> foundation -> trainers.

Every import in ``advisor/`` and ``trainers/`` counts, also the ones inside functions (a lazy
import hides a cycle from Python, not from this test). ``trainers`` imports nothing from ``advisor``:
it takes arrays, :class:`trainers._features.TokenFeatures` and anything shaped like
:class:`trainers._corpus.LabelledItems`.

Three more rules, each checked on the real code per unit (``advisor.<part>`` or ``trainers``) and on
a small synthetic package that shows the checker can fail:

- no import cycle between modules, lazy imports included, ``if TYPE_CHECKING:`` blocks excluded;
  importing ``a.b._c`` from outside ``a.b`` runs ``a/b/__init__.py`` first, so that is an edge too;
- no module imports a private name or module (``_x``) of another package: ``advisor.verdict`` may
  not import ``advisor.difficulty._ner``, ``advisor.difficulty._gaps`` may import it;
- inside the domain, the rooms are layered too (:data:`DOMAIN_LAYERS`).

Units that still break a rule are listed in ``KNOWN_*`` and their cases are strict xfails: fixing one
makes its case pass unexpectedly, which fails, so the entry is removed with the fix (issue 27).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("advisor", "trainers")

#: Highest first. A module may import its own layer and the layers below it, never one above.
#: Units not named here (``advisor.data``, ``advisor.verdict``, ...) are the domain layer.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"advisor.cli", "advisor.app"}),  # entry points: the CLI and the Streamlit page
    frozenset({"advisor.runner", "advisor.pipeline", "advisor.backends", "advisor.validate"}),
    frozenset(),  # the domain: everything else in advisor
    frozenset(
        {
            "advisor.registry",
            "advisor._error_codes",
            "advisor.errors",
            "advisor.features",
            "advisor.cache",
            "advisor.numbers",  # how a number reads: a leaf the domain rooms and the app share
        }
    ),
    frozenset({"trainers"}),
)
DOMAIN = 2

#: The domain's own layers, highest first; every domain unit is in one of them.
DOMAIN_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"advisor.report"}),  # renders a judged analysis
    frozenset({"advisor.tracking"}),  # the record layer: every save and load of a run's results
    frozenset({"advisor.verdict", "advisor.gain", "advisor.plots"}),  # judging an Analysis
    frozenset(  # measuring: item difficulty, encoder layers, serving costs; the Analysis they fill
        {
            "advisor.analysis",
            "advisor.difficulty",
            "advisor.contextuality",
            "advisor.costs",
            "advisor.finetune",
        }
    ),
    frozenset({"advisor.embeddings", "advisor.grid"}),  # the families and the grid they train in
    frozenset(
        {"advisor.data", "advisor.settings", "advisor.limits", "advisor.form_labels"}
    ),  # inputs, bounds, labels
    frozenset({"advisor.vocabulary"}),  # the names every room shares: families, tasks
    frozenset({"advisor.stats", "advisor.progress"}),  # leaves: bootstrap and spans; progress lines
)

#: Units with a module still on an import cycle (none since issue 27 item 1: computing apart from saving).
KNOWN_CYCLES: dict[str, str] = {}
#: Units whose modules still import another package's private names or modules (none since issue 27 item 6).
KNOWN_PRIVATE: dict[str, str] = {}
#: Domain units that still import a domain layer above their own.
KNOWN_DOMAIN_UPWARD: dict[str, str] = {}


@dataclass(frozen=True)
class Import:
    """One imported name: ``target`` is the module that runs, ``path`` what is named (module or attribute)."""

    source: str
    target: str
    path: str
    line: int
    typing_only: bool  # under ``if TYPE_CHECKING:``: never runs


class Tree:
    """The modules of ``packages`` under ``root`` and every import in them (relative ones resolved)."""

    def __init__(self, root: Path, packages: tuple[str, ...] = PACKAGES) -> None:
        self.root = root
        self._imports: list[Import] | None = None
        self.files = {
            self.module_name(path): path
            for package in packages
            for path in sorted((root / package).rglob("*.py"))
        }

    def module_name(self, path: Path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def is_module(self, name: str) -> bool:
        return name in self.files

    def imports(self) -> list[Import]:
        """Every import of every module (parsed once per tree)."""
        if self._imports is None:
            self._imports = [found for module in self.files for found in self.imports_of(module)]
        return self._imports

    def imports_of(self, module: str) -> list[Import]:
        path = self.files[module]
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        found = []
        for node, typing_only in _walk(ast.parse(path.read_text(encoding="utf-8")), False):
            if isinstance(node, ast.Import):
                found += [Import(module, a.name, a.name, node.lineno, typing_only) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                origin = ".".join([*base, node.module or ""]).strip(".")
                for alias in node.names:  # ``from advisor import cache`` imports the module advisor.cache
                    named = f"{origin}.{alias.name}"
                    target = named if self.is_module(named) else origin
                    found.append(Import(module, target, named, node.lineno, typing_only))
        return found


def _walk(node: ast.AST, typing_only: bool):
    """Every node below ``node``, with whether it sits under ``if TYPE_CHECKING:`` (its else runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for part in child.body:
                yield part, True
                yield from _walk(part, True)
            for part in child.orelse:
                yield part, typing_only
                yield from _walk(part, typing_only)
            continue
        yield child, typing_only
        yield from _walk(child, typing_only)


@cache
def repo() -> Tree:
    return Tree(ROOT)


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
    return repo().module_name(path)


def _is_module(name: str) -> bool:
    return repo().is_module(name)


def edges(tree: Tree | None = None) -> list[tuple[str, str, str]]:
    """(importing unit, imported unit, where) for every import between two different units."""
    tree = tree or repo()
    out = []
    for found in tree.imports():
        source, target = unit(found.source), unit(found.target)
        if source and target and target != source:
            where = tree.files[found.source].relative_to(tree.root)
            out.append((source, target, f"{where}:{found.line}"))
    return out


def units() -> list[str]:
    return sorted({name for module in repo().files if (name := unit(module)) and name != "advisor"})


def _known(units_: list[str], known: dict[str, str]) -> list[object]:
    """``units_`` as parameters; the ones in ``known`` as strict xfails with their reason."""
    return [
        pytest.param(u, marks=pytest.mark.xfail(strict=True, reason=known[u])) if u in known else u
        for u in units_
    ]


# -- layers between the packages ------------------------------------------------------------------


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


# -- import cycles -------------------------------------------------------------------------------


def import_graph(tree: Tree) -> dict[str, set[str]]:
    """Module -> the modules importing it runs: the target and the packages above it not yet entered."""
    graph: dict[str, set[str]] = {module: set() for module in tree.files}
    for found in tree.imports():
        if found.typing_only or not tree.is_module(found.target):
            continue
        parts = found.target.split(".")
        for depth in range(1, len(parts) + 1):
            module = ".".join(parts[:depth])
            entered = found.source == module or found.source.startswith(module + ".")
            if tree.is_module(module) and not entered:
                graph[found.source].add(module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while not group or group[-1] != node:
                        group.append(stack.pop())
                        on_stack.discard(group[-1])
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


@cache
def cyclic_modules() -> frozenset[str]:
    return frozenset(module for group in cycles(import_graph(repo())) for module in group)


@pytest.mark.parametrize("name", _known(units(), KNOWN_CYCLES))
def test_no_module_is_on_an_import_cycle(name: str) -> None:
    on_cycle = sorted(module for module in cyclic_modules() if unit(module) == name)
    assert not on_cycle, f"on an import cycle: {on_cycle}; the cycles: {cycles(import_graph(repo()))}"


def test_the_cycle_check_can_fail(tmp_path: Path) -> None:
    """A lazy import closes a cycle; the same import under TYPE_CHECKING does not; entering a package
    from outside runs its ``__init__``, which counts."""
    _package(tmp_path, {"a": "from pkg import b\n", "b": "def f():\n    from pkg.a import x\n"})
    assert cycles(import_graph(Tree(tmp_path, ("pkg",)))) == [["pkg.a", "pkg.b"]]
    _package(
        tmp_path, {"b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n"}
    )
    assert cycles(import_graph(Tree(tmp_path, ("pkg",)))) == []
    package = {"c/__init__": "from pkg.c._d import y\n", "c/_d": "from pkg.a import x\n", "c/_e": ""}
    _package(tmp_path, {**package, "b": "from pkg.c._e import z\n"})  # b -> c/__init__ -> c._d -> a -> b
    assert cycles(import_graph(Tree(tmp_path, ("pkg",)))) == [["pkg.a", "pkg.b", "pkg.c", "pkg.c._d"]]


def _package(root: Path, modules: dict[str, str]) -> None:
    """Write ``pkg/<name>.py`` for each entry (``c/__init__`` makes a subpackage) under ``root``."""
    for name, text in {"__init__": "", **modules}.items():
        path = root / "pkg" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


# -- private names stay in their package ---------------------------------------------------------


def private_imports(tree: Tree) -> list[Import]:
    """Imports naming a private part (``_x``) of a package the importer is not in: ``_error_codes`` of
    ``advisor`` is everyone's in ``advisor``; ``_ner`` of ``advisor.difficulty`` only that package's."""
    roots = {module.split(".")[0] for module in tree.files}
    wrong = []
    for found in tree.imports():
        parts = found.path.split(".")
        private = next((i for i, p in enumerate(parts) if p.startswith("_") and not p.endswith("__")), None)
        if parts[0] not in roots or private is None:
            continue
        owner = ".".join(parts[:private])
        if not (found.source == owner or found.source.startswith(owner + ".")):
            wrong.append(found)
    return wrong


def shown(tree: Tree, found: Import) -> str:
    return (
        f"{tree.files[found.source].relative_to(tree.root)}:{found.line} {found.source} imports {found.path}"
    )


@pytest.mark.parametrize("name", _known(units(), KNOWN_PRIVATE))
def test_no_private_import_from_another_package(name: str) -> None:
    wrong = [shown(repo(), found) for found in private_imports(repo()) if unit(found.source) == name]
    assert not wrong, "\n".join(wrong)


def test_the_private_import_check_can_fail(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "x/__init__": "from pkg.x._impl import f\n",
            "x/_impl": "def f():\n    return 1\n_hidden = 2\n",
            "x/sub": "from pkg.x._impl import f\nfrom pkg._base import b\n",  # its own package: fine
            "_base": "b = 1\n",
            "y": "from pkg.x import f\n\ndef g():\n    from pkg.x._impl import f\n    from pkg.x import _hidden\n",
        },
    )
    tree = Tree(tmp_path, ("pkg",))
    assert [shown(tree, found) for found in private_imports(tree)] == [
        "pkg/y.py:4 pkg.y imports pkg.x._impl.f",
        "pkg/y.py:5 pkg.y imports pkg.x._hidden",
    ]


# -- layers inside the domain ---------------------------------------------------------------------


def domain_layer(name: str, layers: tuple[frozenset[str], ...] = DOMAIN_LAYERS) -> int | None:
    return next((index for index, members in enumerate(layers) if name in members), None)


def domain_upward(
    edges_: list[tuple[str, str, str]], layers: tuple[frozenset[str], ...] = DOMAIN_LAYERS
) -> list[str]:
    """``where: a imports b`` for each import from a domain unit into a domain layer above its own."""
    wrong = []
    for source, target, where in edges_:
        low, high = domain_layer(source, layers), domain_layer(target, layers)
        if low is not None and high is not None and high < low:
            wrong.append(f"{where}: {source} imports {target}")
    return wrong


def test_every_domain_unit_has_a_domain_layer() -> None:
    domain = [name for name in units() if layer(name) == DOMAIN]
    assert [name for name in domain if domain_layer(name) is None] == []
    assert set().union(*DOMAIN_LAYERS) <= set(domain)


@pytest.mark.parametrize("name", _known([u for u in units() if layer(u) == DOMAIN], KNOWN_DOMAIN_UPWARD))
def test_domain_imports_point_down_the_domain_layers(name: str) -> None:
    wrong = domain_upward([edge for edge in edges() if edge[0] == name])
    assert not wrong, "\n".join(wrong)


def test_the_domain_layer_check_can_fail(tmp_path: Path) -> None:
    _package(tmp_path, {"low": "def f():\n    from pkg import high\n", "high": "from pkg import low\n"})
    layers = (frozenset({"pkg.high"}), frozenset({"pkg.low"}))
    assert domain_upward(_pkg_edges(Tree(tmp_path, ("pkg",))), layers) == [
        "pkg/low.py:2: pkg.low imports pkg.high"
    ]


def _pkg_edges(tree: Tree) -> list[tuple[str, str, str]]:
    """Module-level edges of a synthetic package (its units are its modules)."""
    return [
        (f.source, f.target, f"{tree.files[f.source].relative_to(tree.root)}:{f.line}")
        for f in tree.imports()
        if f.target in tree.files and f.target != f.source
    ]
