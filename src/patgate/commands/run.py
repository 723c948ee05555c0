"""``patgate run``: run the conformance scenarios against the embedded fake or a deployment.

With no target key from any source, the run uses the embedded fake (writes allowed, the
clock under control). A world file, ``PATGATE_*`` variables or flags describe a live target
instead. The terminal view is always printed; ``--report KIND:PATH`` adds files.

Every token the run creates is written to a ledger first (``--ledger``, ``PATGATE_LEDGER``,
default ``.patgate/ledger.jsonl`` on a live target, memory on the embedded fake) and deleted
before the run ends, also after a failure, Ctrl-C or SIGTERM.

The last line counts the gate rules passed, failed and not checked, and says "every gate
rule passed" only when every gate rule in scope was checked. A run narrowed by ``--rule``,
``--scenario`` or ``--scenarios`` reports only the rules its scenarios cover.

Scenarios run ``--concurrency`` at a time (default 4); those that share a constraint never
overlap (see :mod:`patgate.runner.scheduler`), and the reports list them in catalogue order
whichever finished first.

Exit codes: 0 no gate rule failed and nothing was left behind; 1 a gate rule failed (or a
warning, with ``--strict``), or a token was left behind or a delete refused; 2 a usage or
configuration error; 3 the target cannot be reached; 4 a gate rule ``--require`` names
(``all``: every gate rule in scope) was not checked; 5 an internal error (a bug of
patgate's: the reports are still written and the cleanup still runs; the redacted traceback
goes to stderr); 130 / 143 interrupted by SIGINT / SIGTERM (after the cleanup, with the
counts printed).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.commands.arguments import network_policy, seconds, whole_number
from patgate.commands.session import configure_network, configure_target, guarded, resolve_config
from patgate.errors import UsageError
from patgate.runner.session import DEFAULT_CONCURRENCY, DEFAULT_LEDGER, MAX_CONCURRENCY

if TYPE_CHECKING:
    from patgate.redaction import Redactor
    from patgate.runner.target import TargetConfig
    from patgate.scenario import Catalogue, Scenario

__all__ = ["configure", "main"]


EXIT_CODES_HELP = (
    "exit codes: 0 no gate rule failed; 1 a gate rule failed (or a warning with --strict, a "
    "token left behind, a delete refused, a wrong id answered); 2 usage or configuration "
    "error; 3 the target cannot be reached; 4 a gate rule --require names was not checked; "
    "5 internal error (a bug in patgate: the reports are still written and the cleanup "
    "runs; the redacted traceback goes to stderr); 130 / 143 interrupted by SIGINT / SIGTERM"
)
"""The exit codes, as ``patgate run --help`` ends."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate run`` to ``parser``."""
    parser.epilog = EXIT_CODES_HELP
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
    behaviour.add_argument(
        "--concurrency",
        type=whole_number(1, MAX_CONCURRENCY, what="a number of scenarios"),
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"scenarios run at once (default {DEFAULT_CONCURRENCY}; 1: one after the other); "
        "scenarios writing as the same principal, control steps and bulk writers never overlap",
    )
    behaviour.add_argument("--strict", action="store_true", help="advisory warnings fail the run")
    behaviour.add_argument(
        "--require",
        action="append",
        metavar="all|ID",
        help="a gate rule that must be checked (repeatable; `all`: every gate rule in scope); "
        "one that is not makes the run exit with code 4",
    )
    behaviour.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="also write a report: json:PATH, junit:PATH or html:PATH (repeatable)",
    )
    configure_network(behaviour)


def main(args: argparse.Namespace) -> int:
    """Run the scenarios and report; the exit code of the run."""
    from patgate.runner.results import EXIT_INTERNAL
    from patgate.runner.session import target_redactor

    config = resolve_config(args)
    redactor = target_redactor(config)
    return guarded(
        "run", redactor, lambda: _run(args, config, redactor), internal_code=EXIT_INTERNAL
    )


def _run(args: argparse.Namespace, config: TargetConfig | None, redactor: Redactor) -> int:
    from patgate.reporting import make_reporter
    from patgate.resources import scenarios_dir
    from patgate.runner import RunOptions
    from patgate.runner.engine import consume, run_session
    from patgate.runner.events import Event
    from patgate.runner.interruption import SignalGuard, interrupt_exit_code, interrupt_name
    from patgate.runner.session import ledger_path, open_session, target_for
    from patgate.scenario import load_catalogue, load_scenarios

    catalogue = load_catalogue()
    scenarios = load_scenarios(args.scenarios or [scenarios_dir()], catalogue=catalogue)
    selected = _select(scenarios, args.rule, args.scenario, catalogue)
    reporters = [make_reporter("terminal", stream=sys.stdout)]
    reporters += [
        make_reporter(spec, stream=sys.stdout) for spec in args.report if spec != "terminal"
    ]
    target = target_for(config)
    ledger = ledger_path(args.ledger, os.environ, live=target.live)
    options = RunOptions(
        allow_writes=args.allow_writes,
        max_wait=args.max_wait,
        strict=args.strict,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        every_rule=not (args.rule or args.scenario or args.scenarios),
        ledger_path=ledger,
        retry_budget=args.retry_budget,
        max_retry_wait=args.max_retry_wait,
        explicit=frozenset(args.scenario or ()),
        require=_required(args.require, catalogue),
        network=network_policy(args),
        concurrency=args.concurrency,
    )

    def handle(event: Event) -> None:
        for reporter in reporters:
            reporter.handle(event)

    guard = SignalGuard()
    session = None
    try:
        with guard:
            session = open_session(target, options, catalogue=catalogue, redactor=redactor)
            finished = consume(run_session(session, selected), handle)
    except KeyboardInterrupt as stop:
        # The run had finished (its counts are printed); the signal came while reporting.
        return interrupt_exit_code(interrupt_name(stop))
    finally:
        for reporter in reporters:
            reporter.close()
        if session is not None:
            _print_internal_errors(session.context.internal_errors)
    if finished is None:
        return 1
    left = finished.tallies.tokens_leaked if finished.tallies is not None else 0
    if left and ledger is not None:
        print(
            f"patgate run: {left} token(s) may be left behind; "
            f"`patgate cleanup --ledger {ledger}` deletes them",
            file=sys.stderr,
        )
    return finished.exit_code


def _print_internal_errors(tracebacks: list[str]) -> None:
    """The last-resort net's catch: each bug's redacted traceback, on stderr (the run
    reported it as ``internal error`` and exits 5)."""
    for text in tracebacks:
        print(f"patgate run: internal error\n{text}", file=sys.stderr)


def _required(given: list[str] | None, catalogue: Catalogue) -> tuple[str, ...]:
    """The ``--require`` values, each ``all`` or a gate rule's id."""
    from patgate.runner.results import REQUIRE_ALL

    names = [part.strip() for value in given or () for part in value.split(",") if part.strip()]
    for name in names:
        if name == REQUIRE_ALL:
            continue
        if name not in catalogue:
            raise UsageError(f"--require: unknown rule {name!r} (see `patgate rules`)")
        if not catalogue[name].is_gate:
            raise UsageError(f"--require: {name} is advisory; only gate rules can be required")
    return tuple(dict.fromkeys(names))


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
