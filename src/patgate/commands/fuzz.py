"""``patgate fuzz``: property-based fuzzing of the embedded fake or a deployment.

The target options are those of ``patgate run``: without any, the embedded fake is fuzzed
in-process. A live target is fuzzed read-only (the token endpoint, the hubs listing, the
GraphQL queries) unless ``--allow-writes`` adds the mutations and the PAT lifecycle. Needs
the ``fuzz`` extra (``pip install 'patgate[fuzz]'``). Exit codes: 0 when no answer was a
5xx, broke ``specs/openapi.yaml`` or the GraphQL contract, 1 when one did, 2 for a usage
error, 3 when the target cannot be reached.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from patgate.commands.arguments import add_timeouts, whole_number
from patgate.errors import UsageError

__all__ = ["configure", "main"]

_EXTRA_HINT = "pip install 'patgate[fuzz]'"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the target options of ``patgate run`` and the fuzzing options."""
    from patgate.target_contract import TARGET_KEYS

    target = parser.add_argument_group(
        "target",
        "As for `patgate run`: without any of these (or PATGATE_* variables) the embedded "
        "fake is fuzzed. Priority: flags > PATGATE_* variables > the world file.",
    )
    target.add_argument(
        "--world", type=Path, metavar="PATH", help="a target file (JSON or YAML) of the keys"
    )
    for key in TARGET_KEYS:
        target.add_argument(
            f"--{key.replace('_', '-')}",
            dest=key,
            metavar="VALUE",
            help=f"the target's {key} (see `patgate run --help`)",
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
    from patgate.runner.target import resolve_target_config
    from patgate.target_contract import TARGET_KEYS

    flags = {key: getattr(args, key, None) for key in TARGET_KEYS}
    config = resolve_target_config(args.world, os.environ, flags)
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
    )
    report = fuzz_fake(options) if config is None else fuzz_target(config, options)
    print(report.render(), flush=True)
    if args.json is not None:
        try:
            args.json.write_text(report.to_json() + "\n", encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.json}: {error.strerror}") from None
    return 0 if report.ok else 1
