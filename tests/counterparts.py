"""Tests that need a real counterpart (node packages, Chromium, wrk) skip without it, except in CI.

A developer's machine may lack node, Chromium or wrk: such a test skips and says which
counterpart it needs. CI installs every counterpart and sets ``PATGATE_REQUIRE_COUNTERPARTS=1``,
which turns that skip into a failure, so a broken install can never pass as a skipped test.

Under the same variable every other skip fails too, except the ones :data:`EXPECTED_SKIPS`
lists (CI runs the fuzz tests separately, after installing the fuzz extra): this module is
also a pytest plugin, loaded by the project's ``conftest.py``, whose hooks turn such a skip
into a failure that says why.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

__all__ = [
    "EXPECTED_SKIPS",
    "REQUIRE_VARIABLE",
    "counterparts_required",
    "need_counterpart",
    "unexpected_skip",
]

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


EXPECTED_SKIPS = {
    "tests/fuzz/": "needs the fuzz extra",
    "tests/hostile/test_bombs_per_command.py::test_fuzz_": "needs the fuzz extra",
}
"""Skips that CI allows: test id prefix -> the start of the skip's reason."""


def unexpected_skip(report: pytest.CollectReport | pytest.TestReport) -> str | None:
    """Why ``report``'s skip must fail the run, or ``None`` (not a skip, allowed, not required).

    An expected failure (xfail) is not a skip.
    """
    if not report.skipped or hasattr(report, "wasxfail") or not counterparts_required():
        return None
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    for prefix, expected in EXPECTED_SKIPS.items():
        if report.nodeid.startswith(prefix) and reason.startswith(expected):
            return None
    return (
        f"skipped ({reason}), but {REQUIRE_VARIABLE}=1 allows only the skips that "
        "tests/counterparts.py EXPECTED_SKIPS lists"
    )


def _fail_if_unexpected(report: pytest.CollectReport | pytest.TestReport) -> None:
    why = unexpected_skip(report)
    if why is not None:
        report.outcome = "failed"
        report.longrepr = why


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """A test's skip that CI did not expect fails the test."""
    outcome = yield
    _fail_if_unexpected(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    """A module's skip (``importorskip`` at import) that CI did not expect fails collection."""
    outcome = yield
    _fail_if_unexpected(outcome.get_result())
