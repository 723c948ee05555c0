"""``patgate run``: run the conformance scenarios against the embedded fake or a deployment.

With no target key from any source, the run uses the embedded fake (writes allowed, the
clock under control). A world file, ``PATGATE_*`` variables or flags describe a live target
instead. The terminal view is always printed; ``--report KIND:PATH`` adds files.

Every token the run creates is written to a ledger first (``--ledger``, ``PATGATE_LEDGER``,
default ``.patgate/ledger.jsonl`` on a live target, memory on the embedded fake) and deleted
before the run ends, also after a failure, Ctrl-C or SIGTERM.

Exit codes: 0 no gate rule failed and nothing was left behind; 1 a gate rule failed (or a
warning, with ``--strict``), or a token was left behind or a delete refused; 2 a usage or
configuration error; 3 the target cannot be reached; 130 / 143 interrupted by SIGINT /
SIGTERM (after the cleanup, with the counts printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.commands.arguments import add_network_bounds, add_timeouts, network_policy, seconds
from patgate.errors import PatgateError, UsageError

if TYPE_CHECKING:
    from patgate.redaction import Redactor
    from patgate.runner.target import TargetConfig
    from patgate.scenario import Catalogue, Scenario

__all__ = [
    "DEFAULT_LEDGER",
    "configure",
    "configure_network",
    "configure_target",
    "internal_error",
    "ledger_path",
    "main",
    "scrub",
    "target_redactor",
]

DEFAULT_LEDGER = Path(".patgate") / "ledger.jsonl"
"""Where a live run's ledger goes unless ``--ledger`` or ``PATGATE_LEDGER`` says otherwise."""

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
    "ui_url": "the management page, for a person or a browser (no scenario needs it)",
}


_TARGET_HELP = (
    "Without any of these (or PATGATE_* variables), the run uses the embedded fake. "
    "Priority: flags > PATGATE_* variables > the world file."
)


def configure_target(parser: argparse.ArgumentParser, description: str = _TARGET_HELP) -> None:
    """The target options (``--world`` and one flag per target key), shared with cleanup."""
    target = parser.add_argument_group("target", description)
    target.add_argument(
        "--world", type=Path, metavar="PATH", help="a target file (JSON or YAML) of the keys below"
    )
    for key, text in _KEY_HELP.items():
        target.add_argument(f"--{key.replace('_', '-')}", dest=key, metavar="VALUE", help=text)


def configure_network(group: argparse._ArgumentGroup) -> None:
    """Timeouts, the retry budget and where requests may go, shared with cleanup."""
    add_timeouts(group)
    add_network_bounds(group)
    group.add_argument(
        "--retry-budget",
        type=seconds(zero_allowed=True),
        default=60.0,
        metavar="SECONDS",
        help="total seconds of waiting after 429/503 answers over the run (default 60)",
    )
    group.add_argument(
        "--max-retry-wait",
        type=seconds(zero_allowed=True),
        default=30.0,
        metavar="SECONDS",
        help="longest single Retry-After honoured; longer ones are not waited (default 30)",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate run`` to ``parser``."""
    configure_target(parser)
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
    choice.add_argument(
        "--scenario",
        action="append",
        metavar="ID",
        help="only this scenario (repeatable); on a production target, the only way to run a "
        "bulk-writing scenario",
    )
    behaviour = parser.add_argument_group("run")
    behaviour.add_argument(
        "--allow-writes",
        action="store_true",
        help="on a live target, run scenarios that create and delete tokens",
    )
    behaviour.add_argument(
        "--ledger",
        type=Path,
        metavar="PATH",
        help="where the run writes down every token it creates (default: PATGATE_LEDGER, "
        f"else {DEFAULT_LEDGER} on a live target; memory on the embedded fake)",
    )
    behaviour.add_argument(
        "--max-wait",
        type=seconds(zero_allowed=True),
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
    configure_network(behaviour)


def ledger_path(given: Path | None, environ: dict[str, str], *, live: bool) -> Path | None:
    """The ledger file: ``--ledger``, else ``PATGATE_LEDGER``, else the default on a live
    target; ``None`` (memory) on the embedded fake unless one was given."""
    if given is not None:
        return given
    variable = environ.get("PATGATE_LEDGER")
    if variable:
        return Path(variable)
    return DEFAULT_LEDGER if live else None


def target_redactor(config: TargetConfig | None) -> Redactor:
    """A redactor that knows the target's secrets (and learns the run's as it goes)."""
    from patgate.redaction import Redactor
    from patgate.runner.target import DEFAULT_PAT_PREFIX

    redactor = Redactor(config.pat_prefix if config is not None else DEFAULT_PAT_PREFIX)
    if config is not None:
        redactor.register_all(config.secrets())
        redactor.register_basic(config.text("client_id"), config.text("client_secret"))
    return redactor


def scrub(error: PatgateError, redactor: Redactor) -> PatgateError:
    """``error`` with its message redacted (the CLI prints it)."""
    error.args = (redactor.redact(str(error)),)
    return error


def internal_error(command: str, error: Exception, redactor: Redactor) -> int:
    """Print a bug's traceback with every secret redacted (it may quote one); exit code 1."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    print(f"patgate {command}: internal error\n{redactor.redact(text)}", file=sys.stderr)
    return 1


def main(args: argparse.Namespace) -> int:
    """Run the scenarios and report; the exit code of the run."""
    from patgate.runner import resolve_target_config
    from patgate.scenario.model import TARGET_KEYS

    flags = {key: getattr(args, key, None) for key in TARGET_KEYS}
    config = resolve_target_config(args.world, os.environ, flags)
    redactor = target_redactor(config)
    try:
        return _run(args, config, redactor)
    except PatgateError as error:
        raise scrub(error, redactor) from None
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a bug
        return internal_error("run", error, redactor)


def _run(args: argparse.Namespace, config: TargetConfig | None, redactor: Redactor) -> int:
    from patgate.reporting import make_reporter
    from patgate.resources import scenarios_dir
    from patgate.runner import FakeTarget, LiveTarget, RunOptions
    from patgate.runner.engine import consume, run
    from patgate.runner.events import Event
    from patgate.runner.interruption import SignalGuard, interrupt_exit_code, interrupt_name
    from patgate.runner.target import Target
    from patgate.scenario import load_catalogue, load_scenarios

    catalogue = load_catalogue()
    scenarios = load_scenarios(args.scenarios or [scenarios_dir()], catalogue=catalogue)
    selected = _select(scenarios, args.rule, args.scenario, catalogue)
    reporters = [make_reporter("terminal", stream=sys.stdout)]
    reporters += [
        make_reporter(spec, stream=sys.stdout) for spec in args.report if spec != "terminal"
    ]
    target: Target = FakeTarget() if config is None else LiveTarget(config)
    ledger = ledger_path(args.ledger, dict(os.environ), live=target.live)
    options = RunOptions(
        allow_writes=args.allow_writes,
        max_wait=args.max_wait,
        strict=args.strict,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        every_rule=not (args.rule or args.scenario),
        ledger_path=ledger,
        retry_budget=args.retry_budget,
        max_retry_wait=args.max_retry_wait,
        explicit=frozenset(args.scenario or ()),
        network=network_policy(args),
    )

    def handle(event: Event) -> None:
        for reporter in reporters:
            reporter.handle(event)

    guard = SignalGuard()
    try:
        with guard:
            finished = consume(
                run(selected, target, options, catalogue=catalogue, redactor=redactor), handle
            )
    except KeyboardInterrupt as stop:
        # The run had finished (its counts are printed); the signal came while reporting.
        return interrupt_exit_code(interrupt_name(stop))
    finally:
        for reporter in reporters:
            reporter.close()
    if finished is None:
        return 1
    left = finished.counts.get("tokens_leaked", 0)
    if left and ledger is not None:
        print(
            f"patgate run: {left} token(s) may be left behind; "
            f"`patgate cleanup --ledger {ledger}` deletes them",
            file=sys.stderr,
        )
    return finished.exit_code


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
