"""``reference/python-api.md``: ``patgate.__all__`` by mkdocstrings, and what the pytest
plugin registers (fixtures, markers, ini options, command-line options)."""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from typing import Any

from docs.reference_pages import cell, code, first_paragraph, from_rst, generated_notice, source


def exports() -> list[str]:
    """The public names of the package, in ``__all__``'s order."""
    return list(source("package").__all__)


def fixtures() -> dict[str, str]:
    """Fixture name -> its docstring, for each fixture the plugin module defines."""
    from _pytest.fixtures import getfixturemarker

    plugin = source("plugin")
    found = {}
    for name, value in vars(plugin).items():
        marker = getfixturemarker(value)
        if marker is not None:
            doc = getattr(value, "__doc__", None) or ""
            text = from_rst(_dedent(doc))
            for label in ("Scope", "Type", "Default"):  # one paragraph each
                text = text.replace(f"\n{label}:", f"\n\n**{label}**:")
            found[marker.name or name] = text
    return found


def _dedent(doc: str) -> str:
    import inspect

    return inspect.cleandoc(doc)


class _RecordingConfig:
    """Just enough of ``pytest.Config`` for the plugin's ``pytest_configure`` to register
    its markers here (no option is given, no other plugin is loaded)."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {}
        self.pluginmanager = types.SimpleNamespace(
            hasplugin=lambda name: False, register=lambda *args: None
        )

    def getoption(self, name: str, default: Any = None) -> Any:
        return default

    def addinivalue_line(self, name: str, line: str) -> None:
        self.lines.setdefault(name, []).append(line)


def markers() -> dict[str, str]:
    """Marker signature (``patgate(...)``) -> its help, as the plugin registers them."""
    config = _RecordingConfig()
    source("plugin").pytest_configure(config)
    found = {}
    for line in config.lines.get("markers", []):
        parsed = re.match(r"(\w+(?:\([^)]*\))?):\s*(.*)", line, re.DOTALL)
        signature, text = parsed.groups() if parsed else (line, "")
        found[signature] = text.strip()
    return found


def options() -> tuple[dict[str, tuple[str, str, Any]], list[tuple[list[str], Any, str]]]:
    """The plugin's ini options (name -> help, type, default) and command-line options."""
    from _pytest.config.argparsing import Parser

    parser = Parser(_ispytest=True)
    source("plugin").pytest_addoption(parser)
    ini = {name: tuple(entry[:3]) for name, entry in parser._inidict.items()}
    flags = [
        (option.names(), option.attrs().get("default"), option.attrs().get("help", ""))
        for group in parser._groups
        for option in group.options
    ]
    return ini, flags  # type: ignore[return-value]


def _shown(default: Any) -> str:
    return "" if default in (None, "", [], False) else f"`{default}`"


def _pytest_section() -> Iterator[str]:
    yield "## The pytest plugin"
    yield ""
    yield first_paragraph(source("plugin").__doc__)
    yield ""
    yield "It is installed with patgate (pytest finds it by its `pytest11` entry point)."
    yield ""
    yield "### Fixtures"
    for name, doc in fixtures().items():
        yield from ("", f"#### `{name}`", "", doc)
    yield from ("", "### Markers", "", "| marker | meaning |", "|---|---|")
    for signature, text in markers().items():
        yield f"| {code('@pytest.mark.' + signature)} | {cell(text)} |"
    ini, flags = options()
    yield from ("", "### Command-line options", "")
    yield from ("| option | default | meaning |", "|---|---|---|")
    for names, default, text in flags:
        yield f"| {code(', '.join(names))} | {cell(_shown(default))} | {cell(text)} |"
    yield from ("", "### Ini options", "")
    yield "Set in `pytest.ini`, or in `[tool.pytest.ini_options]` of `pyproject.toml`."
    yield from ("", "| option | type | default | meaning |", "|---|---|---|---|")
    for name, (text, kind, default) in ini.items():
        yield f"| `{name}` | {cell(kind or 'string')} | {cell(_shown(default))} | {cell(text)} |"
    yield ""


def render() -> str:
    """The page."""
    lines = [
        "# Python API",
        "",
        generated_notice("`patgate.__all__` and the docstrings", "the pytest plugin"),
        "Every name below is importable from the package itself (`from patgate import Fake`);",
        "nothing else is public.",
        "",
        "| name | what it is |",
        "|---|---|",
    ]
    package = source("package")
    for name in exports():
        summary = first_paragraph(getattr(getattr(package, name), "__doc__", None))
        if not isinstance(getattr(package, name), (type, types.FunctionType)):
            summary = ""  # a constant's __doc__ is its type's
        lines.append(f"| [`{name}`](#patgate.{name}) | {cell(summary)} |")
    lines.append("")
    for name in exports():
        lines += [f"::: patgate.{name}", ""]
    lines += list(_pytest_section())
    return "\n".join(lines)
