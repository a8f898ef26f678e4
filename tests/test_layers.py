"""The packages' imports: one way (store → search → api), without cycles between modules or
between the folders of a package, and through the store's faces only.

Imports inside functions count too: a lazy import still ties two modules together, it only
moves the cost to later. Imports under `if TYPE_CHECKING:` do not: they name types for the
checker and never run.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from helpers import ROOT

LAYERS = ("origin_store", "origin_search", "origin_api")
#: Code outside the store that is not one of the layers: it keeps to the store's faces too.
OUTSIDE = ("bench",)

#: The store's private LMDB core, by its modules' names now and in the floor plan (`core/`):
#: database names, key layouts, encodings and locks change with the schema, and only the store
#: may know them.
#: The store's private core: nothing outside the store imports it.
STORE_CORE = "origin_store.core"
#: The ingest's face is its package; its modules are its own.
STORE_INGEST = "origin_store.ingest"
#: What names an LMDB database or a meta key of the store: its databases (`dbs`, `ids_db`),
#: its meta records by key (`meta_get`, `meta_put`).
STORE_INSIDES = ("dbs", "ids_db", "meta_get", "meta_put")


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@functools.cache
def _tree(path: Path) -> ast.Module:
    """Each file parsed once for the whole module (read only): parsing is most of its time."""
    return ast.parse(path.read_text(), str(path))


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of Origin's packages that `name` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    tree = _tree(path)
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


def _outside_files() -> dict[str, Path]:
    """Every module that is not the store's: the layers above it, and the benchmark."""
    found = {name: path for name, path in _modules().items() if not name.startswith("origin_store")}
    for package in OUTSIDE:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return found


def _store_private(module: str) -> bool:
    return (
        module == STORE_CORE
        or module.startswith(STORE_CORE + ".")
        or module.startswith(STORE_INGEST + ".")
    )


def _folder_cycle(graph: dict[str, set[str]], package: str, folders: set[str]) -> list[str]:
    """A cycle among `package`'s folders (each with everything below it), or [] when none."""

    def folder_of(module: str) -> str | None:
        if not module.startswith(package + "."):
            return None
        child = ".".join(module.split(".")[: package.count(".") + 2])
        return child if child in folders else None

    edges: dict[str, set[str]] = {folder: set() for folder in folders}
    for name, imported in graph.items():
        source = folder_of(name)
        if source is None:
            continue
        edges[source].update(
            target for target in map(folder_of, imported) if target not in (None, source)
        )
    done: set[str] = set()

    def visit(folder: str, path: list[str]) -> list[str]:
        if folder in path:
            return path[path.index(folder) :] + [folder]
        if folder in done:
            return []
        for target in sorted(edges[folder]):
            found = visit(target, [*path, folder])
            if found:
                return found
        done.add(folder)
        return []

    for folder in sorted(folders):
        found = visit(folder, [])
        if found:
            return found
    return []


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


def test_no_folder_of_a_package_imports_itself_through_others():
    """Between the folders of a package imports go one way too (the hub mounts the UI; the UI
    never imports the hub). A package's own modules, beside its folders, are its face and the
    floor its folders stand on, so they are not a folder here; each folder is held with every
    module below it, at every depth (`ui/pages/` and its siblings inside `ui/`, say)."""
    graph = _graph()
    modules = _modules()
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    assert {"origin_api.hub", "origin_api.ui", "origin_api.ui.pages"} <= packages
    for package in sorted(packages):
        folders = {other for other in packages if other.rpartition(".")[0] == package}
        cycle = _folder_cycle(graph, package, folders)
        assert not cycle, "folders import each other: " + " → ".join(cycle)


def test_a_cycle_between_folders_is_found() -> None:
    """The check above catches what it is for: two folders that import each other, through a
    module below one of them."""
    graph = {
        "p.a.x": {"p.b.y"},
        "p.b.y": set(),
        "p.b.deep.z": {"p.a.x"},
        "p.root": {"p.a.x", "p.b.y"},
    }
    assert _folder_cycle(graph, "p", {"p.a", "p.b"}) == ["p.a", "p.b", "p.a"]
    del graph["p.b.deep.z"]
    assert _folder_cycle(graph, "p", {"p.a", "p.b"}) == []


def test_nothing_outside_the_store_imports_its_core_or_ingest_internals():
    """The search layer, the front doors and the benchmark take the store through its faces
    (`origin_store`, `origin_store.ingest`, the feature modules): never its LMDB core (`db`,
    `codec`, `keys`, `lmdbio`, `migrate`, `storelock`, or `core/` that will hold them) nor a
    module inside `ingest/`."""
    modules = _modules()
    found = {
        f"{name} imports {target}"
        for name, path in _outside_files().items()
        for target in _imports(name, path, modules)
        if _store_private(target)
    }
    assert not found, sorted(found)


@pytest.mark.parametrize(
    ("module", "private"),
    [
        ("origin_store.core", True),
        ("origin_store.core.db", True),
        ("origin_store.core.lmdbio", True),
        ("origin_store.ingest.discovery", True),
        ("origin_store.ingest", False),
        ("origin_store.system.oshelpers", False),
        ("origin_store", False),
        ("origin_store.reader", False),
        ("origin_store.corebits", False),
    ],
)
def test_the_store_core_rule_names_the_core(module: str, private: bool) -> None:
    assert _store_private(module) is private


def test_the_sample_generator_is_a_leaf():
    """The sample-log generator (`origin_api/samples/`) of the demo and the benchmark imports
    nothing of Origin: it writes what agents write, and the parsers are tested against it."""
    modules = _modules()
    found = {
        f"{name} imports {target}"
        for name, path in modules.items()
        if name.startswith("origin_api.samples")
        for target in _imports(name, path, modules)
        if not target.startswith("origin_api.samples")
    }
    assert not found, sorted(found)


def test_nothing_outside_the_store_names_its_databases_or_meta_keys():
    """Which LMDB database holds what, and the meta records' key names, are the store's: a
    caller reads through a named function (`reader`, `entries`, `sync`, `marks`), so a change of
    schema stays inside the store. Checked on the code itself: `store.dbs[...]`, `ids_db`,
    `meta_get`/`meta_put`, a raw cursor over a database, or `store.get(txn, "<database>", key)`."""
    found = []
    for name, path in _outside_files().items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in STORE_INSIDES:
                found.append(f"{name}:{node.lineno} uses .{node.attr}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                by_name = node.func.attr in ("get", "put") and len(node.args) >= 3
                named_db = by_name and isinstance(node.args[1], ast.Constant)
                raw_cursor = node.func.attr == "cursor" and any(
                    k.arg == "db" for k in node.keywords
                )
                if named_db or raw_cursor:
                    found.append(f"{name}:{node.lineno} {ast.unparse(node.func)}(...)")
    assert not found, found


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
    """The hub mounts the UI and the command line imports both: each must load first, without a
    cycle a test process (which has imported the others already) would never see."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
