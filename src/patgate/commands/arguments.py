"""Argument types shared by the subcommands: each refuses bad input with a message that
names it, which argparse prints as a usage error (exit code 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["add_timeouts", "seconds", "whole_number"]


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
