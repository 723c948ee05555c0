"""GitHub Actions output: annotations on the scenario files and a Markdown step summary.

With ``GITHUB_ACTIONS=true``, ``patgate run`` prints one ``::error`` workflow command per
failed gate rule (``::warning`` per advisory one), pointing at the scenario's file and line
when the scenario is a file of the user's (a built-in one is named in the title instead:
the repository has no such file), then one ``::error`` per target whose exit code is not 0,
saying why in plain words. With ``GITHUB_STEP_SUMMARY`` naming a file, it appends a
Markdown table of every rule and its verdict, per target. Every value a scenario file, a
waivers file or the target supplied is escaped by :mod:`patgate.guards.untrusted_text`; nothing
here talks to GitHub.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from patgate.basics.levels import Level
from patgate.guards.untrusted_text import (
    annotation_data,
    annotation_property,
    markdown_text,
    on_github,
    one_line,
    print_untrusted,
)
from patgate.reporting.artifact import TargetRun
from patgate.reporting.summary import (
    OUTCOME_ORDER,
    exit_meaning,
    failure_headline,
    outcome_word,
    rule_reason,
    source_location,
)
from patgate.runner.results.events import CANNOT_BE_CHECKED, Outcome, RunFinished, ScenarioFinished

__all__ = [
    "exit_annotation",
    "publish",
    "step_summary",
    "unexplained_exit",
    "wants_annotations",
    "workflow_commands",
]

_SOURCE = re.compile(r"^(?P<file>.+):\d+$")

TITLE = "patgate run"
"""The title of the annotation that says why the run failed."""


def wants_annotations(environ: Mapping[str, str]) -> bool:
    """Whether the run is a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    return on_github(environ)


def exit_annotation(why: str, *, title: str = TITLE) -> str:
    """The ``::error`` line that says why the command exits non-zero."""
    return f"::error title={annotation_property(title)}::{annotation_data(why)}"


_NO_RUN_MEANINGS = {
    1: "the run did not complete",
    5: "internal error (a bug in patgate; the traceback is on stderr)",
    130: "interrupted (SIGINT); the cleanup ran",
    143: "interrupted (SIGTERM); the cleanup ran",
}


def unexplained_exit(code: int) -> str:
    """Why ``patgate run`` exits ``code`` when no target's verdict said so (a bug outside
    the run, a signal between two targets)."""
    return f"exit {code}: {_NO_RUN_MEANINGS.get(code, 'the run did not complete')}"


def _repository_place(scenario: ScenarioFinished, cwd: Path | None = None) -> list[str]:
    """``file=`` and ``line=`` of a scenario file inside the working directory (the
    repository's checkout); nothing for a built-in scenario or a file outside it."""
    from patgate.basics.resources import scenarios_dir

    file, line = source_location(scenario.source, cwd=cwd)
    match = _SOURCE.match(scenario.source)
    path = Path(match["file"] if match else scenario.source)
    if not file or file.startswith("../") or Path(file).is_absolute():
        return []
    if path.is_absolute():
        try:
            path.resolve().relative_to(scenarios_dir().resolve())
        except (ValueError, OSError):
            pass
        else:
            return []  # built-in: shipped inside the package, not in the repository
    place = [f"file={annotation_property(file)}"]
    return place + ([f"line={line}"] if line is not None else [])


def workflow_commands(runs: Sequence[TargetRun], *, cwd: Path | None = None) -> list[str]:
    """One workflow command per failure of a failed gate rule (``::error``) or an advisory
    rule (``::warning``), at the scenario's file and line; then one ``::error`` per target
    whose exit code is not 0, saying why. Waived rules are not annotated."""
    lines: list[str] = []
    for label, _, finished in runs:
        where = f"{label}: " if len(runs) > 1 and label else ""
        failed = {
            rule.rule_id
            for rule in finished.rules
            if rule.outcome in (Outcome.FAILED, Outcome.WARNING)
        }
        for scenario in finished.scenarios:
            if scenario.outcome not in (Outcome.FAILED, Outcome.WARNING):
                continue
            place = _repository_place(scenario, cwd)
            for failure in scenario.failures:
                if failure.rule not in failed:
                    continue
                kind = "error" if failure.level is Level.GATE else "warning"
                title = failure.rule if place else f"{failure.rule} {scenario.scenario_id}"
                properties = ",".join([*place, f"title={annotation_property(title)}"])
                message = f"{where}{scenario.scenario_id}: {failure_headline(failure)}"
                lines.append(f"::{kind} {properties}::{annotation_data(message)}")
    for label, _, finished in runs:
        if finished.exit_code != 0:
            where = f"{label}: " if len(runs) > 1 and label else ""
            lines.append(exit_annotation(where + exit_meaning(finished)))
    return lines


def _code(text: str) -> str:
    """Text inside a Markdown code span (where backslash escapes do not work): one line,
    no backtick, no cell separator."""
    return one_line(text).replace("`", "'").replace("|", "/")


def _verdict(outcome: Outcome) -> str:
    word = outcome_word(outcome)
    return f"**{word}**" if outcome is Outcome.FAILED else word


def _tally(finished: RunFinished) -> list[str]:
    """A table of how many rules got each verdict, "not checked" for a reason the user can
    remove on one row and "cannot be checked on this target" on another."""
    rows = []
    for outcome in OUTCOME_ORDER:
        group = [rule for rule in finished.rules if rule.outcome is outcome]
        if outcome is Outcome.NOT_CHECKED:
            removable = sum(not rule.inherent for rule in group)
            by_nature = len(group) - removable
            if removable:
                rows.append(f"| {_verdict(outcome)} (a reason you can remove) | {removable} |")
            if by_nature:
                rows.append(f"| {_verdict(outcome)}: {CANNOT_BE_CHECKED} | {by_nature} |")
        elif group:
            rows.append(f"| {_verdict(outcome)} | {len(group)} |")
    return ["| Verdict | Rules |", "| --- | --- |", *rows, ""] if rows else []


def step_summary(runs: Sequence[TargetRun]) -> str:
    """The Markdown a job summary shows: per target, its verdict, how many rules got each
    verdict, and a table of rules, each with why (a failure's headline, the reason it was
    not checked)."""
    parts: list[str] = []
    for label, started, finished in runs:
        name = label or (started.target if started is not None else "") or "target"
        parts.append(f"## patgate: {markdown_text(name)}\n")
        parts.append(f"**{markdown_text(exit_meaning(finished))}**\n")
        for note in finished.waivers:
            parts.append(
                f"- waiver {markdown_text(note.state)}: {markdown_text(note.rule)} until "
                f"{markdown_text(note.expires)}: {markdown_text(note.reason)}"
            )
        if finished.waivers:
            parts.append("")
        parts.extend(_tally(finished))
        parts.append("| Rule | Level | Verdict | Reason |")
        parts.append("| --- | --- | --- | --- |")
        for rule in finished.rules:
            reason = rule_reason(rule, finished.scenarios)
            parts.append(
                f"| `{_code(rule.rule_id)}` | {rule.level.value} | {_verdict(rule.outcome)} | "
                f"{markdown_text(reason) if reason else ' '} |"
            )
        parts.append("")
    return "\n".join(parts) + "\n"


def publish(runs: Sequence[TargetRun]) -> bool:
    """In a GitHub Actions step, print the annotations of :func:`workflow_commands`; with
    ``GITHUB_STEP_SUMMARY`` set, append the :func:`step_summary`. Whether the annotations
    were printed (they say why each target's exit code is not 0)."""
    annotate = on_github()
    if annotate:
        for line in workflow_commands(runs):
            print(line, flush=True)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as stream:
                stream.write(step_summary(runs))
        except OSError as error:
            print_untrusted(
                f"patgate run: cannot append the step summary to {summary}: {error}", sys.stderr
            )
    return annotate
