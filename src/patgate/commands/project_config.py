"""``[tool.patgate]`` applied to a command's parsed arguments, and the named targets of
``patgate run``.

The command line always wins: a key sets its flag only when the flag was not given, and a
repeatable flag given on the command line replaces the configured list (argparse would
append to a default list, so the flags given are found by parsing a second time with every
default suppressed). A configured value goes through the flag's own argparse type, so it is
held to the same bounds (``concurrency = 0`` is refused as ``--concurrency 0`` is).

A named target (``[tool.patgate.targets.staging]``) reads its keys from its world file and
its own ``PATGATE_STAGING_*`` variables (winning); the shared ``PATGATE_*`` variables do not
apply to it, so one target's secret never reaches another.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.errors import UsageError
from patgate.guards.project_file import ProjectConfig, find_project_config, secret_variable
from patgate.service.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    from patgate.runner.connection.config import TargetConfig

__all__ = ["apply_project_config", "named_targets"]


def apply_project_config(
    parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str] | None
) -> argparse.Namespace:
    """``args`` with the settings of the nearest ``[tool.patgate]`` for its command filled in
    where the command line gave none; ``args.project`` is that configuration (or ``None``),
    ``args.configured`` the destinations it set."""
    from patgate.commands.config_schema import command_parsers, flag_actions

    config = find_project_config(Path.cwd())
    args.project = config
    args.configured = set()
    if config is None:
        return args
    settings = config.settings(args.command)
    if not settings:
        return args
    sub = command_parsers(parser)[args.command]
    actions = dict(flag_actions(sub))
    given = _given_on_command_line(parser, sub, argv)
    for key, value in settings.items():
        action = actions[key]
        if action.dest not in given:
            setattr(args, action.dest, _converted(config, args.command, key, action, value))
            args.configured.add(action.dest)
    return args


def _given_on_command_line(
    parser: argparse.ArgumentParser, sub: argparse.ArgumentParser, argv: Sequence[str] | None
) -> set[str]:
    """The destinations the command line set: ``argv`` parsed again with ``sub``'s defaults
    suppressed, so only what was given lands in the namespace."""
    saved = [(action, action.default) for action in sub._actions]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        return set(vars(parser.parse_args(argv)))
    finally:
        for action, default in saved:
            action.default = default


def _converted(
    config: ProjectConfig, command: str, key: str, action: argparse.Action, value: Any
) -> Any:
    """``value`` as the flag's argparse type makes it (a list for a repeatable flag)."""
    if isinstance(action, argparse._StoreTrueAction):
        return bool(value)
    convert: Any = action.type or str
    try:
        if isinstance(action, argparse._AppendAction):
            values = value if isinstance(value, list) else [value]
            return [convert(str(item)) for item in values]
        return convert(str(value))
    except (argparse.ArgumentTypeError, ValueError) as error:
        raise UsageError(f"{config.locate(command, key)}: {key}: {error}") from None


def named_targets(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> list[tuple[str, TargetConfig]] | None:
    """The named targets ``patgate run`` checks in turn, ``(name, config)``: those ``--target``
    selects, else every one, when the configuration names targets and neither ``--world``
    nor a target key's flag is given; ``None`` otherwise (the run resolves its targets as
    without a configuration)."""
    config: ProjectConfig | None = getattr(args, "project", None)
    targets = config.targets() if config is not None else {}
    chosen: list[str] = list(dict.fromkeys(getattr(args, "target", None) or ()))
    flags = [key for key in TARGET_KEYS if getattr(args, key, None)]
    configured: set[str] = getattr(args, "configured", set())
    if "target" in configured and any(
        dest not in configured for dest in ("world", *flags) if getattr(args, dest, None)
    ):
        chosen = []  # a --world or key flag on the command line wins over a configured target
    if chosen and (args.world or flags):
        given = "--world" if args.world else "--" + flags[0].replace("_", "-")
        raise UsageError(f"--target and {given} cannot be combined: a named target has its own")
    if not chosen and (not targets or args.world or flags):
        return None
    for name in chosen:
        if config is None:
            raise UsageError("--target: no pyproject.toml with [tool.patgate.targets] was found")
        if name not in targets:
            near = difflib.get_close_matches(name, list(targets), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise UsageError(f"--target: {config.path} names no target {name!r}{hint}")
    resolved = []
    for name in chosen or list(targets):
        resolved.append((name, _target(name, targets[name], environ)))
    return resolved


def _target(name: str, table: Mapping[str, Any], environ: Mapping[str, str] | None) -> TargetConfig:
    """One named target: its world file < its own ``PATGATE_<NAME>_*`` variables."""
    from patgate.runner.connection.config import resolve_target_config

    world = Path(table["world"]) if table.get("world") else None
    prefix = secret_variable("", name)  # PATGATE_STAGING_
    environment = os.environ if environ is None else environ
    found = resolve_target_config(world, environment, variables=prefix)
    if found is None:
        raise UsageError(
            f"target {name!r} names no deployment: give it a world file in "
            f"[tool.patgate.targets.{name}] or set {prefix}BASE_URL"
        )
    return found
