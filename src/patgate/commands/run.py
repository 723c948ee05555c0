"""``patgate run``: run the conformance scenarios against the embedded fake or a deployment.

With no target key from any source, the run uses the embedded fake (writes allowed, the
clock under control). A world file, ``PATGATE_*`` variables or flags describe a live target
instead. The terminal view is always printed; ``--report KIND:PATH`` adds files. The exit
code is 0 when no gate rule failed, 1 when one did (or a warning, with ``--strict``), 2 for
a usage or configuration error and 3 when the target cannot be reached.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.scenario import Catalogue, Scenario

__all__ = ["configure", "main"]

_KEY_HELP = {
    "auth_url": "base of the authorization server ({auth_url}/oauth/token)",
    "base_url": "base of the content API host ({base_url}/v2/content/hubs)",
    "graphql_url": "the GraphQL endpoint (default {base_url}/graphql)",
    "client_id": "an API key (client id)",
    "client_secret": "its secret",
    "organization_id": "the organization (discovered through viewer when absent)",
    "admin_token": "a bearer token of an organization admin (a PAT works)",
    "member_token": "a bearer token of a member who is not an admin",
    "removed_token": "a PAT of a user who was removed from the organization",
    "unpermitted_token": "a PAT of a member without content permission",
    "pat_prefix": "the fixed PAT prefix (default amp_pat_)",
}


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seconds cannot be negative: {text!r}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate run`` to ``parser``."""
    target = parser.add_argument_group(
        "target",
        "Without any of these (or PATGATE_* variables), the run uses the embedded fake. "
        "Priority: flags > PATGATE_* variables > the world file.",
    )
    target.add_argument(
        "--world", type=Path, metavar="PATH", help="a target file (JSON or YAML) of the keys below"
    )
    for key, text in _KEY_HELP.items():
        target.add_argument(f"--{key.replace('_', '-')}", dest=key, metavar="VALUE", help=text)
    choice = parser.add_argument_group("what to run")
    choice.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        metavar="PATH",
        help="a scenario folder or file instead of the built-in ones (repeatable)",
    )
    choice.add_argument(
        "--rule", action="append", metavar="ID", help="only scenarios covering this rule"
    )
    choice.add_argument("--scenario", action="append", metavar="ID", help="only this scenario")
    behaviour = parser.add_argument_group("run")
    behaviour.add_argument(
        "--allow-writes",
        action="store_true",
        help="on a live target, run scenarios that create and delete tokens",
    )
    behaviour.add_argument(
        "--max-wait",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="longest real wait a live scenario may take (default 0: such checks are skipped)",
    )
    behaviour.add_argument("--strict", action="store_true", help="advisory warnings fail the run")
    behaviour.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="also write a report: json:PATH, junit:PATH or html:PATH (repeatable)",
    )
    behaviour.add_argument(
        "--connect-timeout", type=_seconds, default=5.0, metavar="SECONDS", help="default 5"
    )
    behaviour.add_argument(
        "--read-timeout", type=_seconds, default=30.0, metavar="SECONDS", help="default 30"
    )


def main(args: argparse.Namespace) -> int:
    """Run the scenarios and report; the exit code of the run."""
    from patgate.reporting import make_reporter
    from patgate.resources import scenarios_dir
    from patgate.runner import FakeTarget, LiveTarget, RunOptions, resolve_target_config, run
    from patgate.runner.events import RunFinished
    from patgate.runner.target import Target
    from patgate.scenario import load_catalogue, load_scenarios
    from patgate.scenario.model import TARGET_KEYS

    catalogue = load_catalogue()
    scenarios = load_scenarios(args.scenarios or [scenarios_dir()], catalogue=catalogue)
    selected = _select(scenarios, args.rule, args.scenario, catalogue)
    flags = {key: getattr(args, key, None) for key in TARGET_KEYS}
    config = resolve_target_config(args.world, os.environ, flags)
    reporters = [make_reporter("terminal", stream=sys.stdout)]
    reporters += [
        make_reporter(spec, stream=sys.stdout) for spec in args.report if spec != "terminal"
    ]
    target: Target = FakeTarget() if config is None else LiveTarget(config)
    options = RunOptions(
        allow_writes=args.allow_writes,
        max_wait=args.max_wait,
        strict=args.strict,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        every_rule=not (args.rule or args.scenario),
    )
    code = 0
    try:
        for event in run(selected, target, options, catalogue=catalogue):
            for reporter in reporters:
                reporter.handle(event)
            if isinstance(event, RunFinished):
                code = event.exit_code
    finally:
        for reporter in reporters:
            reporter.close()
    return code


def _select(
    scenarios: tuple[Scenario, ...],
    rules: list[str] | None,
    ids: list[str] | None,
    catalogue: Catalogue,
) -> tuple[Scenario, ...]:
    """The scenarios the user asked for (all of them without --rule and --scenario)."""
    for rule in rules or ():
        if rule not in catalogue:
            raise UsageError(f"unknown rule {rule!r} (see `patgate rules`)")
    known = {scenario.id for scenario in scenarios}
    for scenario_id in ids or ():
        if scenario_id not in known:
            raise UsageError(f"unknown scenario {scenario_id!r}")
    if not rules and not ids:
        return scenarios
    chosen = [
        s
        for s in scenarios
        if (ids and s.id in ids) or (rules and any(rule in s.rules for rule in rules))
    ]
    if not chosen:
        raise UsageError("no scenario covers the rules asked for")
    return tuple(chosen)
