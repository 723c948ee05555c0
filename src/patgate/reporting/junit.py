"""``--report junit:PATH``: JUnit XML, the format CI systems show as test results.

One ``<testcase>`` per scenario, its ``outcome`` property the word every report uses
(:data:`~patgate.runner.results.events.OUTCOME_WORDS`): a failed scenario carries
``<failure>``; a scenario not checked, or a waived one, carries JUnit's ``<skipped>`` with a
message that starts with that word (``not checked: ...``, ``waived: ...``); a scenario with
only advisory failures passes with an ``advisory warning:`` line in ``<system-out>`` and
``warning`` properties, so it never turns a pipeline red.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from patgate.basics.levels import Level
from patgate.reporting.artifact import ArtifactReporter, TargetRun
from patgate.reporting.summary import (
    count_outcomes,
    describe_failure,
    exit_meaning,
    failure_headline,
    outcome_word,
    source_location,
    unchecked_lines,
    waiver_lines,
)
from patgate.reporting.text import printable
from patgate.runner.results.events import Outcome, RunFinished, RunStarted, ScenarioFinished

__all__ = ["SUITE_NAME", "JunitReporter", "junit_targets_tree", "junit_tree"]

SUITE_NAME = "patgate"


def _text(value: str) -> str:
    # ElementTree escapes & < > and quotes, but writes forbidden control characters as they
    # are, which makes the whole file unreadable to every XML parser.
    return printable(value)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def junit_tree(started: RunStarted | None, finished: RunFinished) -> ET.Element:
    """The ``<testsuites>`` element for a finished run."""
    return _suites([("", started, finished)])


def junit_targets_tree(runs: list[TargetRun]) -> ET.Element:
    """The ``<testsuites>`` element of a run of several targets: one suite per target."""
    return _suites(runs)


def _suites(runs: list[TargetRun]) -> ET.Element:
    suites = [_suite(label, started, finished) for label, started, finished in runs]
    totals = {
        key: str(sum(int(suite.get(key, "0")) for suite in suites))
        for key in ("tests", "failures", "errors", "skipped")
    }
    duration = sum(finished.duration for _, _, finished in runs)
    root = ET.Element("testsuites", {"name": SUITE_NAME, **totals, "time": _seconds(duration)})
    root.extend(suites)
    return root


def _suite(label: str, started: RunStarted | None, finished: RunFinished) -> ET.Element:
    counts = count_outcomes(finished)
    # A target that could not be reached from the start is one error, not N skipped tests.
    unreachable_at_start = bool(finished.unreachable) and not finished.lost
    cases = [] if unreachable_at_start else [_testcase(s, label) for s in finished.scenarios]
    errors = 0
    if finished.unreachable:
        cases.append(_unreachable_case(finished, label))
        errors = 1
    totals = {
        "tests": str(len(cases)),
        "failures": str(counts[Outcome.FAILED.value]),
        "errors": str(errors),
        "skipped": "0"
        if unreachable_at_start
        else str(counts[Outcome.NOT_CHECKED.value] + counts[Outcome.WAIVED.value]),
        "time": _seconds(finished.duration),
    }
    name = f"{SUITE_NAME} {label}" if label else SUITE_NAME
    suite = ET.Element("testsuite", {"name": _text(name), **totals})
    properties = ET.SubElement(suite, "properties")
    run_properties = [("run_id", finished.run_id), ("exit_code", str(finished.exit_code))]
    if label:
        run_properties.insert(0, ("world", label))
    if started is not None:
        run_properties.insert(1, ("target", started.target))
    run_properties.append(("verdict", exit_meaning(finished)))
    run_properties += [("not_checked", line) for line in unchecked_lines(finished)]
    run_properties += [("waiver", line) for line in waiver_lines(finished)]
    for name, value in run_properties:
        ET.SubElement(properties, "property", {"name": name, "value": _text(value)})
    suite.extend(cases)
    return suite


def _unreachable_case(finished: RunFinished, label: str) -> ET.Element:
    what = "the target became unreachable" if finished.lost else "the target did not answer"
    case = ET.Element(
        "testcase",
        {
            "classname": _text(f"{SUITE_NAME}.target"),
            "name": _text(f"target {label}" if label else "target"),
            "time": _seconds(finished.duration),
        },
    )
    error = ET.SubElement(
        case, "error", {"message": _text(f"{what}: {finished.unreachable}"), "type": "unreachable"}
    )
    error.text = _text(exit_meaning(finished))
    return case


def _testcase(scenario: ScenarioFinished, label: str = "") -> ET.Element:
    # The first rule names the class: it is stable from run to run, so CI keeps the history
    # of each test even when a different rule of the scenario fails.
    group = scenario.rules[0] if scenario.rules else scenario.scenario_id
    prefix = f"{SUITE_NAME}.{label}." if label else f"{SUITE_NAME}."
    attributes = {
        "classname": _text(f"{prefix}{group}"),
        "name": _text(scenario.scenario_id),
        "time": _seconds(scenario.duration),
    }
    file, line = source_location(scenario.source)
    if file:
        attributes["file"] = _text(file)
    if line is not None:
        attributes["line"] = str(line)
    case = ET.Element("testcase", attributes)
    properties = ET.SubElement(case, "properties")
    word = outcome_word(scenario.outcome)
    ET.SubElement(properties, "property", {"name": "outcome", "value": word})
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
    elif scenario.outcome is Outcome.NOT_CHECKED:
        message = f"{word}: {scenario.reason}" if scenario.reason else word
        skipped = ET.SubElement(case, "skipped", {"message": _text(message)})
        skipped.text = _text(scenario.reason or word)
    elif scenario.outcome is Outcome.WAIVED:
        # A waived failure does not turn the pipeline red; its details stay readable.
        skipped = ET.SubElement(case, "skipped", {"message": _text(f"{word}: {scenario.reason}")})
        skipped.text = _text(details or scenario.reason)
    elif scenario.outcome is Outcome.WARNING:
        for failure in scenario.failures:
            value = _text(failure_headline(failure))
            ET.SubElement(properties, "property", {"name": "warning", "value": value})
        out = ET.SubElement(case, "system-out")
        out.text = _text(
            "\n\n".join(f"{word}: {describe_failure(failure)}" for failure in scenario.failures)
        )
    return case


class JunitReporter(ArtifactReporter):
    """Writes :func:`junit_tree` to its path when the run finishes."""

    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The document as indented UTF-8 XML with a declaration."""
        return _encode(junit_tree(started, finished))

    def render_targets(self, runs: list[TargetRun]) -> bytes:
        """The document of several targets, one suite each."""
        return _encode(junit_targets_tree(runs))


def _encode(root: ET.Element) -> bytes:
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"
