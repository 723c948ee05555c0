"""``--report junit:PATH``: JUnit XML, the format CI systems show as test results.

One ``<testcase>`` per scenario: a failed scenario carries ``<failure>``, a skipped one
``<skipped>``, and a scenario with only advisory failures passes with a warning line in
``<system-out>`` and ``warning`` properties, so it never turns a pipeline red.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from patgate.levels import Level
from patgate.reporting.artifact import ArtifactReporter
from patgate.reporting.summary import (
    count_outcomes,
    describe_failure,
    exit_meaning,
    failure_headline,
    unchecked_lines,
)
from patgate.reporting.text import printable
from patgate.runner.events import Outcome, RunFinished, RunStarted, ScenarioFinished

__all__ = ["SUITE_NAME", "JunitReporter", "junit_tree"]

SUITE_NAME = "patgate"

_SOURCE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def _text(value: str) -> str:
    # ElementTree escapes & < > and quotes, but writes forbidden control characters as they
    # are, which makes the whole file unreadable to every XML parser.
    return printable(value)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def junit_tree(started: RunStarted | None, finished: RunFinished) -> ET.Element:
    """The ``<testsuites>`` element for a finished run."""
    counts = count_outcomes(finished)
    totals = {
        "tests": str(len(finished.scenarios)),
        "failures": str(counts[Outcome.FAILED.value]),
        "errors": "0",
        "skipped": str(counts[Outcome.SKIPPED.value]),
        "time": _seconds(finished.duration),
    }
    root = ET.Element("testsuites", {"name": SUITE_NAME, **totals})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE_NAME, **totals})
    properties = ET.SubElement(suite, "properties")
    run_properties = [("run_id", finished.run_id), ("exit_code", str(finished.exit_code))]
    if started is not None:
        run_properties.insert(1, ("target", started.target))
    run_properties.append(("verdict", exit_meaning(finished)))
    run_properties += [("not_checked", line) for line in unchecked_lines(finished)]
    for name, value in run_properties:
        ET.SubElement(properties, "property", {"name": name, "value": _text(value)})
    for scenario in finished.scenarios:
        suite.append(_testcase(scenario))
    return root


def _testcase(scenario: ScenarioFinished) -> ET.Element:
    # The first rule names the class: it is stable from run to run, so CI keeps the history
    # of each test even when a different rule of the scenario fails.
    group = scenario.rules[0] if scenario.rules else scenario.scenario_id
    attributes = {
        "classname": _text(f"{SUITE_NAME}.{group}"),
        "name": _text(scenario.scenario_id),
        "time": _seconds(scenario.duration),
    }
    match = _SOURCE.match(scenario.source)
    if match:
        attributes["file"] = _text(match["file"])
        attributes["line"] = match["line"]
    elif scenario.source:
        attributes["file"] = _text(scenario.source)
    case = ET.Element("testcase", attributes)
    details = "\n\n".join(describe_failure(failure) for failure in scenario.failures)
    if scenario.outcome is Outcome.FAILED:
        headlines = [failure_headline(failure) for failure in scenario.failures]
        message = headlines[0] if headlines else scenario.reason or "failed"
        if len(headlines) > 1:
            message += f" (and {len(headlines) - 1} more)"
        levels = {failure.level for failure in scenario.failures}
        kind = Level.GATE if Level.GATE in levels or not levels else Level.ADVISORY
        element = ET.SubElement(case, "failure", {"message": _text(message), "type": kind.value})
        element.text = _text(details or scenario.reason)
    elif scenario.outcome is Outcome.SKIPPED:
        skipped = ET.SubElement(case, "skipped", {"message": _text(scenario.reason)})
        skipped.text = _text(scenario.reason)
    elif scenario.outcome is Outcome.WARNING:
        properties = ET.SubElement(case, "properties")
        for failure in scenario.failures:
            value = _text(failure_headline(failure))
            ET.SubElement(properties, "property", {"name": "warning", "value": value})
        out = ET.SubElement(case, "system-out")
        out.text = _text(
            "\n\n".join(f"warning: {describe_failure(failure)}" for failure in scenario.failures)
        )
    return case


class JunitReporter(ArtifactReporter):
    """Writes :func:`junit_tree` to its path when the run finishes."""

    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The document as indented UTF-8 XML with a declaration."""
        root = junit_tree(started, finished)
        ET.indent(root)
        data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
        return data + b"\n"
