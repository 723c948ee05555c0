"""The ``patgate`` command. Each subcommand lives in ``patgate.commands.<name>``.

A command module provides ``configure(parser)`` and ``main(args) -> int`` and keeps its
heavy imports inside ``main``, so ``patgate --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NoReturn

from patgate.errors import PatgateError

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: Mapping[str, str] = MappingProxyType(
    {
        "run": "Run the conformance scenarios against the embedded fake or a deployment.",
        "rules": "Print the rule catalogue and which scenarios cover each rule.",
        "serve": "Serve the fake on a loopback address for clients in any language.",
        "cleanup": "Delete what an interrupted run left behind, from its ledger.",
        "fuzz": "Fuzz a deployment's token endpoint, hubs listing and GraphQL API.",
        "calibrate": "Write the profile that makes the fake answer like a deployment.",
        "compare": "List where a deployment and the fake answer differently.",
        "schema": "Print the JSON Schema of a scenario, waivers or profile file, for editors.",
    }
)
"""Subcommand -> its one-line summary; the module is ``patgate.commands.<name>``."""


class _Version(argparse.Action):
    """``--version``: the version is read from the installed metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from patgate._version import __version__

        print(f"patgate {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``patgate`` parser with every subcommand's options (imports each command module,
    which keeps its heavy imports inside ``main``)."""
    parser = argparse.ArgumentParser(
        prog="patgate",
        description="Conformance kit and in-process fake for token authorization and PATs.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        module = importlib.import_module(f"patgate.commands.{name}")
        sub = subparsers.add_parser(name, help=summary, description=summary)
        module.configure(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``patgate ARGV``; the exit code. A :class:`PatgateError` is printed as one line
    and exits with its ``exit_code`` (2 for usage, 3 for an unreachable target)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(f"patgate.commands.{args.command}")
    try:
        from patgate.commands.project_config import apply_project_config

        args = apply_project_config(parser, args, argv)  # [tool.patgate] in pyproject.toml
        code: int = module.main(args)
    except PatgateError as error:
        from patgate.guards.untrusted_text import print_untrusted

        print_untrusted(f"patgate {args.command}: error: {error}", sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print(f"patgate {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (head, a pager) stopped reading: say nothing more on stdout, and exit
        # as a shell reports a process ended by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
