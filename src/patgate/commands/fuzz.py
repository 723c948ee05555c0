"""``patgate fuzz``: property-based fuzzing of the embedded fake or a deployment.

The target options are those of ``patgate run``: without any, the embedded fake is fuzzed
in-process. A live target is fuzzed read-only (the token endpoint, the hubs listing, the
GraphQL queries) unless ``--allow-writes`` adds the mutations and the PAT lifecycle. Needs
the ``fuzz`` extra (``pip install 'patgate[fuzz]'``). Exit codes: 0 when no answer was a
5xx, broke ``specs/openapi.yaml`` or the GraphQL contract, 1 when one did, 2 for a usage
error, 3 when the target cannot be reached. Every token a live fuzz run creates is written
to the ledger first (``PATGATE_LEDGER``, default ``.patgate/ledger.jsonl``) and deleted before
it ends; ``patgate cleanup`` finishes a run that was killed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.commands.arguments import add_timeouts, whole_number
from patgate.commands.session import configure_target, guarded, resolve_config
from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.runner.connection.config import TargetConfig

__all__ = ["configure", "main"]

_EXTRA_HINT = "pip install 'patgate[fuzz]'"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the target options of ``patgate run`` and the fuzzing options."""
    configure_target(
        parser,
        "As for `patgate run`: without any of these (or PATGATE_* variables) the embedded "
        "fake is fuzzed. Priority: flags > PATGATE_* variables > the world file.",
    )
    fuzzing = parser.add_argument_group("fuzzing")
    fuzzing.add_argument(
        "--max-examples",
        type=whole_number(1),
        default=25,
        metavar="N",
        help="generated cases per operation, pass and mode (default 25)",
    )
    fuzzing.add_argument(
        "--seed",
        type=whole_number(0, what="a seed"),
        metavar="N",
        help="Hypothesis' seed, to repeat a run exactly",
    )
    fuzzing.add_argument(
        "--allow-writes",
        action="store_true",
        help="on a live target, also fuzz the GraphQL mutations (every token made is deleted)",
    )
    fuzzing.add_argument(
        "--json", type=Path, metavar="PATH", help="also write the report as JSON to PATH"
    )
    add_timeouts(fuzzing)


def main(args: argparse.Namespace) -> int:
    """Fuzz the target, print the summary; 0 when nothing failed, else 1."""
    from patgate.runner.session import target_redactor

    config = resolve_config(args)
    return guarded("fuzz", target_redactor(config), lambda: _fuzz(args, config))


def _fuzz(args: argparse.Namespace, config: TargetConfig | None) -> int:
    from patgate.runner.session import ledger_path

    try:
        from patgate.fuzz.engine import FuzzOptions, fuzz_fake, fuzz_target
    except ImportError as error:
        raise UsageError(
            f"patgate fuzz needs the fuzz extra ({error.name or error} is missing): {_EXTRA_HINT}"
        ) from None
    if config is not None and config.production and args.allow_writes:
        raise UsageError(
            "the target is marked production: fuzzing it with --allow-writes is refused"
        )
    options = FuzzOptions(
        max_examples=args.max_examples,
        seed=args.seed,
        allow_writes=args.allow_writes,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        ledger_path=ledger_path(None, os.environ, live=config is not None),
    )
    report = fuzz_fake(options) if config is None else fuzz_target(config, options)
    from patgate.guards.untrusted_text import commands_stopped, print_untrusted

    with commands_stopped(sys.stdout):  # the target's answers, on a GitHub runner
        print_untrusted(report.render())
    if args.json is not None:
        try:
            args.json.write_text(report.to_json() + "\n", encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.json}: {error.strerror}") from None
    return 0 if report.ok else 1
