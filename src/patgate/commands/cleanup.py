"""``patgate cleanup``: delete what an interrupted run left behind, from its ledger.

A run killed outright (SIGKILL, a lost machine) leaves ledger entries still open. This
command reads the ledger (``--ledger``, ``PATGATE_LEDGER``, default
``.patgate/ledger.jsonl``), and for every open entry of every run in it (or of ``--run ID``):
a create that never answered is looked for by name in its creator's listing; a created token
is deleted with the target's token that made it (the ledger names the key, never the
value). Nothing outside the ledger is touched. Each outcome is appended to the ledger, so a
second cleanup has nothing to do.

Exit codes: 0 nothing is left open, 1 something could not be deleted, 2 a usage error,
3 the target cannot be reached, 143 / 130 interrupted (run it again to finish).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.commands.arguments import network_policy
from patgate.commands.run import (
    DEFAULT_LEDGER,
    configure_network,
    configure_target,
    internal_error,
    ledger_path,
    scrub,
    target_redactor,
)
from patgate.errors import PatgateError, UsageError

if TYPE_CHECKING:
    from patgate.checks import Observed
    from patgate.redaction import Redactor
    from patgate.runner.target import TargetConfig

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
    from patgate.runner import resolve_target_config
    from patgate.scenario.model import TARGET_KEYS

    flags = {key: getattr(args, key, None) for key in TARGET_KEYS}
    config = resolve_target_config(args.world, os.environ, flags)
    if config is None:
        raise UsageError(
            "cleanup needs the target the run used: --world PATH, PATGATE_* variables or flags"
        )
    path = ledger_path(args.ledger, dict(os.environ), live=True)
    assert path is not None
    redactor = target_redactor(config)
    try:
        return _clean(args, config, path, redactor)
    except PatgateError as error:
        raise scrub(error, redactor) from None
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a bug
        return internal_error("cleanup", error, redactor)


def _clean(args: argparse.Namespace, config: TargetConfig, path: Path, redactor: Redactor) -> int:
    from patgate.runner.custodian import Custodian
    from patgate.runner.documents import Documents
    from patgate.runner.exchange import Exchange
    from patgate.runner.interruption import SignalGuard, interrupt_exit_code, interrupt_name
    from patgate.runner.ledger import Ledger
    from patgate.runner.retries import RetryPolicy
    from patgate.runner.target import LiveTarget

    if not path.exists():
        print(f"patgate cleanup: no ledger at {path}; nothing to do")
        return 0
    runs = Ledger.load(path)
    if args.run:
        unknown = sorted(set(args.run) - {ledger.run_id for ledger in runs})
        if unknown:
            raise UsageError(f"the ledger {path} holds no run {unknown[0]!r}")
        runs = [ledger for ledger in runs if ledger.run_id in args.run]
    open_runs = [ledger for ledger in runs if ledger.outstanding()]
    if not open_runs:
        print(f"patgate cleanup: nothing left open in {path} ({len(runs)} run(s))")
        return 0
    retry = RetryPolicy(budget=args.retry_budget, max_wait=args.max_retry_wait)
    exchange = Exchange(
        LiveTarget(config),
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        retry=retry,
        observe=None,
        network=network_policy(args),
    )
    documents = Documents(config.documents)
    url = config.text("graphql_url") or ""

    def send(query: str, variables: Mapping[str, Any] | None, bearer: str | None) -> Observed:
        payload: dict[str, Any] = {"query": query}
        if variables:
            payload["variables"] = dict(variables)
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return exchange.send(
            "POST", url, kind="graphql", headers=headers, json=payload, repeat=True
        )

    left = 0
    try:
        with SignalGuard():
            for ledger in open_runs:
                before = {e.name: e.state for e in ledger.entries()}
                custodian = Custodian(
                    ledger, documents, send, bearer_of_key=config.text, retry=retry
                )
                custodian.finish()
                after = ledger.entries()
                deleted = sum(
                    before[e.name] in ("pending", "created") and e.state == "deleted" for e in after
                )
                absent = sum(before[e.name] == "pending" and e.state == "absent" for e in after)
                still = [e for e in after if e.outstanding]
                left += len(still)
                print(
                    redactor.redact(
                        f"patgate cleanup: run {ledger.run_id}: {deleted} deleted, "
                        f"{absent} never created, {len(still)} left"
                    )
                )
                for entry in still:
                    what = entry.token_id or "no id yet"
                    print(f"  left: {entry.name} ({what})", file=sys.stderr)
    except KeyboardInterrupt as stop:
        print("patgate cleanup: interrupted; run it again to finish", file=sys.stderr)
        return interrupt_exit_code(interrupt_name(stop))
    finally:
        exchange.close()
    return 1 if left else 0
