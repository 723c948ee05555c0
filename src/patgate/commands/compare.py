"""``patgate compare``: where a deployment and the fake answer differently.

The same probes as ``patgate calibrate`` go to the target and to the embedded fake (the
default profile, or ``--profile P``); each field they answer differently is listed with the
fake's answer, the target's (redacted) and the request that showed it. Read-only unless
``--allow-writes``; with it, every token a probe makes is written to the ledger first
(``--ledger``, ``PATGATE_LEDGER``, default ``.patgate/ledger.jsonl``) and deleted before the
command ends. A documented rule the target breaks is a gate failure, pointed to
``patgate run``, never drift. Exit codes: 0 no drift, 1 drift (or a gate failure, or a token
left behind), 2 a usage error, 3 the target cannot be reached (the reports are still
written).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from patgate.commands.arguments import network_policy, seconds
from patgate.commands.session import configure_network, configure_target, guarded, resolve_config
from patgate.errors import TargetUnreachable, UsageError
from patgate.runner.session import DEFAULT_LEDGER

if TYPE_CHECKING:
    from patgate.calibration.comparison import Comparison
    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.context import RunOptions

__all__ = ["configure", "main", "probe_options", "target_label"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate compare`` to ``parser``."""
    group = add_probe_options(parser, "compare")
    group.add_argument(
        "--profile",
        type=Path,
        metavar="PATH",
        help="the profile the fake answers with (default: the shipped default profile)",
    )
    group.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="also write a report: json:PATH, junit:PATH or html:PATH (repeatable)",
    )


def add_probe_options(parser: argparse.ArgumentParser, command: str) -> argparse._ArgumentGroup:
    """The target, ``--allow-writes``, ``--ledger`` and the network options (calibrate and
    compare share them)."""
    configure_target(
        parser,
        "The deployment to probe (required). Priority: flags > PATGATE_* variables > the "
        "world file.",
    )
    group = parser.add_argument_group(command)
    group.add_argument(
        "--allow-writes",
        action="store_true",
        help="also probe by creating and deleting tokens of its own (each in the ledger)",
    )
    group.add_argument(
        "--max-wait",
        type=seconds(zero_allowed=True),
        default=0.0,
        metavar="SECONDS",
        help="with --allow-writes, how long the probe may wait to see how often lastUsedDate "
        "moves (default 0: it only checks whether it moves on every use)",
    )
    group.add_argument(
        "--ledger",
        type=Path,
        metavar="PATH",
        help=f"where created tokens are written first (default: PATGATE_LEDGER, else "
        f"{DEFAULT_LEDGER})",
    )
    configure_network(group)
    return group


def probe_options(args: argparse.Namespace, config: TargetConfig, command: str) -> RunOptions:
    """The runner options of a probing command; refuses writes on a production target."""
    from patgate.runner.context import RunOptions
    from patgate.runner.session import ledger_path

    if config.production and args.allow_writes:
        raise UsageError(f"the target is marked production: {command} --allow-writes is refused")
    return RunOptions(
        allow_writes=args.allow_writes,
        max_wait=args.max_wait,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        retry_budget=args.retry_budget,
        max_retry_wait=args.max_retry_wait,
        network=network_policy(args),
        ledger_path=ledger_path(args.ledger, os.environ, live=True),
    )


def target_label(args: argparse.Namespace, config: TargetConfig) -> str:
    """How the target is named in a report: its world file, else its base URL."""
    return str(args.world) if args.world else str(config.text("base_url") or "the target")


def live_config(args: argparse.Namespace, command: str) -> TargetConfig:
    """The deployment the flags name; a usage error without one (the fake needs no probe)."""
    config = resolve_config(args)
    if config is None:
        raise UsageError(
            f"{command} needs a deployment: --world PATH, PATGATE_* variables or flags "
            "(the embedded fake is what it compares against)"
        )
    return config


def main(args: argparse.Namespace) -> int:
    """Compare the target with the fake; print and write the reports; the exit code."""
    from patgate.runner.session import target_redactor

    config = live_config(args, "compare")
    redactor = target_redactor(config)
    return guarded("compare", redactor, lambda: _compare(args, config, redactor))


def _compare(args: argparse.Namespace, config: TargetConfig, redactor: Redactor) -> int:
    from patgate.calibration.comparison import Comparison, compare_results, probe_both
    from patgate.calibration.drift_rules import Acceptance
    from patgate.calibration.report import parse_reports, write_reports
    from patgate.fake.profile import load_profile

    reports = parse_reports(args.report)
    profile = load_profile(args.profile)  # a bad profile is a usage error before any request
    options = probe_options(args, config, "compare")
    label = target_label(args, config)
    try:
        target, fake, tallies = probe_both(config, options, redactor, profile)
    except TargetUnreachable as error:
        comparison = Comparison(unreachable=redactor.redact(str(error)))
    else:
        acceptance = Acceptance.of_document(profile.as_document())
        comparison = compare_results(target, fake, acceptance, profile.as_document())
        comparison.counts = dict(tallies.as_counts())
    comparison.target = label
    comparison.profile = str(args.profile) if args.profile else "default"
    comparison.allow_writes = args.allow_writes
    write_reports(comparison, reports)
    print_comparison(comparison, redactor)
    return comparison.exit_code


def print_comparison(comparison: Comparison, redactor: Redactor) -> None:
    """The terminal view: each drift, each gate failure, the counts and the verdict."""
    from patgate.calibration.comparison import RUN_HINT
    from patgate.guards.untrusted_text import commands_stopped, one_line, print_untrusted

    def say(text: str, stream: TextIO | None = None) -> None:
        print_untrusted(redactor.redact(text), stream)

    if comparison.unreachable:
        say(f"patgate compare: target unreachable: {one_line(comparison.unreachable)}", sys.stderr)
        return
    with commands_stopped(sys.stdout):  # the target's answers, on a GitHub runner
        for drift in comparison.drift:
            say(f"drift {drift.field}")
            say(f"  fake:    {drift.fake!r}")
            say(f"  target:  {drift.target!r}")
            say(f"  request: {drift.request}")
        for accepted in comparison.accepted:
            say(f"accepted {accepted.drift.field}: {accepted.reason} (until {accepted.expires})")
        for rule in comparison.gate_failures:
            say(f"gate failure {rule.rule}: {rule.what} ({rule.request}); {RUN_HINT}")
    leaked = comparison.counts.get("tokens_leaked", 0)
    if leaked:
        say(f"{leaked} token(s) left on the target: see the ledger, `patgate cleanup`")
    same = sum(1 for c in comparison.checked if not c.reason)
    unseen = len(comparison.checked) - same
    say(
        f"patgate compare: {len(comparison.drift)} drift, {len(comparison.accepted)} accepted, "
        f"{len(comparison.noise)} noise, {same} alike, {unseen} not observed "
        f"on either side, {len(comparison.gate_failures)} gate failure(s) "
        f"(profile {comparison.profile})"
    )
