"""The reference pages of the documentation site, generated from the code and the specs.

The site's build (``mkdocs build``) calls :func:`render_all` through ``mkdocs_hook.py``; the
pages exist only in the built site, never as files to keep in step. Each page is rendered
from a registry, a parser, a module's names or a spec file, so a new flag, export, fixture,
step kind, check, error class, profile field or control path shows up by itself, and
``tests/docs_site`` proves that for each page.

Every module path and spec file the generator reads is named in :data:`SOURCES` and
:data:`SPECS` below and nowhere else: when a module moves, its line here is the only fix.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root."""

SOURCES: Mapping[str, str] = {
    "cli": "patgate.cli",
    "commands": "patgate.commands",
    "errors": "patgate.errors",
    "package": "patgate",
    "plugin": "patgate.pytest_plugin",
    "step_kinds": "patgate.scenario.step_kinds",
    "checks": "patgate.scenario.check_kinds",
    "control_actions": "patgate.scenario.control_actions",
    "expressions": "patgate.scenario.expressions",
    "catalogue": "patgate.scenario",
}
"""What the pages read -> the module that holds it."""

SPECS: Mapping[str, Path] = {
    "scenario": ROOT / "specs" / "scenario.schema.json",
    "rules": ROOT / "specs" / "rules.yaml",
    "profile": ROOT / "specs" / "profile.schema.json",
    "default_profile": ROOT / "src" / "patgate" / "fake" / "default_profile.json",
    "control": ROOT / "specs" / "control-openapi.yaml",
    "scenarios": ROOT / "scenarios",
}
"""The spec files the pages read."""


def source(name: str) -> Any:
    """The module :data:`SOURCES` names ``name``."""
    return importlib.import_module(SOURCES[name])


def cell(text: object) -> str:
    """``text`` as one Markdown table cell: one line, ``|`` escaped, HTML-like text shown."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    # Outside code spans, ``<name>`` would be taken for an HTML tag and ``PATGATE_*`` for
    # the start of emphasis.
    pieces = flat.split("`")
    pieces[::2] = [re.sub(r"([*_])", r"\\\1", piece).replace("<", "&lt;") for piece in pieces[::2]]
    return "`".join(pieces)


def code(text: object) -> str:
    """``text`` as a Markdown code span inside a table cell: one line, ``|`` escaped."""
    return "`" + " ".join(str(text).split()).replace("|", "\\|") + "`"


def from_rst(text: str) -> str:
    """A docstring's reStructuredText roles and double backticks as Markdown code."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line, in Markdown."""
    if not doc:
        return ""
    return " ".join(from_rst(doc.strip().split("\n\n", 1)[0]).split())


def generated_notice(*what: str) -> str:
    """The line under a page's title saying what it is generated from."""
    return f"*Generated from {', '.join(what)} at every build of this site.*\n"


def _pages() -> dict[str, Callable[[], str]]:
    from docs.reference_pages import (
        api_page,
        cli_page,
        control_page,
        errors_page,
        profile_page,
        rules_page,
        scenario_page,
    )

    return {
        "docs/reference/cli.md": cli_page.render,
        "docs/reference/python-api.md": api_page.render,
        "docs/reference/scenario-format.md": scenario_page.render,
        "docs/reference/rules.md": rules_page.render,
        "docs/reference/profile.md": profile_page.render,
        "docs/reference/errors.md": errors_page.render,
        "docs/reference/control-api.md": control_page.render,
    }


def page_paths() -> list[str]:
    """The generated pages, as paths from the repository's root (``docs/reference/...``)."""
    return list(_pages())


def render_all() -> dict[str, str]:
    """Generated page (its path from the repository's root) -> its Markdown."""
    return {path: render() for path, render in _pages().items()}


def schema_type(fragment: Any) -> str:
    """A JSON Schema fragment's type in a few words: ``string``, ``one of a, b``..."""
    if not isinstance(fragment, dict):
        return "anything" if fragment is True else ""
    if "const" in fragment:
        return f"`{_json(fragment['const'])}`"
    if "enum" in fragment:
        return "one of " + ", ".join(f"`{_json(value)}`" for value in fragment["enum"])
    if "$ref" in fragment:
        return f"`{fragment['$ref'].rsplit('/', 1)[-1]}`"
    for combined in ("anyOf", "oneOf"):
        if combined in fragment:
            return " or ".join(filter(None, map(schema_type, fragment[combined])))
    kind = fragment.get("type", "")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and isinstance(fragment.get("items"), dict):
        return f"list of {schema_type(fragment['items']) or 'values'}"
    if kind == "object" and isinstance(fragment.get("additionalProperties"), dict):
        return f"map of {schema_type(fragment['additionalProperties']) or 'values'}"
    return str(kind)


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
