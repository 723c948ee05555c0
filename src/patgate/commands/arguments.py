"""Argument types shared by the subcommands: each refuses bad input with a message that
names it, which argparse prints as a usage error (exit code 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from patgate.runner.connection.exchange import NetworkPolicy

__all__ = [
    "add_network_bounds",
    "add_timeouts",
    "network_policy",
    "origin",
    "seconds",
    "whole_number",
]


def whole_number(
    minimum: int, maximum: int | None = None, *, what: str = "a whole number"
) -> Callable[[str], int]:
    """An argparse type for an integer from ``minimum`` to ``maximum`` (inclusive)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f"{minimum} to {maximum}" if maximum is not None else f"{minimum} or more"
            raise argparse.ArgumentTypeError(f"must be {bounds}, got {value}")
        return value

    return parse


def seconds(*, zero_allowed: bool) -> Callable[[str], float]:
    """An argparse type for a duration in seconds (a timeout needs more than 0)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
        if value < 0 or (value == 0 and not zero_allowed):
            floor = "0 or more" if zero_allowed else "more than 0"
            raise argparse.ArgumentTypeError(f"seconds must be {floor}, got {text!r}")
        return value

    return parse


def add_timeouts(group: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """``--connect-timeout`` and ``--read-timeout``: every request to a target has both."""
    group.add_argument(
        "--connect-timeout",
        type=seconds(zero_allowed=False),
        default=5.0,
        metavar="SECONDS",
        help="default 5",
    )
    group.add_argument(
        "--read-timeout",
        type=seconds(zero_allowed=False),
        default=30.0,
        metavar="SECONDS",
        help="default 30",
    )


def origin(text: str) -> str:
    """An argparse type for an origin: ``https://host`` or ``http://host:port``, no path."""
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an origin: {text!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
        raise argparse.ArgumentTypeError(f"an origin is http(s)://host[:port], got {text!r}")
    return text.strip()


def add_network_bounds(group: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """Where requests may go and how much of an answer is read (run and cleanup)."""
    group.add_argument(
        "--max-response-bytes",
        type=whole_number(1, what="a number of bytes"),
        metavar="BYTES",
        help="a longer answer (decompressed) fails its step (default 4 MiB)",
    )
    group.add_argument(
        "--allow-origin",
        type=origin,
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an origin steps may address besides the target's own (repeatable)",
    )
    group.add_argument(
        "--use-env-proxy",
        action="store_true",
        help="honour HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (ignored by default)",
    )


def network_policy(args: argparse.Namespace | Any) -> NetworkPolicy:
    """The :class:`~patgate.runner.connection.exchange.NetworkPolicy` of parsed arguments."""
    from patgate.runner.connection.exchange import NetworkPolicy

    bounds = {"max_response_bytes": args.max_response_bytes} if args.max_response_bytes else {}
    return NetworkPolicy(
        extra_origins=tuple(args.allow_origin), use_env_proxy=args.use_env_proxy, **bounds
    )
