"""Every module path and public name the docs mention exists in the code.

The docs are ``README.md``, ``ARCHITECTURE.md`` and every page under ``docs/`` (the site's
tutorials, how-to guides and explanations too). Checked, in backticks:

- a file path ending in ``.py`` (``patgate/wire/router.py``, ``wire/router.py``,
  ``tests/test_import_graph.py``): a file of the repository, or of ``src/patgate``;
- a dotted name starting with ``patgate.`` (``patgate.service.api_paths.template_pieces``): a
  module, or a name a module defines;
- a class-like name (``WireApp``, ``ControlService.reset``) or a called name
  (``served_routes()``): defined somewhere in ``src/patgate`` (a class, a function, an
  assignment, a method or attribute of that class).

A name of another library is listed in :data:`OTHER_LIBRARIES` and not checked.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "patgate"
DOCS = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]

OTHER_LIBRARIES = {
    "ThreadingHTTPServer",  # http.server
    "pass_through",  # respx
    "decode",  # PyJWT
    "HttpOnly",  # a cookie attribute
    "NaN",  # a JSON number the parser refuses
    "Markup",  # markupsafe
    "Faker",  # faker
    "HTTPAdapter",  # requests
    "Session",  # requests
    "Client",  # httpx
    "AsyncClient",  # httpx
    "HTTPTransport",  # httpx
    "Draft202012Validator",  # jsonschema
    "RequestsMock",  # responses
    "DeletePersonalAccessTokenResult",  # a GraphQL type a profile may name, not a Python one
}

_BUILTINS = set(dir(builtins))
_SPAN = re.compile(r"`([^`\n]+)`")
_PY_PATH = re.compile(r"^(?:src/)?[\w./-]*\w\.py$")
_DOTTED = re.compile(r"^patgate(?:\.[A-Za-z_]\w*)+$")
_CLASS_LIKE = re.compile(r"^([A-Z][a-z0-9]+[A-Z]\w*)(?:\.([A-Za-z_]\w*))?(?:\(\))?$")
_CALLED = re.compile(r"^([a-z_][a-z0-9_]*)\(")


def _spans() -> Iterator[tuple[str, str]]:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        # Fenced blocks show commands and output, not names the prose claims.
        text = re.sub(r"(?ms)^```.*?^```", lambda block: "\n" * block.group().count("\n"), text)
        for number, line in enumerate(text.splitlines(), 1):
            for span in _SPAN.findall(line):
                yield f"{doc.relative_to(ROOT)}:{number}", span.strip()


def _definitions() -> tuple[set[str], dict[str, set[str]], dict[str, set[str]]]:
    """Every name defined in the package; each class's members; each module's top names."""
    names: set[str] = set()
    members: dict[str, set[str]] = {}
    modules: dict[str, set[str]] = {}
    # The package, and the example clients the README walks through.
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "tests" / "examples").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parts = list(
            path.relative_to(path.parents[len(path.relative_to(ROOT).parts) - 2])
            .with_suffix("")
            .parts
        )
        if parts[-1] == "__init__":
            parts.pop()
        top = modules.setdefault(".".join(parts), set())
        for node in tree.body:
            top.update(_bound(node))
            # The facade's names are imported on first use: its __all__ lists them.
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                top.update(ast.literal_eval(node.value))
        for node in ast.walk(tree):
            bound = _bound(node)
            names.update(bound)
            if isinstance(node, ast.ClassDef):
                own = members.setdefault(node.name, set())
                for item in node.body:
                    own.update(_bound(item))
    return names, members, modules


def _bound(node: ast.AST) -> set[str]:
    if isinstance(node, ast.arg):  # a parameter (``wrap_app``) is a name the docs may use
        return {node.arg}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return set()


def missing_names() -> list[str]:
    names, members, modules = _definitions()
    problems = []
    for where, span in _spans():
        if _PY_PATH.match(span):
            path = span.removeprefix("src/")
            candidates = [ROOT / span, ROOT / "src" / path, PACKAGE / path]
            if "/" not in span:  # a bare file name: anywhere in the repository's code
                candidates += [*ROOT.glob(f"src/**/{span}"), *ROOT.glob(f"tests/**/{span}")]
                candidates += list(ROOT.glob(f"benchmarks/**/{span}"))
            if not any(candidate.is_file() for candidate in candidates):
                problems.append(f"{where}: no file {span}")
        elif _DOTTED.match(span):
            parts = span.split(".")
            module = next(
                (
                    ".".join(parts[:n])
                    for n in range(len(parts), 0, -1)
                    if ".".join(parts[:n]) in modules
                ),
                None,
            )
            rest = parts[len(module.split(".")) :] if module else []
            if module is None or (rest and rest[0] not in modules[module]):
                problems.append(f"{where}: no module or name {span}")
        elif found := _CLASS_LIKE.match(span):
            name, member = found.groups()
            if name in OTHER_LIBRARIES or name in _BUILTINS:
                continue
            if name not in names:
                problems.append(f"{where}: no name {name}")
            elif member and name in members and member not in members[name]:
                problems.append(f"{where}: {name} has no {member}")
        elif found := _CALLED.match(span):
            name = found.group(1)
            if name not in names and name not in _BUILTINS and name not in OTHER_LIBRARIES:
                problems.append(f"{where}: no function {name}")
    return problems


def test_the_scan_reads_the_docs() -> None:
    spans = {span for _where, span in _spans()}
    assert "tests/test_import_graph.py" in spans
    assert any(_CLASS_LIKE.match(span) for span in spans)
    assert any(_DOTTED.match(span) for span in spans)


def test_every_module_and_name_the_docs_mention_exists() -> None:
    problems = missing_names()
    assert problems == [], "the docs name what the code does not have:\n" + "\n".join(problems)
