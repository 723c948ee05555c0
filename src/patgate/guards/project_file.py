"""``[tool.patgate]`` in the project's ``pyproject.toml``: patgate's settings kept with the
project, read by the CLI and the pytest plugin.

The file is found like pytest finds its rootdir: from a folder upward, the first
``pyproject.toml`` that has a ``[tool.patgate]`` table; the search stops at a folder holding
``.git`` (the repository's root, searched too) and at the filesystem root. Keys are the long
flag names of the commands (``report``, ``allow-writes``), at the top level (every command
that has the flag) or in a command's table (``[tool.patgate.run]``, winning over the top
level); ``[tool.patgate.targets.NAME]`` names the targets ``patgate run`` checks in turn.

The table is checked against ``specs/config.schema.json`` (generated from the commands'
parsers, see :mod:`patgate.commands.config_schema`); anything wrong is a
:class:`~patgate.errors.UsageError` naming the file, the line, the key and the nearest known
name. Paths are relative to the ``pyproject.toml``'s folder. A secret never belongs in the
file: a key holding one is refused with the variable to use instead.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.errors import UsageError
from patgate.service.target_contract import SECRET_KEYS

__all__ = [
    "COMMAND_TABLES",
    "CONFIG_SCHEMA",
    "PATH_ANNOTATION",
    "ProjectConfig",
    "configured",
    "find_project_config",
    "secret_variable",
]

CONFIG_SCHEMA = "config.schema.json"
"""The schema's file in the specification folder (``patgate schema config`` prints it)."""
PATH_ANNOTATION = "x-patgate-path"
"""The schema keyword marking a key whose value is a path (``path``) or ``KIND:PATH``
(``kind:path``), resolved against the ``pyproject.toml``'s folder."""
COMMAND_TABLES = ("run", "rules", "serve", "cleanup", "fuzz", "calibrate", "compare", "schema")
"""The per-command tables, one per subcommand of ``patgate``."""
_TABLE = "tool.patgate"
_TARGET_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def secret_variable(key: str, target: str = "") -> str:
    """The variable that holds ``key`` (``client_secret``): ``PATGATE_CLIENT_SECRET``, or
    for a named target ``PATGATE_STAGING_CLIENT_SECRET``."""
    prefix = f"PATGATE_{target.upper().replace('-', '_')}_" if target else "PATGATE_"
    return prefix + key.upper().replace("-", "_")


@dataclass(frozen=True)
class ProjectConfig:
    """The ``[tool.patgate]`` table of one ``pyproject.toml``, checked against the schema."""

    path: Path
    """The ``pyproject.toml`` it was read from."""
    table: Mapping[str, Any]
    """The table as written."""

    @property
    def folder(self) -> Path:
        """The folder relative paths are read from."""
        return self.path.parent

    def settings(self, command: str) -> dict[str, Any]:
        """The keys that apply to ``command``: the top-level keys it has a flag for, then its
        own table's (winning); paths resolved. A value wrong for this command (a list where
        it takes one path) is a :class:`UsageError`."""
        schema = _schema()["$defs"][command]
        known = schema["properties"]
        merged = {
            key: value
            for key, value in self.table.items()
            if key in known and key not in COMMAND_TABLES and key != "targets"
        }
        merged.update(self.table.get(command, {}))
        _check(self, {"$ref": f"#/$defs/{command}"}, merged, [command])
        return {key: self._resolved(value, known[key]) for key, value in merged.items()}

    def locate(self, command: str, key: str) -> str:
        """Where ``key`` is set for ``command``: ``FILE:LINE: [tool.patgate.run]``."""
        where = [command] if key in self.table.get(command, {}) else []
        return f"{self.path}:{_line(self, [*where, key])}: {_where(where)}"

    def targets(self) -> dict[str, dict[str, Any]]:
        """``[tool.patgate.targets.NAME]`` in the file's order, paths resolved."""
        known = _schema()["$defs"]["target"]["properties"]
        return {
            name: {key: self._resolved(value, known[key]) for key, value in table.items()}
            for name, table in self.table.get("targets", {}).items()
        }

    def _resolved(self, value: Any, schema: Mapping[str, Any]) -> Any:
        kinds = [schema, *schema.get("anyOf", ())]
        kind = next((part[PATH_ANNOTATION] for part in kinds if PATH_ANNOTATION in part), None)
        if kind is None:
            return value
        if isinstance(value, list):
            return [self._path(item, kind) for item in value]
        return self._path(value, kind)

    def _path(self, text: str, kind: str) -> str:
        if kind == "kind:path" and ":" in text:
            prefix, _, rest = text.partition(":")
            return f"{prefix}:{self.folder / rest}"
        return str(self.folder / text)


def find_project_config(start: Path) -> ProjectConfig | None:
    """The ``[tool.patgate]`` table nearest above ``start`` (see the module's docstring), or
    ``None``; a file that is not TOML, or a table the schema refuses, is a
    :class:`UsageError` naming the file."""
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            found = _read(path)
            if found is not None:
                return found
        if (candidate / ".git").exists():
            return None
    return None


def configured(start: Path, command: str, key: str) -> Any:
    """``key``'s value for ``command`` in the ``[tool.patgate]`` nearest above ``start``
    (a path resolved against its file's folder), or ``None``."""
    found = find_project_config(start)
    return found.settings(command).get(key) if found is not None else None


def _read(path: Path) -> ProjectConfig | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 reads TOML with tomli (pyproject's dependency)
        import tomli as tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    if "patgate" not in text:
        return None  # the cheap answer for every project that does not configure patgate
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path} is not valid TOML: {error}") from None
    table = document.get("tool", {}).get("patgate") if isinstance(document, dict) else None
    if table is None:
        return None
    config = ProjectConfig(path, table)
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [{_TABLE}] must be a table")
    _refuse_secrets(config, table, [])
    _check(config, _schema(), table, [])
    for name in table.get("targets", {}):
        if not _TARGET_NAME.fullmatch(name):
            raise UsageError(
                f"{path}:{_line(config, ['targets', name])}: [{_TABLE}.targets.{name}]: a "
                "target's name is letters, digits, '_' and '-', starting with a letter"
            )
    return config


def _refuse_secrets(config: ProjectConfig, table: Mapping[str, Any], where: list[str]) -> None:
    """A secret's key anywhere in the table: refused before the schema (whose answer would
    be "unknown key") with the variable that should hold it."""
    for key, value in table.items():
        if isinstance(value, dict):
            _refuse_secrets(config, value, [*where, key])
        elif key.replace("-", "_") in SECRET_KEYS:
            target = where[1] if len(where) == 2 and where[0] == "targets" else ""
            variable = secret_variable(key, target)
            raise UsageError(
                f"{config.path}:{_line(config, [*where, key])}: {_where(where)}: {key} is a "
                f"secret and does not belong in pyproject.toml; set {variable} instead"
            )


def _check(
    config: ProjectConfig, schema: Mapping[str, Any], value: Any, where: Sequence[str]
) -> None:
    from jsonschema import Draft202012Validator

    full = {**schema, "$defs": _schema()["$defs"]}
    errors = sorted(
        Draft202012Validator(full).iter_errors(value), key=lambda e: -len(e.absolute_path)
    )
    if not errors:
        return
    error = errors[0]
    at = [*where, *(str(part) for part in error.absolute_path)]
    if error.validator == "additionalProperties":
        allowed = _allowed(error.schema)
        unknown = next(key for key in error.instance if key not in allowed)
        near = difflib.get_close_matches(unknown, allowed, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]!r}?" if near else f" (known: {', '.join(allowed)})"
        message = f"unknown key {unknown!r}{hint}"
        at.append(unknown)
    elif error.validator in ("type", "anyOf", "oneOf"):
        expected = _expected(error.schema)
        message = f"{at[-1] if at else 'the table'} must be {expected}, got {error.instance!r}"
    else:
        message = f"{at[-1] if at else 'the table'}: {error.message}"
    table = _where([part for part in at[:-1] if not part.isdigit()])
    raise UsageError(f"{config.path}:{_line(config, at)}: {table}: {message}")


def _allowed(schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    return sorted(properties) if isinstance(properties, dict) else []


def _expected(schema: Mapping[str, Any]) -> str:
    kinds = [schema.get("type"), *(part.get("type") for part in schema.get("anyOf", []))]
    words = {"array": "a list", "boolean": "true or false", "integer": "a whole number"}
    words |= {"number": "a number", "string": "a string", "object": "a table"}
    return " or ".join(words.get(str(kind), str(kind)) for kind in kinds if kind)


def _where(keys: Sequence[str]) -> str:
    """``[tool.patgate.run]``: the table a key sits in."""
    return "[" + ".".join([_TABLE, *keys]) + "]"


def _line(config: ProjectConfig, at: Sequence[str]) -> int:
    """The line that writes the last key of ``at`` (1 when it cannot be found): tomllib
    keeps no positions, so the text is searched for ``key =`` or the key's table header."""
    if not at:
        return 1
    key = re.escape(str(at[-1]))
    pattern = re.compile(rf'^\s*(?:["\']?{key}["\']?\s*=|\[[^\]]*\b{key}\s*\])', re.MULTILINE)
    table = r"\.".join(re.escape(part) for part in ["tool", "patgate", *at[:-1]])
    header = re.compile(rf"^\s*\[\s*{table}\s*\]", re.MULTILINE)
    text = config.path.read_text(encoding="utf-8")
    opened = header.search(text)
    found = pattern.search(text, opened.end() if opened else 0) or pattern.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((specs_dir() / CONFIG_SCHEMA).read_text(encoding="utf-8"))
    return loaded
