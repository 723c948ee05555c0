"""Tests that need a real counterpart (node packages, Chromium, wrk) skip without it, except in CI.

A developer's machine may lack node, Chromium or wrk: such a test skips and says which
counterpart it needs. CI installs every counterpart and sets ``PATGATE_REQUIRE_COUNTERPARTS=1``,
which turns that skip into a failure, so a broken install can never pass as a skipped test.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["REQUIRE_VARIABLE", "counterparts_required", "need_counterpart"]

REQUIRE_VARIABLE = "PATGATE_REQUIRE_COUNTERPARTS"


def counterparts_required() -> bool:
    """True where a missing counterpart must fail the test instead of skipping it."""
    return os.environ.get(REQUIRE_VARIABLE, "") not in ("", "0")


def need_counterpart(available: bool, reason: str) -> None:
    """Skip (or, under ``PATGATE_REQUIRE_COUNTERPARTS=1``, fail) unless ``available``.

    ``reason`` names the counterpart and how to get it, e.g. "needs node 20 and npm on PATH".
    """
    if available:
        return
    if counterparts_required():
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE}=1: a missing counterpart is a failure)")
    pytest.skip(reason)
