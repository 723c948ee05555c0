"""One exception tree: every exception patgate defines is a PatgateError, and errors.py's
docstring draws each of them."""

from __future__ import annotations

import ast
from pathlib import Path

import patgate.errors

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "patgate"


def _exception_classes() -> dict[str, tuple[str, list[str]]]:
    """Public class name -> (module file, base names) for every class deriving an error."""
    found: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = [ast.unparse(base).split(".")[-1] for base in node.bases]
                found[node.name] = (str(path.relative_to(PACKAGE)), bases)
    return found


def _is_exception(name: str, classes: dict[str, tuple[str, list[str]]]) -> bool:
    if name in ("Exception", "BaseException") or name.endswith(("Error", "Exception")):
        return True
    return any(_is_exception(base, classes) for base in classes.get(name, ("", []))[1])


def _under_patgate_error(name: str, classes: dict[str, tuple[str, list[str]]]) -> bool:
    if name == "PatgateError":
        return True
    return any(_under_patgate_error(base, classes) for base in classes.get(name, ("", []))[1])


def test_every_exception_is_a_patgate_error() -> None:
    classes = _exception_classes()
    errors = [name for name in classes if name != "PatgateError" and _is_exception(name, classes)]
    assert len(errors) > 15
    outside = [f"{classes[n][0]}: {n}" for n in errors if not _under_patgate_error(n, classes)]
    assert outside == []


def test_the_docstring_draws_every_exception() -> None:
    classes = _exception_classes()
    drawn = patgate.errors.__doc__ or ""
    errors = [name for name in classes if _is_exception(name, classes)]
    missing = [name for name in errors if f" {name}" not in drawn and f"{name}\n" not in drawn]
    assert missing == []
