"""Behaviour coverage of a user's own tests: which documented behaviours they drove the fake
through (``--patgate-coverage``), as a table at the end of the session, a JSON file on request
(``--patgate-coverage-json PATH``), and a floor (``--patgate-coverage-fail-under N``).

Only what a test's body drives counts: behaviours noted while fixtures set up (the default
world's own approval, say) are not the test's doing. Under pytest-xdist each worker sends its
counts to the controller, which reports the combined figures once.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from patgate.basics import behaviours

__all__ = ["BehaviourCoverage", "add_options", "configure"]

_WORKER_KEY = "patgate_behaviours"


def add_options(parser: pytest.Parser) -> None:
    """Register the ``--patgate-coverage*`` options."""
    group = parser.getgroup("patgate")
    group.addoption(
        "--patgate-coverage",
        action="store_true",
        help="report which documented behaviours of the fake the tests exercised",
    )
    group.addoption(
        "--patgate-coverage-json",
        metavar="PATH",
        help="also write the behaviour coverage as JSON to PATH (implies --patgate-coverage)",
    )
    group.addoption(
        "--patgate-coverage-fail-under",
        type=float,
        metavar="N",
        help="fail the session when under N percent of the behaviours were exercised",
    )


def configure(config: pytest.Config) -> None:
    """Register the collector when any coverage option is given."""
    wanted = (
        config.getoption("patgate_coverage")
        or config.getoption("patgate_coverage_json")
        or config.getoption("patgate_coverage_fail_under") is not None
    )
    if wanted:
        config.pluginmanager.register(BehaviourCoverage(config), "patgate-behaviour-coverage")


class BehaviourCoverage:
    """Counts behaviours during test calls; reports them once, on the controller."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.counts: Counter[str] = Counter()
        self._recording = False
        behaviours.observe(self._seen)
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(_XdistMerge(self), "patgate-behaviour-coverage-xdist")

    def _seen(self, key: str) -> None:
        if self._recording:
            self.counts[key] += 1

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        """Record while the test body runs."""
        self._recording = True
        try:
            return (yield)
        finally:
            self._recording = False

    def report(self) -> dict[str, Any]:
        """Exercised and not exercised behaviours, with counts and the percentage."""
        rows = [
            {"behaviour": key, "meaning": meaning, "count": self.counts.get(key, 0)}
            for key, meaning in behaviours.CATALOGUE.items()
        ]
        exercised = sum(1 for row in rows if row["count"])
        return {
            "behaviours": rows,
            "exercised": exercised,
            "total": len(rows),
            "percent": round(100 * exercised / len(rows), 1),
        }

    def _is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Workers hand their counts over; the controller writes JSON and applies the floor."""
        behaviours.unobserve(self._seen)
        if self._is_worker():
            self.config.workeroutput[_WORKER_KEY] = dict(self.counts)  # type: ignore[attr-defined]
            return
        report = self.report()
        path = self.config.getoption("patgate_coverage_json")
        if path:
            Path(path).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        floor = self.config.getoption("patgate_coverage_fail_under")
        if floor is not None and report["percent"] < floor and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The table: every behaviour, keyed by rule id, exercised or not."""
        if self._is_worker():
            return
        report = self.report()
        write = terminalreporter.write_line
        terminalreporter.section("patgate behaviour coverage")
        width = max(len(row["behaviour"]) for row in report["behaviours"])
        for row in report["behaviours"]:
            mark = f"{row['count']:>5}" if row["count"] else "    -"
            write(f"{row['behaviour']:<{width}}  {mark}  {row['meaning']}")
        write(
            f"{report['exercised']} of {report['total']} behaviours exercised "
            f"({report['percent']:g} %)"
        )
        floor = self.config.getoption("patgate_coverage_fail_under")
        if floor is not None and report["percent"] < floor:
            write(f"FAIL: behaviour coverage {report['percent']:g} % is under {floor:g} %")


class _XdistMerge:
    """The controller's side under pytest-xdist: add each worker's counts as it finishes."""

    def __init__(self, coverage: BehaviourCoverage) -> None:
        self.coverage = coverage

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker finished: merge what it saw."""
        output = getattr(node, "workeroutput", {}) or {}
        self.coverage.counts.update(output.get(_WORKER_KEY, {}))
