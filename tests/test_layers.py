"""The packages' imports: one way (store → search → api) and without cycles between modules.

Imports inside functions count too: a lazy import still ties two modules together, it only
moves the cost to later. Imports under `if TYPE_CHECKING:` do not: they name types for the
checker and never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import ROOT

LAYERS = ("origin_store", "origin_search", "origin_api")


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of Origin's packages that `name` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    tree = ast.parse(path.read_text(), str(path))
    for_types = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for child in node.body
        for inner in ast.walk(child)
    }
    for node in ast.walk(tree):
        if id(node) in for_types:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from package import module` names a module; `from module import name` its module.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        out.update(target for target in targets if target in modules and target != name)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_imports_go_one_way():
    for name, imported in _graph().items():
        layer = LAYERS.index(name.split(".")[0])
        above = {target for target in imported if LAYERS.index(target.split(".")[0]) > layer}
        assert not above, f"{name} imports {sorted(above)} from a layer above it"


def test_no_module_imports_itself_through_others():
    graph = _graph()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = path[path.index(name) :] + [name]
            raise AssertionError("import cycle: " + " → ".join(cycle))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


#: The modules that may import the CLI: its own, and the entry point a `python -m origin_api`
#: would run (none yet).
CLI = "origin_api.cli"
ENTRY_POINTS = {"origin_api.__main__"}


def _in_cli(name: str) -> bool:
    return name == CLI or name.startswith(CLI + ".")


def test_only_the_cli_imports_the_cli():
    """The service, MCP, the hub and what they share never depend on the command line: what a
    command needs from them lives outside `cli/` (the lingering search server's answers are
    `origin_api/lingering/`'s)."""
    graph = _graph()
    assert CLI in graph and graph[CLI]  # the test sees the CLI's own imports
    reaching = {
        name: sorted(target for target in imported if _in_cli(target))
        for name, imported in graph.items()
        if not _in_cli(name) and name not in ENTRY_POINTS
    }
    assert not {name: cli for name, cli in reaching.items() if cli}


def test_the_mcp_transports_share_results_and_not_each_other():
    graph = _graph()
    assert "origin_api.mcp.results" in graph["origin_api.mcp.stdio"] & graph["origin_api.mcp.sdk"]
    assert "origin_api.mcp.sdk" not in graph["origin_api.mcp.stdio"]
    assert "origin_api.mcp.stdio" not in graph["origin_api.mcp.sdk"]


@pytest.mark.parametrize(
    "module",
    ["origin_api.ui.guard", "origin_api.ui.app", "origin_api.hub", "origin_api.lingering.server"],
)
def test_a_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """The hub and the UI import each other's pieces: each must load first, without a cycle
    a test process (which has imported the other already) would never see."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
