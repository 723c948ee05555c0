"""GitHub Actions output: annotations on the scenario files and a Markdown step summary.

With ``GITHUB_ACTIONS=true``, ``patgate run`` prints one ``::error`` workflow command per
failed gate rule (``::warning`` per advisory one), pointing at the scenario's file and line,
so the failure shows on the pull request. With ``GITHUB_STEP_SUMMARY`` naming a file, it
appends a Markdown table of every rule and its verdict, per target. Both follow GitHub's
documented workflow-command and job-summary formats; nothing here talks to GitHub.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from patgate.levels import Level
from patgate.reporting.artifact import TargetRun
from patgate.reporting.summary import exit_meaning, failure_headline, source_location
from patgate.runner.results.events import Outcome

__all__ = ["step_summary", "wants_annotations", "workflow_commands"]


def wants_annotations(environ: Mapping[str, str]) -> bool:
    """Whether the run is a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    return environ.get("GITHUB_ACTIONS", "").lower() == "true"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_commands(runs: Sequence[TargetRun]) -> list[str]:
    """One workflow command per failure of a failed gate rule (``::error``) or an advisory
    rule (``::warning``), at the scenario's file and line; one ``::error`` per target that
    could not be reached. Waived rules are not annotated."""
    lines: list[str] = []
    for label, _, finished in runs:
        where = f"{label}: " if len(runs) > 1 and label else ""
        if finished.unreachable:
            lines.append(f"::error title=patgate::{_data(where + exit_meaning(finished))}")
        failed = {
            rule.rule_id
            for rule in finished.rules
            if rule.outcome in (Outcome.FAILED, Outcome.WARNING)
        }
        for scenario in finished.scenarios:
            if scenario.outcome not in (Outcome.FAILED, Outcome.WARNING):
                continue
            file, line = source_location(scenario.source)
            place = [f"file={_property(file)}"] if file else []
            place += [f"line={line}"] if line is not None else []
            for failure in scenario.failures:
                if failure.rule not in failed:
                    continue
                kind = "error" if failure.level is Level.GATE else "warning"
                properties = ",".join([*place, f"title={_property(failure.rule)}"])
                message = f"{where}{scenario.scenario_id}: {failure_headline(failure)}"
                lines.append(f"::{kind} {properties}::{_data(message)}")
    return lines


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or " "


_VERDICTS = {
    Outcome.PASSED: "passed",
    Outcome.FAILED: "**failed**",
    Outcome.WAIVED: "waived",
    Outcome.WARNING: "warning",
    Outcome.SKIPPED: "not checked",
}


def step_summary(runs: Sequence[TargetRun]) -> str:
    """The Markdown a job summary shows: per target, its verdict and a table of rules."""
    parts: list[str] = []
    for label, started, finished in runs:
        name = label or (started.target if started is not None else "") or "target"
        parts.append(f"## patgate: {_cell(name)}\n")
        parts.append(f"**{_cell(exit_meaning(finished))}**\n")
        for note in finished.waivers:
            parts.append(
                f"- waiver {note.state}: {_cell(note.rule)} until {note.expires}: "
                f"{_cell(note.reason)}"
            )
        if finished.waivers:
            parts.append("")
        parts.append("| Rule | Level | Verdict | Reason |")
        parts.append("| --- | --- | --- | --- |")
        for rule in finished.rules:
            verdict = _VERDICTS.get(rule.outcome, rule.outcome.value)
            parts.append(
                f"| `{_cell(rule.rule_id)}` | {rule.level.value} | {verdict} | "
                f"{_cell(rule.reason) if rule.reason else ' '} |"
            )
        parts.append("")
    return "\n".join(parts) + "\n"
