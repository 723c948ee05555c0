"""The house has no circles and no arrow back up: the import graph of ``src/patgate``.

Every import counts: at the top of a module, inside a function, under ``TYPE_CHECKING``.
An import names the module it loads (``from patgate.wire import app`` is an arrow to
``patgate.wire.app``; ``from patgate.wire import WireApp`` one to the package's face
``patgate.wire``). Two checks:

- no loop between modules, and none between parts (a part is a top-level module or
  sub-package: ``patgate.wire``, ``patgate.checks``, ...);
- a part imports only the parts :data:`LAYERS` lets it import: the picture of the layers
  in ARCHITECTURE.md, written down once.

A failure prints the offending arrows, ``importer -> imported``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "patgate"

_FOUNDATION = (
    "patgate._version",
    "patgate.basics",
    "patgate.errors",
    "patgate.service",
    "patgate.guards",
    "patgate.control",
    "patgate.control_client",
)

LAYERS: Mapping[str, tuple[str, ...]] = {
    # The foundation: plain values and tools every layer may use, in this order (each may
    # import those listed before it).
    **{name: _FOUNDATION[:i] for i, name in enumerate(_FOUNDATION)},
    # The domain and the scenario language: beside each other, neither knows the other.
    "patgate.fake": _FOUNDATION,
    "patgate.scenario": _FOUNDATION,
    # The HTTP app over the domain; the checks over the scenario language.
    "patgate.wire": (*_FOUNDATION, "patgate.fake"),
    "patgate.checks": (*_FOUNDATION, "patgate.scenario"),
    # Beside each other over the app: the management page, the transports.
    "patgate.ui": (*_FOUNDATION, "patgate.fake", "patgate.wire"),
    "patgate.transports": (*_FOUNDATION, "patgate.wire"),
    # The composition: a fake = the domain + the app + the page + the interception.
    "patgate.harness": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.wire",
        "patgate.ui",
        "patgate.transports",
    ),
    "patgate.runner": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.scenario",
        "patgate.checks",
        "patgate.harness",
    ),
    "patgate.reporting": (
        *_FOUNDATION,
        "patgate.runner.results.events",
        "patgate.runner.results.outcomes",
    ),
    "patgate.fuzz": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.wire",
        "patgate.checks",
        "patgate.harness",
        "patgate.runner",
        "patgate.reporting",
    ),
    # Calibration: probes sent through a runner session, compared with an embedded fake.
    "patgate.calibration": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.scenario",
        "patgate.wire",
        "patgate.harness",
        "patgate.runner",
        "patgate.reporting",
    ),
    # Front doors: may import anything below; nothing below imports them.
    "patgate.plugin": (
        *_FOUNDATION,
        "patgate.fake",  # the profile of the embedded fake the scenario items run against
        "patgate.scenario",
        "patgate.runner",
        "patgate.reporting",
    ),
    "patgate.pytest_plugin": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.wire",
        "patgate.transports",
        "patgate.harness",
        "patgate.plugin",
    ),
    "patgate.commands": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.scenario",
        "patgate.wire",
        "patgate.checks",
        "patgate.transports",
        "patgate.harness",
        "patgate.runner",
        "patgate.reporting",
        "patgate.fuzz",
        "patgate.calibration",
    ),
    "patgate.cli": (*_FOUNDATION, "patgate.commands"),
    "patgate.__main__": ("patgate.cli",),
    # The facade: names from every layer, loaded lazily.
    "patgate": (
        *_FOUNDATION,
        "patgate.fake",
        "patgate.wire",
        "patgate.harness",
    ),
}
"""Part -> the parts (or single modules of a part) it may import. An entry may name a
module of a part (``patgate.runner.results.events``): then only that module may be imported."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module of ours that importing ``name`` loads (a name inside a module: the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported_modules(name: str, path: Path) -> set[str]:
    """The modules of ``patgate`` the module ``name`` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_known(alias.name) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in MODULES else _known(base)
                if target is not None:
                    found.add(target)
    found.discard(name)
    return found


GRAPH = {name: imported_modules(name, path) for name, path in MODULES.items()}


def part_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def loops(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _edges_within(component: list[str], graph: Mapping[str, Iterable[str]]) -> list[str]:
    members = set(component)
    return [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in members]


def _part_graph() -> dict[str, set[str]]:
    parts: dict[str, set[str]] = {}
    for importer, imported in GRAPH.items():
        here = part_of(importer)
        parts.setdefault(here, set()).update(
            part_of(name) for name in imported if part_of(name) != here
        )
    return parts


def test_the_graph_is_read() -> None:
    # The walk sees imports in functions and under TYPE_CHECKING, relative or absolute.
    assert "patgate.wire.app" in GRAPH["patgate.harness"]  # imported inside Fake.__init__
    assert "patgate.fake.deployment" in GRAPH["patgate.wire.app"]


def test_the_loop_finder_finds_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(graph) == [["a", "b", "c"]]
    assert loops({"a": {"b"}, "b": set()}) == []


def test_no_loop_between_modules() -> None:
    found = [edge for component in loops(GRAPH) for edge in _edges_within(component, GRAPH)]
    assert found == [], "import loops between modules:\n" + "\n".join(found)


def test_no_loop_between_parts() -> None:
    parts = _part_graph()
    found = []
    for component in loops(parts):
        members = set(component)
        found += [
            f"{importer} -> {imported}"
            for importer, names in sorted(GRAPH.items())
            if part_of(importer) in members
            for imported in sorted(names)
            if part_of(imported) in members and part_of(imported) != part_of(importer)
        ]
    assert found == [], "import loops between parts:\n" + "\n".join(found)


PENDING: Mapping[tuple[str, str], str] = {}
"""Arrows known to cross the layers, each with its mend; the list only shrinks."""


def _allowed(importer: str, imported: str) -> bool:
    if (importer, imported) in PENDING:
        return True
    here = part_of(importer)
    there = part_of(imported)
    if here == there:
        return True
    return any(
        imported == allowed or (allowed == there and part_of(allowed) == allowed)
        for allowed in LAYERS[here]
    )


def test_every_part_has_its_place_in_the_layers() -> None:
    assert sorted({part_of(name) for name in MODULES} - set(LAYERS)) == []


def test_the_layers_themselves_have_no_loop() -> None:
    picture = {part: {part_of(name) for name in allowed} for part, allowed in LAYERS.items()}
    assert loops(picture) == []


def test_no_import_crosses_the_layers() -> None:
    found = [
        f"{importer} -> {imported}"
        for importer, names in sorted(GRAPH.items())
        for imported in sorted(names)
        if not _allowed(importer, imported)
    ]
    assert found == [], "imports the layers do not allow:\n" + "\n".join(found)


def test_every_pending_arrow_still_exists() -> None:
    assert [pair for pair in PENDING if pair[1] not in GRAPH[pair[0]]] == []


def test_the_layer_check_can_fail() -> None:
    assert not _allowed("patgate.wire.app", "patgate.ui.site")
    assert not _allowed("patgate.fake.deployment", "patgate")
    assert not _allowed("patgate.reporting.terminal", "patgate.runner.engine")
    assert _allowed("patgate.reporting.terminal", "patgate.runner.results.events")


RUNNER_ROOMS = (
    "model",
    "interruption",
    "connection",
    "custody",
    "results",
    "context",
    "planning",
    "execution",
    "engine",
    "session",
)
"""The runner's rooms (sub-packages, and its top modules), bottom up: a room imports only
the rooms before it (ARCHITECTURE.md, the runner's row)."""


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["patgate", "runner"] and len(parts) > 2 else None


def test_the_runner_rooms_import_downwards() -> None:
    rank = {room: i for i, room in enumerate(RUNNER_ROOMS)}
    assert sorted({r for name in MODULES if (r := _room(name))} - set(rank)) == []
    found = [
        f"{importer} -> {imported}"
        for importer, names in sorted(GRAPH.items())
        if (here := _room(importer)) is not None
        for imported in sorted(names)
        if (there := _room(imported)) is not None and there != here and rank[there] > rank[here]
    ]
    assert found == [], "runner rooms importing upwards:\n" + "\n".join(found)


def private_to(module: str) -> str | None:
    """The folder (package) a private module belongs to, or ``None`` for a public one.

    The convention: a module whose name starts with one underscore (``_step_builder``,
    ``_version``) is private to its folder; only modules in that folder or below import it.
    """
    folder, _dot, leaf = module.rpartition(".")
    if leaf.startswith("_") and not leaf.startswith("__"):
        return folder
    return None


def private_imports(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """``importer -> imported`` for every import of a private module from outside its folder."""
    found = []
    for importer, names in sorted(graph.items()):
        for imported in sorted(names):
            folder = private_to(imported)
            if folder is not None and not (importer + ".").startswith(folder + "."):
                found.append(f"{importer} -> {imported}")
    return found


def test_the_private_module_rule_is_read() -> None:
    assert private_to("patgate.scenario._step_builder") == "patgate.scenario"
    assert private_to("patgate.scenario.loader") is None
    assert private_to("patgate.__main__") is None
    graph = {
        "patgate.scenario.loader": {"patgate.scenario._step_builder"},
        "patgate.runner.engine": {"patgate.scenario._step_builder", "patgate._version"},
    }
    assert private_imports(graph) == ["patgate.runner.engine -> patgate.scenario._step_builder"]


def test_a_private_module_is_imported_only_from_its_folder() -> None:
    found = private_imports(GRAPH)
    assert found == [], "private modules imported from outside their folder:\n" + "\n".join(found)
