"""``patgate cleanup``: delete what an interrupted run left behind, from its ledger.

A run killed outright (SIGKILL, a lost machine) leaves ledger entries still open. This
command reads the ledger (``--ledger``, ``PATGATE_LEDGER``, default
``.patgate/ledger.jsonl``), and for every open entry of every run in it (or of ``--run ID``):
a create that never answered is looked for by name in its creator's listing; a created token
is deleted with the target's token that made it (the ledger names the key, never the
value). Nothing outside the ledger is touched. Each outcome is appended to the ledger, so a
second cleanup has nothing to do.

Before a delete, the entry must have been made on this deployment (the ledger records each
entry's origins and organization) and the token listed under its id must carry the recorded
name; a reused id is reported as a mismatch and left alone.

Exit codes: 0 nothing is left open, 1 something could not be deleted (or was a mismatch),
2 a usage error,
3 the target cannot be reached, 143 / 130 interrupted (run it again to finish).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from patgate.commands.arguments import network_policy
from patgate.commands.session import configure_network, configure_target, guarded, resolve_config
from patgate.errors import UsageError
from patgate.runner.session import DEFAULT_LEDGER

if TYPE_CHECKING:
    from collections.abc import Callable

    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.custody.ledger import Ledger
    from patgate.runner.engine import ScenarioRunner

__all__ = ["configure", "main"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate cleanup`` to ``parser``."""
    configure_target(
        parser,
        "The deployment the run used (its tokens delete what it created). "
        "Priority: flags > PATGATE_* variables > the world file.",
    )
    behaviour = parser.add_argument_group("cleanup")
    behaviour.add_argument(
        "--ledger",
        type=Path,
        metavar="PATH",
        help=f"the ledger of the runs to finish (default: PATGATE_LEDGER, else {DEFAULT_LEDGER})",
    )
    behaviour.add_argument(
        "--run", action="append", metavar="ID", help="only this run of the ledger (repeatable)"
    )
    configure_network(behaviour)


def main(args: argparse.Namespace) -> int:
    """Finish every open entry of the ledger; 0 when none is left open."""
    from patgate.runner.session import ledger_path, target_redactor

    config = resolve_config(args)
    if config is None:
        raise UsageError(
            "cleanup needs the target the run used: --world PATH, PATGATE_* variables or flags"
        )
    path = ledger_path(args.ledger, os.environ, live=True)
    assert path is not None
    redactor = target_redactor(config)
    return guarded("cleanup", redactor, lambda: _clean(args, config, path, redactor))


def _say(redactor: Redactor, text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` redacted, through :mod:`patgate.guards.untrusted_text` (ids the target
    answered are in it)."""
    from patgate.guards.untrusted_text import print_untrusted

    print_untrusted(redactor.redact(text), stream)


def _open_runs(args: argparse.Namespace, path: Path) -> tuple[list[Ledger], int]:
    """The ledger's runs chosen by ``--run`` that still hold something open, and how many
    runs were chosen."""
    from patgate.runner.custody.ledger import Ledger

    runs = Ledger.load(path)
    if args.run:
        unknown = sorted(set(args.run) - {ledger.run_id for ledger in runs})
        if unknown:
            raise UsageError(f"the ledger {path} holds no run {unknown[0]!r}")
        runs = [ledger for ledger in runs if ledger.run_id in args.run]
    return [ledger for ledger in runs if ledger.outstanding()], len(runs)


def _finish_run(session: ScenarioRunner, ledger: Ledger, say: Callable[..., None]) -> int:
    """Delete what one run left, say what became of each entry; how many are still left."""
    from patgate.guards.untrusted_text import one_line
    from patgate.runner.custody.ledger import LedgerState

    before = {e.name: e.state for e in ledger.entries()}
    custodian = session.context.custodian_for(ledger)
    custodian.finish()
    after = ledger.entries()
    opened = (LedgerState.PENDING, LedgerState.CREATED)
    deleted = sum(before[e.name] in opened and e.state is LedgerState.DELETED for e in after)
    absent = sum(
        before[e.name] is LedgerState.PENDING and e.state is LedgerState.ABSENT for e in after
    )
    still = [e for e in after if e.outstanding]
    mismatched = sum(
        e.state is LedgerState.MISMATCH and before[e.name] is not LedgerState.MISMATCH
        for e in after
    )
    mismatch = f", {mismatched} mismatch (not deleted)" if mismatched else ""
    say(
        f"patgate cleanup: run {one_line(ledger.run_id)}: {deleted} deleted, "
        f"{absent} never created, {len(still)} left{mismatch}"
    )
    # The ids are what the target answered: one line each, never a command.
    for entry in still:
        what = entry.token_id or "no id yet"
        say(f"  left: {one_line(entry.name)} ({one_line(what)})", sys.stderr)
    for problem in custodian.problems:
        say(f"  not deleted: {one_line(problem)}", sys.stderr)
    return len(still) + mismatched


def _clean(args: argparse.Namespace, config: TargetConfig, path: Path, redactor: Redactor) -> int:
    from patgate.runner.context import RunOptions
    from patgate.runner.interruption import SignalGuard, interrupt_exit_code, interrupt_name
    from patgate.runner.session import open_session

    say = functools.partial(_say, redactor)
    if not path.exists():
        say(f"patgate cleanup: no ledger at {path}; nothing to do")
        return 0
    open_runs, chosen = _open_runs(args, path)
    if not open_runs:
        say(f"patgate cleanup: nothing left open in {path} ({chosen} run(s))")
        return 0
    options = RunOptions(
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        retry_budget=args.retry_budget,
        max_retry_wait=args.max_retry_wait,
        network=network_policy(args),
    )
    # The session's own ledger stays in memory and empty: cleanup creates nothing.
    session = open_session(config, options, redactor=redactor)
    left = 0
    try:
        with SignalGuard():
            for ledger in open_runs:
                left += _finish_run(session, ledger, say)
    except KeyboardInterrupt as stop:
        print("patgate cleanup: interrupted; run it again to finish", file=sys.stderr)
        return interrupt_exit_code(interrupt_name(stop))
    finally:
        session.close()
    return 1 if left else 0
