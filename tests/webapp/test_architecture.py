"""The import rules of the house, read from the source with :mod:`ast`.

- ``costmodel/`` (the engine) imports neither Django nor the web app.
- No module outside ``webapp/api/`` imports the API (only the URLconf mounts it):
  the planner, the accounts and the usage service sit below it, not beside it.
- The web app's parts (its apps and its project-level modules such as
  ``webapp.errors``) import each other without a cycle, function-level imports
  included: every dependency points one way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(source: str) -> set[str]:
    """Every absolute module a source file imports, at any depth (functions included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def python_files(package: str) -> Iterable[tuple[str, Path]]:
    """(dotted module name, path) of every module of ``package``, migrations left out."""
    for path in sorted((ROOT / package).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        yield ".".join(path.relative_to(ROOT).with_suffix("").parts), path


def part_of(module: str) -> str:
    """The web app's part a module belongs to: its app, or the project-level module itself."""
    return module.split(".")[1]


def part_graph(modules: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """Which part of the web app imports which other part."""
    graph: dict[str, set[str]] = {}
    for module, imports in modules.items():
        source = part_of(module)
        graph.setdefault(source, set())
        for name in imports:
            if name.startswith("webapp.") and part_of(name) != source:
                graph[source].add(part_of(name))
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the list of its nodes (first repeated last), or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


@pytest.fixture(scope="module")
def webapp_imports() -> dict[str, set[str]]:
    return {name: imported_modules(path.read_text()) for name, path in python_files("webapp")}


def test_the_engine_imports_neither_django_nor_the_web_app() -> None:
    offenders = {
        name: sorted(
            i for i in imported_modules(path.read_text()) if i.split(".")[0] in {"django", "webapp"}
        )
        for name, path in python_files("costmodel")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_only_the_urlconf_imports_the_api(webapp_imports: dict[str, set[str]]) -> None:
    offenders = {
        module: sorted(i for i in imports if i == "webapp.api" or i.startswith("webapp.api."))
        for module, imports in webapp_imports.items()
        if not module.startswith("webapp.api.") and module not in {"webapp.api", "webapp.urls"}
    }
    assert {module: found for module, found in offenders.items() if found} == {}


def test_no_two_parts_of_the_web_app_import_each_other(webapp_imports: dict[str, set[str]]) -> None:
    graph = part_graph(webapp_imports)
    assert {"planner", "advisor", "api", "accounts", "catalog", "scenarios"} <= graph.keys()
    assert find_cycle(graph) is None


API_FILES = sorted((ROOT / "webapp" / "api").glob("*.py"))


@pytest.mark.parametrize("path", API_FILES, ids=lambda p: p.name)
def test_the_api_does_not_import_the_planner(path: Path) -> None:
    assert not [m for m in imported_modules(path.read_text()) if m.startswith("webapp.planner")]


@pytest.mark.parametrize(
    "path", sorted((ROOT / "webapp" / "scenarios").rglob("*.py")), ids=lambda p: p.name
)
def test_saved_scenarios_do_not_import_the_planner_or_the_api(path: Path) -> None:
    imported = imported_modules(path.read_text())
    assert not [m for m in imported if m.startswith(("webapp.planner", "webapp.api"))]


def test_a_cycle_hidden_in_a_function_is_found() -> None:
    """The check itself: an import inside a function counts, and closes the loop."""
    planner = "from webapp.advisor.advice import x\n"
    advisor = "def f():\n    from webapp.planner.jobs import y\n"
    graph = part_graph(
        {
            "webapp.planner.jobs": imported_modules(planner),
            "webapp.advisor.advice": imported_modules(advisor),
            "webapp.catalog.models": set(),
        }
    )
    assert find_cycle(graph) == ["advisor", "planner", "advisor"]
