"""A plain ``pip install patgate`` brings no third-party pytest plugin into a user's sessions.

The installed packages' own metadata is walked from ``pyproject.toml``'s dependencies (no
build, no network): every package a plain install pulls in, transitively, is checked for a
``pytest11`` entry point.

One exception, named: anyio, which httpx itself requires. Any project that uses httpx has it
already, and its plugin does nothing until a test asks for it.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
HTTPX_OWN = {"anyio": "httpx requires it"}

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's CI runs 3.11
    tomllib = pytest.importorskip("tomli", reason="needs tomli on Python 3.10: pip install tomli")


def _plain_dependencies() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in project["dependencies"]]


def _closure(roots: list[Requirement]) -> dict[str, metadata.Distribution]:
    """Every installed distribution a plain install of ``roots`` needs, by canonical name."""
    found: dict[str, metadata.Distribution] = {}
    pending = list(roots)
    while pending:
        requirement = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue  # an extra's requirement, or another platform's
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        try:
            distribution = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            pytest.fail(f"{requirement.name} is a dependency but is not installed here")
        found[name] = distribution
        pending.extend(Requirement(text) for text in distribution.requires or [])
    return found


def test_a_plain_install_pulls_no_pytest_plugin_but_patgate() -> None:
    closure = _closure(_plain_dependencies())
    assert "httpx" in closure  # the walk did find the dependencies
    plugins = {
        name: [entry.name for entry in distribution.entry_points if entry.group == "pytest11"]
        for name, distribution in closure.items()
    }
    assert {name: found for name, found in plugins.items() if found and name not in HTTPX_OWN} == {}
    httpx_needs = {canonicalize_name(Requirement(r).name) for r in metadata.requires("httpx") or []}
    assert set(HTTPX_OWN) <= httpx_needs  # still httpx's own, not one patgate added
    assert "faker" not in closure


def test_patgate_itself_registers_one_plugin() -> None:
    entries = [e for e in metadata.distribution("patgate").entry_points if e.group == "pytest11"]
    assert [(e.name, e.value) for e in entries] == [("patgate", "patgate.pytest_plugin")]


def test_the_walk_would_see_a_plugin_pulled_in() -> None:
    """The check can fail: with the test extra's pytest-httpx as a dependency, it does."""
    closure = _closure([*_plain_dependencies(), Requirement("pytest-httpx")])
    assert any(e.group == "pytest11" for e in closure["pytest-httpx"].entry_points)
