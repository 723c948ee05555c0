"""patgate's uses of httpx's private parts: all in one module, checked, and in step with the
httpx range that pyproject.toml declares."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement

from patgate.errors import UsageError
from patgate.guards.httpx_private import SUPPORTED, TRANSPORT_HOOK, hooked_clients, use_pool
from patgate.runner.connection.deadline import Deadlines, deadline_transport

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's CI runs 3.11 and 3.13
    tomllib = pytest.importorskip("tomli", reason="needs tomli on Python 3.10: pip install tomli")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "patgate"
PRIVATE_NAMES = {TRANSPORT_HOOK, "_pool"}


def test_the_supported_range_is_the_declared_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (declared,) = [r for r in map(Requirement, project["dependencies"]) if r.name == "httpx"]
    assert Requirement(SUPPORTED).specifier == declared.specifier
    assert declared.specifier.contains(httpx.__version__)  # the httpx this suite runs on


def test_no_other_module_names_httpxs_private_parts() -> None:
    """Only httpx_private.py reads or sets them; the interception's wrapper may share the
    hook's name as its own function name."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "httpx_private.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = node.attr if isinstance(node, ast.Attribute) else None
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = node.value
            if named in PRIVATE_NAMES:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_this_httpx_has_both_parts() -> None:
    assert hooked_clients() == (httpx.Client, httpx.AsyncClient)
    assert isinstance(deadline_transport(Deadlines(), connections=2), httpx.HTTPTransport)


def test_an_httpx_without_the_pool_gets_a_clear_error() -> None:
    class Bare(httpx.BaseTransport):
        pass

    with pytest.raises(UsageError, match=r"HTTPTransport\._pool.*pip install 'httpx>=0\.27,<1'"):
        use_pool(Bare(), None)  # type: ignore[arg-type]
