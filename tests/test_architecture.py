"""The import graph keeps its layers: each package imports only its own layer and those below.

An ast walk over every import statement (function-level ones included, since a lazy
import is still a dependency), so no tool beyond the standard library is needed. A new
top-level package or module of ``docgemma`` must be placed in ``LAYERS`` first.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS: tuple[tuple[str, ...], ...] = (
    # vocabularies, shapes, helpers
    (
        "errors",
        "severity",  # the triage severities, shared by the red-flag table
        "red_flags",  # the table of presentations and the conditions to exclude first
        "profiles",
        "labels",
        "experts",
        "transcript",
        "once",
        "checkpoint_serde",
        "events",  # the trace events both graphs emit and every front door reads
        "event_loop",
        "topic_words",
        "engine_build",  # standard library only: the Makefile runs it before installing
        "install_steps",  # standard library only: the image build runs it before installing
        "space_replay",  # standard library only: replays the image build
        "part_hashes",  # the part packages' wheel digests, from profiles
        "dependency_floors",  # standard library only: pyproject's lower bounds as constraints
        "seed_doc",  # the design documents' feature table in docs/design.md
    ),
    ("config",),
    ("assets", "config_doc"),  # model files shipped in PyPI packages; the settings reference
    ("llm", "ehr", "embed"),
    ("imaging", "kb", "routing", "auth"),
    ("tools",),
    ("agent", "triage", "setup_assets"),
    ("ui", "api", "__main__"),
)
"""Lowest first. ``experiments`` and ``app.py`` sit above all of them."""

LAYER_OF = {package: level for level, packages in enumerate(LAYERS) for package in packages}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, relative imports resolved."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def package_of(module: str) -> str | None:
    """The first component under ``docgemma`` (``docgemma.agent.nodes.x`` → ``agent``)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "docgemma" and len(parts) > 1 else None


def package_edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs, each with the import lines that make it."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted((ROOT / "docgemma").rglob("*.py")):
        source = package_of(module_name(path))
        named: set[str] = set()
        for target in sorted(imported_modules(path)):  # a module before the names taken from it
            imported = package_of(target)
            if source and imported and imported != source and imported not in named:
                named.add(imported)
                edges[(source, imported)].append(f"{path.relative_to(ROOT)} imports {target}")
    return edges


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        trail.append(node)
        for following in sorted(graph.get(node, ())):
            if state.get(following) == "open":
                return [*trail[trail.index(following) :], following]
            if following not in state and (cycle := visit(following)):
                return cycle
        state[node] = "done"
        trail.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_every_package_has_a_layer() -> None:
    packages = {package_of(module_name(p)) for p in (ROOT / "docgemma").rglob("*.py")} - {None}
    unplaced = sorted(packages - set(LAYER_OF))
    assert not unplaced, f"place these docgemma packages in LAYERS: {unplaced}"


def test_no_package_imports_a_higher_layer() -> None:
    upward = [
        f"{importer} (layer {LAYER_OF[importer]}) -> {imported} (layer {LAYER_OF[imported]}): "
        + "; ".join(lines[:3])
        for (importer, imported), lines in sorted(package_edges().items())
        if LAYER_OF.get(imported, -1) > LAYER_OF.get(importer, len(LAYERS))
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_no_import_cycle_between_packages() -> None:
    """Every edge counts, upward or not: a cycle is a cycle whatever the layers say."""
    graph: dict[str, set[str]] = defaultdict(set)
    for importer, imported in package_edges():
        graph[importer].add(imported)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


def module_graph(folder: Path) -> dict[str, set[str]]:
    """Module → the modules under ``folder`` it imports, every import statement counted
    (function-level and ``TYPE_CHECKING`` ones too). ``from package import name`` is an
    edge to the submodule ``package.name`` when there is one, else to the package."""
    paths = sorted(folder.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        module = module_name(path)
        targets = imported_modules(path)
        edges = {t for t in targets if t in modules}
        # a package named only because a submodule was taken from it is not an edge to the
        # package's __init__ (importing the submodule runs it anyway, as for any submodule)
        edges -= {t for t in edges if any(u.startswith(t + ".") and u in modules for u in targets)}
        graph[module] = edges - {module}
    return graph


def test_no_import_cycle_between_core_modules() -> None:
    """Within a package too: two modules importing each other are one module in two files."""
    cycle = find_cycle(module_graph(ROOT / "docgemma"))
    assert cycle is None, "import cycle between docgemma modules: " + " -> ".join(cycle or [])


def test_the_core_package_never_imports_the_experiments() -> None:
    offending = [
        f"{path.relative_to(ROOT)} imports {target}"
        for path in (ROOT / "docgemma").rglob("*.py")
        for target in imported_modules(path)
        if target.split(".")[0] == "experiments"
    ]
    assert not offending, "\n".join(offending)


def test_no_import_cycle_between_experiment_modules() -> None:
    cycle = find_cycle(module_graph(ROOT / "experiments"))
    assert cycle is None, "import cycle in experiments: " + " -> ".join(cycle or [])


def test_find_cycle_names_the_loop() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_node_modules_are_leaves() -> None:
    """A node never imports another node: what two nodes share lives beside them in ``agent``."""
    nodes = sorted((ROOT / "docgemma" / "agent" / "nodes").glob("*.py"))
    names = {module_name(p) for p in nodes} - {"docgemma.agent.nodes"}
    offending = [
        f"{path.relative_to(ROOT)} imports {target}"
        for path in nodes
        for target in sorted(imported_modules(path))
        if target in names and target != module_name(path)
    ]
    assert not offending, "\n".join(offending)
    assert len(names) >= 7  # the seven nodes (router and error handler included) were seen
