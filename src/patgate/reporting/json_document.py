"""``--report json:PATH``: the run as one JSON document, for programs to read."""

from __future__ import annotations

import json
from typing import Any

from patgate.reporting.artifact import ArtifactReporter, TargetRun, worst_exit_code
from patgate.reporting.summary import count_outcomes, exit_meaning
from patgate.runner.results.events import (
    Failure,
    RuleResult,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    WaiverNote,
)
from patgate.runner.results.outcomes import gate_count

__all__ = ["FORMAT_VERSION", "JsonReporter", "report_document", "targets_document"]

FORMAT_VERSION = 3
"""Raised when a key or a value is renamed or removed; adding a key keeps it. 3: the outcome
``skipped`` became ``not_checked`` (in ``outcome`` and as a ``counts`` key)."""


def report_document(started: RunStarted | None, finished: RunFinished) -> dict[str, Any]:
    """The report as plain data, keys in a fixed order (insertion order is the output order)."""
    return {
        "format_version": FORMAT_VERSION,
        "run_id": finished.run_id,
        "target": started.target if started is not None else "",
        "exit_code": finished.exit_code,
        "interrupted": bool(finished.interrupted),
        "signal": finished.interrupted or None,
        "unreachable": bool(finished.unreachable),
        "lost": finished.lost,
        "unreachable_reason": finished.unreachable,
        "duration": _seconds(finished.duration),
        "counts": count_outcomes(finished),
        "gate_rules": _gates(finished),
        "waivers": [_waiver(note) for note in finished.waivers],
        "excluded": {
            "rules": list(finished.excluded_rules),
            "scenarios": list(finished.excluded_scenarios),
        },
        "rules": [_rule(rule) for rule in finished.rules],
        "scenarios": [_scenario(scenario) for scenario in finished.scenarios],
    }


def targets_document(runs: list[TargetRun]) -> dict[str, Any]:
    """The report of a run of several targets: the worst exit code, then ``targets`` in
    the order given, each shaped as :func:`report_document` with its ``world``."""
    return {
        "format_version": FORMAT_VERSION,
        "exit_code": worst_exit_code([finished.exit_code for _, _, finished in runs]),
        "interrupted": any(finished.interrupted for _, _, finished in runs),
        "duration": _seconds(sum(finished.duration for _, _, finished in runs)),
        "targets": [
            {"world": label, **report_document(started, finished)}
            for label, started, finished in runs
        ],
    }


def _waiver(note: WaiverNote) -> dict[str, str]:
    return {
        "rule": note.rule,
        "state": note.state,
        "reason": note.reason,
        "expires": note.expires,
        "target": note.target,
        "source": note.source,
    }


def _gates(finished: RunFinished) -> dict[str, Any]:
    count = gate_count(finished.rules, finished.require)
    return {
        "passed": count.passed,
        "failed": count.failed,
        "not_checked": [{"id": rule_id, "reason": why} for rule_id, why in count.unchecked],
        "waived": count.waived,
        "not_checkable": [{"id": rule_id, "reason": why} for rule_id, why in count.uncheckable],
        "required": list(finished.require),
        "verdict": exit_meaning(finished),
    }


def _seconds(value: float) -> float:
    # Milliseconds are all a reader needs, and rounding keeps 0.1 + 0.2 noise out of diffs.
    return round(value, 3)


def _rule(rule: RuleResult) -> dict[str, Any]:
    return {
        "id": rule.rule_id,
        "title": rule.title,
        "level": rule.level,
        "outcome": rule.outcome.value,
        "scenarios": list(rule.scenarios),
        "reason": rule.reason,
    }


def _scenario(scenario: ScenarioFinished) -> dict[str, Any]:
    return {
        "id": scenario.scenario_id,
        "title": scenario.title,
        "rules": list(scenario.rules),
        "outcome": scenario.outcome.value,
        "duration": _seconds(scenario.duration),
        "reason": scenario.reason,
        "source": scenario.source,
        "failures": [_failure(failure) for failure in scenario.failures],
    }


def _failure(failure: Failure) -> dict[str, str]:
    return {
        "rule": failure.rule,
        "level": failure.level,
        "step": failure.step,
        "message": failure.message,
        "expected": failure.expected,
        "actual": failure.actual,
    }


class JsonReporter(ArtifactReporter):
    """Writes :func:`report_document` to its path when the run finishes."""

    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The document as indented UTF-8 JSON, ending in a newline."""
        return _encode(report_document(started, finished))

    def render_targets(self, runs: list[TargetRun]) -> bytes:
        """The document of several targets, as :meth:`render` encodes it."""
        return _encode(targets_document(runs))


def _encode(document: dict[str, Any]) -> bytes:
    text = json.dumps(document, indent=2, ensure_ascii=False)
    # A lone surrogate (bytes a deployment sent that were not UTF-8) cannot be encoded;
    # backslashreplace writes it as a \\udcXX escape, which JSON reads back as the same
    # character, so the file stays valid and faithful.
    return (text + "\n").encode("utf-8", errors="backslashreplace")
