"""The schema of ``[tool.patgate]`` (``specs/config.schema.json``), generated from the
commands' parsers so it never lags behind a flag: each long flag is a key, its type the
flag's (a repeatable flag takes a list), a path marked for resolving against the
``pyproject.toml``'s folder. Regenerate with ``python -m patgate.commands.config_schema``;
``tests/test_project_config.py`` fails when the published file differs.

Left out: ``--help`` and ``--version``, positional arguments, and the flags of secret keys
(a secret does not belong in a file kept with the project; ``PATGATE_*`` variables hold it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from patgate.guards.project_file import COMMAND_TABLES, CONFIG_SCHEMA, PATH_ANNOTATION
from patgate.service.target_contract import SECRET_KEYS

__all__ = ["command_parsers", "config_schema", "flag_actions", "write"]

_TYPES: dict[str, dict[str, Any]] = {
    "whole_number.<locals>.parse": {"type": "integer"},
    "seconds.<locals>.parse": {"type": "number", "minimum": 0},
    "origin": {"type": "string"},
    "Path": {"type": "string", PATH_ANNOTATION: "path"},
    "str": {"type": "string"},
}
"""An argparse type's name -> the JSON Schema of its value. A flag of any other type stops
the generation (so the schema never guesses)."""


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser of ``patgate``'s ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise LookupError("the patgate parser has no subcommands")


def flag_actions(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    """``(key, action)`` for each flag a configuration may set: the key is the long flag's
    name without its dashes (``allow-writes``)."""
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        if action.dest.replace("-", "_") in SECRET_KEYS:
            continue
        longest = max(action.option_strings, key=len)
        if longest.startswith("--"):
            yield longest[2:], action


def _value_schema(action: argparse.Action) -> dict[str, Any]:
    if isinstance(action, argparse._StoreTrueAction):
        return {"type": "boolean"}
    type_function: Callable[..., Any] | None = action.type  # type: ignore[assignment]
    name = "str" if type_function is None else getattr(type_function, "__qualname__", "")
    if name not in _TYPES:
        raise TypeError(f"{action.option_strings}: no JSON Schema for the type {name!r}")
    schema = dict(_TYPES[name])
    if action.choices is not None:
        schema["enum"] = sorted(action.choices)
    if action.metavar == "KIND:PATH":
        schema[PATH_ANNOTATION] = "kind:path"
    return schema


def _key_schema(action: argparse.Action) -> dict[str, Any]:
    value = _value_schema(action)
    # A repeatable flag takes a list, or one value (``world = "ci/staging.json"`` at the top
    # level serves run, which repeats --world, and every command that takes one).
    repeatable = isinstance(action, argparse._AppendAction)
    schema = {"anyOf": [{"type": "array", "items": value}, value]} if repeatable else value
    if action.help:
        schema = {"description": action.help.replace("%%", "%"), **schema}
    return schema


def _table(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": properties}


def config_schema(parser: argparse.ArgumentParser | None = None) -> dict[str, Any]:
    """The schema of ``[tool.patgate]`` for ``parser`` (default: every command's, as
    ``patgate.cli.build_parser`` builds them; a test holds the two to one another)."""
    if parser is None:
        parser = _commands_parser()
    commands = command_parsers(parser)
    if tuple(commands) != COMMAND_TABLES:
        raise ValueError(f"COMMAND_TABLES must list {tuple(commands)}")
    defs: dict[str, Any] = {
        name: _table({key: _key_schema(action) for key, action in flag_actions(sub)})
        for name, sub in commands.items()
    }
    properties = _top_level(defs)
    properties |= {name: {"$ref": f"#/$defs/{name}"} for name in commands}
    properties["targets"] = {
        "description": "named targets `patgate run` checks in turn; each reads its secrets "
        "from PATGATE_<NAME>_<KEY> variables",
        "type": "object",
        "additionalProperties": {"$ref": "#/$defs/target"},
    }
    defs["target"] = _table({"world": {"description": "the target's world file", **_TYPES["Path"]}})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:patgate:schema:config",
        "title": "[tool.patgate] in pyproject.toml",
        "description": "patgate's settings: each key a long flag of a command, at the top "
        "level (every command with that flag) or in a command's table (winning); the "
        "command line wins over both",
        **_table(properties),
        "$defs": defs,
    }


def _top_level(defs: dict[str, Any]) -> dict[str, Any]:
    """The top-level keys: every command's flags; a key whose value differs between
    commands (``world``: a list for ``run``, one path elsewhere) takes either, and the
    command's own table's schema is checked when the settings are applied."""
    described: dict[str, str] = {}
    top: dict[str, list[dict[str, Any]]] = {}
    for table in defs.values():
        for key, schema in table["properties"].items():
            if key in COMMAND_TABLES or key == "targets":
                continue  # a command's table (cleanup's --run is set in [tool.patgate.cleanup])
            bare = {part: value for part, value in schema.items() if part != "description"}
            described.setdefault(key, schema.get("description", key))
            variants = top.setdefault(key, [])
            for variant in bare.get("anyOf", [bare]):
                if variant not in variants:
                    variants.append(variant)
    return {
        key: {"description": described[key], **variants[0]}
        if len(variants) == 1
        else {"description": described[key], "anyOf": variants}
        for key, variants in sorted(top.items())
    }


def _commands_parser() -> argparse.ArgumentParser:
    """A parser of every subcommand, each configured by its module (commands stand below
    the CLI, so this one does not import it)."""
    import importlib

    parser = argparse.ArgumentParser(prog="patgate")
    subparsers = parser.add_subparsers(dest="command")
    for name in COMMAND_TABLES:
        importlib.import_module(f"patgate.commands.{name}").configure(subparsers.add_parser(name))
    return parser


def render() -> str:
    """The schema's text as published."""
    return json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n"


def write(folder: Path) -> None:
    """Write the schema into ``folder`` (the specification folder)."""
    (folder / CONFIG_SCHEMA).write_text(render(), encoding="utf-8")


if __name__ == "__main__":
    from patgate.basics.resources import specs_dir

    write(Path(sys.argv[1]) if len(sys.argv) > 1 else specs_dir())
