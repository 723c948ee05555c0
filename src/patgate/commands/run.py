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

Scenarios run ``--concurrency`` at a time (default 4); writers share each principal's token
slots, and those that would disturb each other never overlap (see
:mod:`patgate.runner.planning.scheduler`); the reports list them in catalogue order whichever
finished first.

Exit codes: 0 no gate rule failed and nothing was left behind; 1 a gate rule failed (or a
warning, with ``--strict``), or a token was left behind or a delete refused; 2 a usage or
configuration error; 3 the target cannot be reached; 4 a gate rule ``--require`` names
(``all``: every gate rule in scope; ``checkable``: every gate rule this target can check,
those it cannot by its nature listed apart) was not checked; 5 an internal error (a bug of
patgate's: the reports are still written and the cleanup still runs; the redacted traceback
goes to stderr); 130 / 143 interrupted by SIGINT / SIGTERM (after the cleanup, with the
counts printed).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.commands.arguments import network_policy, seconds, whole_number
from patgate.commands.session import configure_network, configure_target, guarded, resolve_config
from patgate.errors import PatgateError, UsageError
from patgate.guards.project_file import secret_variable
from patgate.guards.untrusted_text import on_github, one_line, print_untrusted
from patgate.runner.session import DEFAULT_CONCURRENCY, DEFAULT_LEDGER, MAX_CONCURRENCY

if TYPE_CHECKING:
    from patgate.guards.redaction import Redactor
    from patgate.reporting.artifact import TargetRun
    from patgate.runner import RunOptions
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.results.events import RunFinished
    from patgate.runner.results.waivers import Waiver
    from patgate.scenario import Catalogue, Scenario

__all__ = ["configure", "main"]


EXIT_CODES_HELP = (
    "exit codes: 0 no gate rule failed; 1 a gate rule failed (or a warning with --strict, a "
    "token left behind, a delete refused, a wrong id answered); 2 usage or configuration "
    "error; 3 the target cannot be reached; 4 a gate rule --require names (all, checkable, "
    "or a rule id) was not checked; "
    "5 internal error (a bug in patgate: the reports are still written and the cleanup "
    "runs; the redacted traceback goes to stderr); 130 / 143 interrupted by SIGINT / SIGTERM"
)
"""The exit codes, as ``patgate run --help`` ends."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate run`` to ``parser``."""
    parser.epilog = EXIT_CODES_HELP
    configure_target(parser, several=True)
    _configure_choice(parser.add_argument_group("what to run"))
    behaviour = parser.add_argument_group("run")
    _configure_writes_and_waits(behaviour)
    _configure_verdict(behaviour)
    configure_network(behaviour)


def _configure_choice(choice: argparse._ArgumentGroup) -> None:
    """Which scenarios run: a folder of one's own, chosen and left-out rules and scenarios."""
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
    choice.add_argument(
        "--exclude-rule",
        action="append",
        metavar="ID",
        help="leave this rule out (repeatable): not reported, its failures ignored, a scenario "
        "covering only excluded rules not run; the report says so",
    )
    choice.add_argument(
        "--exclude-scenario",
        action="append",
        metavar="ID",
        help="leave this scenario out (repeatable); the report says so",
    )


def _configure_writes_and_waits(behaviour: argparse._ArgumentGroup) -> None:
    """What the run may do to a target: write, keep a ledger, wait, overlap scenarios."""
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
        help=(
            "longest real wait a live scenario may take"
            " (default 0: a check that needs a longer wait is not checked)"
        ),
    )
    behaviour.add_argument(
        "--concurrency",
        type=whole_number(1, MAX_CONCURRENCY, what="a number of scenarios"),
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"scenarios run at once (default {DEFAULT_CONCURRENCY}; 1: one after the other); "
        "writers share each user's token slots; the cap probe and clock movers run alone",
    )


def _configure_verdict(behaviour: argparse._ArgumentGroup) -> None:
    """How the run judges and tells: strictness, profile, required rules, waivers, reports."""
    behaviour.add_argument("--strict", action="store_true", help="advisory warnings fail the run")
    behaviour.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="the embedded fake's profile, its choices where the documentation is silent "
        "(docs/profile.md); the gate checks only documented rules, so it passes under any",
    )
    behaviour.add_argument(
        "--durations",
        type=whole_number(0, what="a number of scenarios"),
        metavar="N",
        help="after the run, print the N slowest scenarios and the N slowest steps (0: every one)",
    )
    behaviour.add_argument(
        "--require",
        action="append",
        metavar="all|checkable|ID",
        help="a gate rule that must be checked (repeatable; `all`: every gate rule in scope; "
        "`checkable`: every gate rule this target can check, those it cannot by nature, such "
        "as control-plane rules on a live target, listed apart); one that is not makes the "
        "run exit with code 4",
    )
    behaviour.add_argument(
        "--waivers",
        type=Path,
        metavar="FILE",
        help="known failures accepted until a date (YAML: a `waivers:` list of rule, reason, "
        "expires and optional target); a failing gate rule a waiver covers is `waived`",
    )
    behaviour.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="also write a report: json:PATH, junit:PATH or html:PATH (repeatable)",
    )


def main(args: argparse.Namespace) -> int:
    """Run the scenarios against each target and report; the exit code of the run (the
    worst of the targets'). In a GitHub Actions step, a non-zero exit always prints an
    ``::error`` annotation saying why."""
    from patgate.reporting.github import exit_annotation, unexplained_exit

    annotated: list[bool] = []
    try:
        code = _main(args, annotated)
    except PatgateError as error:
        if on_github():
            print(exit_annotation(f"exit {error.exit_code}: {error}"), flush=True)
        raise
    if code and not any(annotated) and on_github():
        print(exit_annotation(unexplained_exit(code)), flush=True)
    return code


def _main(args: argparse.Namespace, annotated: list[bool]) -> int:
    from patgate.commands.project_config import named_targets
    from patgate.runner.results.outcomes import EXIT_INTERNAL
    from patgate.runner.session import target_redactor

    worlds: list[Path] = list(args.world or [])
    named = named_targets(args)  # [tool.patgate.targets], each with its own variables
    configs: list[TargetConfig | None] = (
        [config for _, config in named]
        if named
        else [resolve_config(args, world) for world in worlds] or [resolve_config(args)]
    )
    live = any(config is not None for config in configs)
    if live and "profile" in getattr(args, "configured", ()):
        args.profile = None  # [tool.patgate]'s profile shapes the embedded fake alone
    if args.profile is not None:
        from patgate.fake.profile import load_profile

        if live:
            raise UsageError("--profile shapes the embedded fake; this run has a live target")
        args.profile = load_profile(args.profile)  # a bad file: file and line, exit 2
    redactor = target_redactor(configs[0])
    for config in configs[1:]:
        if config is not None:
            config.register_secrets(redactor)
    labels = [name for name, _ in named or ()] or [str(world) for world in worlds] or [""]
    args.named_targets = bool(named)
    return guarded(
        "run",
        redactor,
        lambda: _run(args, list(zip(labels, configs, strict=True)), redactor, annotated),
        internal_code=EXIT_INTERNAL,
    )


@dataclass(frozen=True)
class _Plan:
    """What every target of the run is checked with: the chosen scenarios and the rules."""

    catalogue: Catalogue
    selected: tuple[Scenario, ...]
    excluded_rules: frozenset[str]
    excluded_scenarios: tuple[str, ...]
    waivers: tuple[Waiver, ...]


def _plan(args: argparse.Namespace) -> _Plan:
    """Load the catalogue and the scenarios, apply the choices and the waivers."""
    from patgate.basics.resources import scenarios_dir
    from patgate.runner.results.waivers import load_waivers
    from patgate.scenario import load_catalogue, load_scenarios

    catalogue = load_catalogue()
    scenarios = load_scenarios(args.scenarios or [scenarios_dir()], catalogue=catalogue)
    selected = _select(scenarios, args.rule, args.scenario, catalogue)
    excluded_rules = _known_rules(args.exclude_rule, catalogue, "--exclude-rule")
    selected, excluded_scenarios = _exclude(
        selected, scenarios, excluded_rules, args.exclude_scenario or []
    )
    waivers = load_waivers(args.waivers, catalogue) if args.waivers else ()
    return _Plan(catalogue, selected, frozenset(excluded_rules), excluded_scenarios, waivers)


def _options(
    args: argparse.Namespace, plan: _Plan, label: str, ledger: Path | None, live: bool
) -> RunOptions:
    """The run's options for one target, from the command line and the plan."""
    from patgate.runner import RunOptions
    from patgate.runner.session import ledger_path

    return RunOptions(
        allow_writes=args.allow_writes,
        max_wait=args.max_wait,
        strict=args.strict,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        every_rule=not (args.rule or args.scenario or args.scenarios),
        ledger_path=ledger_path(ledger, os.environ, live=live),
        retry_budget=args.retry_budget,
        max_retry_wait=args.max_retry_wait,
        explicit=frozenset(args.scenario or ()),
        require=_required(args.require, plan.catalogue),
        network=network_policy(args),
        concurrency=args.concurrency,
        waivers=plan.waivers,
        target_label=label,
        excluded_rules=plan.excluded_rules,
        excluded_scenarios=plan.excluded_scenarios,
    )


def _run(
    args: argparse.Namespace,
    targets: list[tuple[str, TargetConfig | None]],
    redactor: Redactor,
    annotated: list[bool],
) -> int:
    from patgate.reporting import make_reporter
    from patgate.runner.engine import consume, run_session
    from patgate.runner.interruption import SignalGuard, interrupt_exit_code, interrupt_name
    from patgate.runner.results.events import Event, RunStarted, Targets
    from patgate.runner.session import open_session, target_for

    plan = _plan(args)
    reporters = [make_reporter("terminal", stream=sys.stdout)]
    reporters += [
        make_reporter(spec, stream=sys.stdout) for spec in args.report if spec != "terminal"
    ]
    begun: list[RunStarted] = []

    def handle(event: Event) -> None:
        if isinstance(event, RunStarted):
            begun.append(event)
        for reporter in reporters:
            reporter.handle(event)

    runs: list[TargetRun] = []
    session = None
    try:
        with SignalGuard():
            if len(targets) > 1:
                handle(Targets(tuple(label for label, _ in targets)))
            for (label, config), ledger in zip(
                targets, _ledgers(args.ledger, targets), strict=True
            ):
                target = target_for(config, args.profile)
                options = _options(args, plan, label, ledger, target.live)
                session = open_session(target, options, catalogue=plan.catalogue, redactor=redactor)
                finished = consume(run_session(session, plan.selected), handle)
                _print_internal_errors(session.context.internal_errors)
                session = None  # its errors are printed
                if finished is None:
                    return 1
                runs.append((label, begun[-1] if begun else None, finished))
                _explain(label, config, options.ledger_path, finished, args.named_targets)
                if finished.interrupted:
                    break  # a signal stops the whole run, not only this target
    except KeyboardInterrupt as stop:
        # The run had finished (its counts are printed); the signal came while reporting,
        # or between two targets.
        return interrupt_exit_code(interrupt_name(stop))
    finally:
        for reporter in reporters:
            reporter.close()
        if session is not None:
            _print_internal_errors(session.context.internal_errors)
    return _after_the_run(args, runs, annotated, several=len(targets) > 1)


def _after_the_run(
    args: argparse.Namespace, runs: list[TargetRun], annotated: list[bool], *, several: bool
) -> int:
    """Publish to GitHub, print the slowest and, with several targets, each one's exit code;
    the run's exit code, the worst of them."""
    from patgate.reporting.artifact import worst_exit_code
    from patgate.reporting.github import publish

    annotated.append(publish(runs))
    if args.durations is not None:
        from patgate.reporting.durations import slowest

        for line in slowest([(label, finished) for label, _, finished in runs], args.durations):
            print_untrusted(line)
    code = worst_exit_code([finished.exit_code for _, _, finished in runs])
    if several:
        each = ", ".join(f"{label}: exit {finished.exit_code}" for label, _, finished in runs)
        print(
            f"patgate run: {len(runs)} targets ({one_line(each)}); exit {code}, the worst of them"
        )
    return code


def _explain(
    label: str,
    config: TargetConfig | None,
    ledger: Path | None,
    finished: RunFinished,
    named: bool = False,
) -> None:
    """Say on stderr why a target could not be reached, and how to delete what it left
    (``named``: the label is a target of ``[tool.patgate.targets]``, not a world file)."""
    name = f" {label}:" if label else ""
    if finished.unreachable:
        what = "became unreachable mid-run" if finished.lost else "did not answer"
        print_untrusted(
            f"patgate run:{name} error: the target {what}: {one_line(finished.unreachable)}",
            sys.stderr,
        )
    left = finished.tallies.tokens_leaked if finished.tallies is not None else 0
    if left and ledger is not None:
        command = ["patgate", "cleanup"]
        if label and not named:
            command += ["--world", label]
        command += ["--ledger", str(ledger)]
        hint = f"`{shlex.join(command)}` deletes them"
        if named:
            variables = secret_variable("", label)
            hint += f" (with the target's world file, and its {variables}* variables as PATGATE_*)"
        elif not label and config is not None:
            hint += " (with the same PATGATE_* variables or target flags as this run)"
        print_untrusted(
            f"patgate run:{name} {left} token(s) may be left behind; {hint}", sys.stderr
        )


def _ledgers(
    given: Path | None, targets: list[tuple[str, TargetConfig | None]]
) -> list[Path | None]:
    """The ledger of each target: ``given`` (or the default) for one target; for several,
    one file each beside it, named after the world file (``ledger-staging.jsonl``)."""
    from patgate.runner.session import ledger_path

    if len(targets) == 1:
        return [given]
    base = ledger_path(given, os.environ, live=True)
    assert base is not None
    used: set[str] = set()
    ledgers: list[Path | None] = []
    for index, (label, _) in enumerate(targets, start=1):
        stem = Path(label).stem or f"target{index}"
        name = stem if stem not in used else f"{stem}-{index}"
        used.add(name)
        ledgers.append(base.with_name(f"{base.stem}-{name}{base.suffix}"))
    return ledgers


def _known_rules(given: list[str] | None, catalogue: Catalogue, flag: str) -> list[str]:
    for rule in given or ():
        if rule not in catalogue:
            raise UsageError(f"{flag}: unknown rule {rule!r} (see `patgate rules`)")
    return list(dict.fromkeys(given or ()))


def _exclude(
    selected: tuple[Scenario, ...],
    every: tuple[Scenario, ...],
    rules: list[str],
    ids: list[str],
) -> tuple[tuple[Scenario, ...], tuple[str, ...]]:
    """``selected`` without the excluded scenarios and those covering only excluded rules;
    and the ids left out."""
    known = {scenario.id for scenario in every}
    for scenario_id in ids:
        if scenario_id not in known:
            raise UsageError(f"--exclude-scenario: unknown scenario {scenario_id!r}")
    kept = []
    left_out = []
    for scenario in selected:
        if scenario.id in ids or (rules and all(rule in rules for rule in scenario.rules)):
            left_out.append(scenario.id)
        else:
            kept.append(scenario)
    if not kept:
        raise UsageError("--exclude-rule / --exclude-scenario left no scenario to run")
    return tuple(kept), tuple(left_out)


def _print_internal_errors(tracebacks: list[str]) -> None:
    """The last-resort net's catch: each bug's redacted traceback, on stderr (the run
    reported it as ``internal error`` and exits 5)."""
    for text in tracebacks:
        print_untrusted(f"patgate run: internal error\n{text}", sys.stderr)


def _required(given: list[str] | None, catalogue: Catalogue) -> tuple[str, ...]:
    """The ``--require`` values, each ``all`` or a gate rule's id."""
    from patgate.runner.results.outcomes import REQUIRE_WORDS

    names = [part.strip() for value in given or () for part in value.split(",") if part.strip()]
    for name in names:
        if name in REQUIRE_WORDS:
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
