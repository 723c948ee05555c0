"""The default run leaves out the tests marked ``slow``; ``--run-slow`` runs them too.

Slow tests start subprocesses, build wheels, drive browsers, put load on a server or run the
spec tools: ``pytest -n 2`` without them is the edit-test loop. ``--run-slow`` runs everything,
and so does any ``-m`` expression (``-m slow`` runs only the slow ones). Under
``PATGATE_REQUIRE_COUNTERPARTS=1`` (CI) leaving the slow tests out is a usage error, so CI
cannot drop them silently. Loaded by the project's ``conftest.py``.
"""

from __future__ import annotations

import pytest

from tests.counterparts import REQUIRE_VARIABLE, counterparts_required

__all__ = ["RUN_SLOW"]

RUN_SLOW = "--run-slow"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        RUN_SLOW,
        action="store_true",
        default=False,
        help="also run the tests marked slow (subprocesses, wheel builds, browsers, load)",
    )


def _slow_left_out(config: pytest.Config) -> bool:
    return not config.getoption(RUN_SLOW) and not config.getoption("markexpr")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("help") or config.getoption("version"):
        return  # no test runs
    if _slow_left_out(config) and counterparts_required():
        raise pytest.UsageError(
            f"{REQUIRE_VARIABLE}=1 runs every test: pass {RUN_SLOW} "
            "(or a -m expression) so the slow tests are not left out"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the slow tests unless ``--run-slow`` or a ``-m`` expression asks for them."""
    if not _slow_left_out(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_report_header(config: pytest.Config) -> str | None:
    if _slow_left_out(config):
        return f"slow tests left out (pass {RUN_SLOW} to run everything)"
    return None
