"""What ``patgate run``, ``cleanup`` and ``fuzz`` share on the command line: the target
flags, the network flags, reading the target, and one way to turn errors into exit codes.

A command's ``main`` resolves its target with :func:`resolve_config` and runs its body
under :func:`guarded`: patgate's own errors reach the CLI with every secret redacted (the
CLI prints them and exits with their code); any other exception is a bug, printed as a
redacted traceback, exit code 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from patgate.commands.arguments import add_network_bounds, add_timeouts, seconds
from patgate.errors import PatgateError
from patgate.service.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import TargetConfig

__all__ = [
    "KEY_HELP",
    "configure_network",
    "configure_target",
    "guarded",
    "internal_error",
    "resolve_config",
    "scrub",
]

T = TypeVar("T")

KEY_HELP = {
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
    "control_url": "a served fake's control API, on loopback only (runs control: scenarios)",
    "control_token": "the bearer of that control API",
}
"""The ``--help`` line of each target key's flag (a test holds the keys to TARGET_KEYS)."""

TARGET_HELP = (
    "Without any of these (or PATGATE_* variables), the run uses the embedded fake. "
    "Priority: flags > PATGATE_* variables > the world file."
)


def configure_target(
    parser: argparse.ArgumentParser, description: str = TARGET_HELP, *, several: bool = False
) -> None:
    """The target options: ``--world`` and one flag per target key. ``several``: ``--world``
    may be repeated (``patgate run`` checks each target in turn)."""
    target = parser.add_argument_group("target", description)
    if several:
        target.add_argument(
            "--world",
            type=Path,
            action="append",
            metavar="PATH",
            help="a target file (JSON or YAML) of the keys below; repeat it to check several "
            "targets in turn, each with its own ledger, cleanup and verdict",
        )
        target.add_argument(
            "--target",
            action="append",
            metavar="NAME",
            help="a target named in pyproject.toml's [tool.patgate.targets] (repeatable; "
            "default: every one there, when no --world or key flag is given); each reads its "
            "secrets from PATGATE_<NAME>_* variables, never the shared PATGATE_* ones",
        )
    else:
        target.add_argument(
            "--world",
            type=Path,
            metavar="PATH",
            help="a target file (JSON or YAML) of the keys below",
        )
    for key in TARGET_KEYS:
        target.add_argument(
            f"--{key.replace('_', '-')}", dest=key, metavar="VALUE", help=KEY_HELP[key]
        )


def configure_network(group: argparse._ArgumentGroup) -> None:
    """Timeouts, the retry budget and where requests may go."""
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


def resolve_config(args: argparse.Namespace, world: Path | None = None) -> TargetConfig | None:
    """The live target the flags, ``PATGATE_*`` variables and ``--world`` (or ``world``,
    one of several) describe, or ``None`` (the embedded fake)."""
    from patgate.runner.connection.config import resolve_target_config

    if world is None:
        world = args.world[0] if isinstance(args.world, list) and args.world else args.world
    flags = {key: getattr(args, key, None) for key in TARGET_KEYS}
    return resolve_target_config(world or None, os.environ, flags)


def scrub(error: PatgateError, redactor: Redactor) -> PatgateError:
    """``error`` with its message redacted (the CLI prints it)."""
    error.args = (redactor.redact(str(error)),)
    return error


def internal_error(command: str, error: Exception, redactor: Redactor, code: int = 1) -> int:
    """Print a bug's traceback with every secret redacted (it may quote one); ``code``."""
    from patgate.guards.untrusted_text import print_untrusted

    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    print_untrusted(f"patgate {command}: internal error\n{redactor.redact(text)}", sys.stderr)
    return code


def guarded(
    command: str, redactor: Redactor, body: Callable[[], int], *, internal_code: int = 1
) -> int:
    """Run ``body``: patgate's errors go on redacted, a bug is a redacted traceback
    (``internal_code``: 1, or 5 for ``patgate run``)."""
    try:
        return body()
    except PatgateError as error:
        raise scrub(error, redactor) from None
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a bug
        return internal_error(command, error, redactor, internal_code)
