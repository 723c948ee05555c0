"""What every report says the same way: counts, the summary line, the exit code, a failure.

The terminal, JUnit and HTML reporters all print these, so a person sees the same words in
each of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from patgate.basics.levels import Level
from patgate.runner.results.events import (
    CANNOT_BE_CHECKED,
    OUTCOME_WORDS,
    Failure,
    Outcome,
    RuleResult,
    RunFinished,
    ScenarioFinished,
    Tallies,
)
from patgate.runner.results.outcomes import EXIT_UNCHECKED, gate_count

__all__ = [
    "OUTCOME_ORDER",
    "count_outcomes",
    "custody_line",
    "describe_failure",
    "exit_meaning",
    "failure_headline",
    "gate_line",
    "outcome_word",
    "rule_reason",
    "source_location",
    "summary_line",
    "unchecked_lines",
    "waiver_lines",
]

_SOURCE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")
_LINE_BREAK = re.compile(r"\r?\n")

OUTCOME_ORDER: tuple[Outcome, ...] = (
    Outcome.FAILED,
    Outcome.WAIVED,
    Outcome.WARNING,
    Outcome.NOT_CHECKED,
    Outcome.PASSED,
)
"""Worst first: the order in which reports group rules and scenarios."""

_SUMMARY_ORDER = (
    Outcome.PASSED,
    Outcome.FAILED,
    Outcome.WAIVED,
    Outcome.WARNING,
    Outcome.NOT_CHECKED,
)


def outcome_word(outcome: Outcome) -> str:
    """The word every report shows for ``outcome`` (``not checked``), from the one table,
    :data:`~patgate.runner.results.events.OUTCOME_WORDS`."""
    return OUTCOME_WORDS[outcome].word


def count_outcomes(finished: RunFinished) -> dict[str, int]:
    """Scenarios per outcome value, every outcome present, in a fixed order.

    The runner's own ``counts`` win; they are tallied from the scenarios only when the
    runner sent none. Keys the runner added beyond the four outcomes follow, sorted.
    """
    source: Mapping[str, int] = finished.counts or _tally(finished.scenarios)
    counts = {outcome.value: int(source.get(outcome.value, 0)) for outcome in _SUMMARY_ORDER}
    tallies = dict(finished.tallies.as_counts()) if finished.tallies is not None else {}
    for key in sorted((set(source) | set(tallies)) - set(counts)):
        counts[key] = int(tallies.get(key, source.get(key, 0)))
    return counts


def _tally(scenarios: Iterable[ScenarioFinished]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for scenario in scenarios:
        counts[scenario.outcome.value] = counts.get(scenario.outcome.value, 0) + 1
    return counts


def summary_line(counts: Mapping[str, int], duration: float) -> str:
    """``12 passed, 1 failed, 2 advisory warnings, 3 not checked in 0.84s``; outcomes with 0
    are left out."""
    parts = []
    for outcome in _SUMMARY_ORDER:
        number = counts.get(outcome.value, 0)
        if number:
            parts.append(OUTCOME_WORDS[outcome].counted(number))
    return f"{', '.join(parts) or 'no scenarios'} in {duration:.2f}s"


def custody_line(tallies: Tallies | None) -> str:
    """``tokens: 3 created, 3 deleted, 0 leaked`` (then refused deletes and retries when
    there were any), or ``""`` when the run reported no ledger."""
    if tallies is None:
        return ""
    line = (
        f"tokens: {tallies.tokens_created} created, {tallies.tokens_deleted} deleted,"
        f" {tallies.tokens_leaked} leaked"
    )
    if tallies.deletes_refused:
        line += f", {tallies.deletes_refused} deletes refused"
    if tallies.wrong_ids:
        line += f", {tallies.wrong_ids} wrong ids answered (left alone)"
    if tallies.retries:
        line += f"; {tallies.retries} requests resent after 429/503"
    return line


def gate_line(finished: RunFinished) -> str:
    """``gate rules: 11 passed, 0 failed, 20 not checked``."""
    count = gate_count(finished.rules, finished.require)
    waived = f"{count.waived} waived, " if count.waived else ""
    return (
        f"gate rules: {count.passed} passed, {count.failed} failed, {waived}"
        f"{len(count.unchecked)} not checked"
    )


def unchecked_lines(finished: RunFinished) -> list[str]:
    """``not checked: PAT-CAP (writes to the deployment; ...)``, one per gate rule left
    unchecked for a reason the user can remove; then ``cannot be checked on this target:
    PAT-APPROVAL (needs control ...)`` for each gate rule the target cannot check by its
    nature (with ``--require checkable``: listed, not counted)."""
    count = gate_count(finished.rules, finished.require)
    removable = set(count.removable)
    lines = [
        f"not checked: {rule_id} ({why})"
        for rule_id, why in count.unchecked
        if rule_id in removable
    ]
    lines += [
        f"{CANNOT_BE_CHECKED}: {rule_id} ({why.removeprefix(CANNOT_BE_CHECKED + ': ')})"
        for rule_id, why in (*count.unchecked, *count.uncheckable)
        if rule_id not in removable
    ]
    return lines


def waiver_lines(finished: RunFinished) -> list[str]:
    """One line per waiver of the run's target: ``waived: PAT-CAP until 2026-12-31: why
    (waivers.yaml:3)``, ``waiver expired: ...`` (it no longer applies) or ``stale waiver:
    ...`` (the rule did not fail); then what ``--exclude-rule`` and ``--exclude-scenario``
    left out of the run."""
    words = {
        "applied": "waived: {rule} until {expires}",
        "expired": "waiver expired: {rule} on {expires}, it no longer applies",
        "stale": "stale waiver: {rule} did not fail (until {expires})",
    }
    lines = []
    for note in finished.waivers:
        head = words.get(note.state, "waiver: {rule}").format(rule=note.rule, expires=note.expires)
        where = f" ({note.source})" if note.source else ""
        lines.append(f"{head}: {note.reason}{where}")
    if finished.excluded_rules:
        lines.append(f"excluded rules (--exclude-rule): {', '.join(finished.excluded_rules)}")
    if finished.excluded_scenarios:
        lines.append(f"excluded scenarios: {', '.join(finished.excluded_scenarios)}")
    return lines


def exit_meaning(finished: RunFinished) -> str:
    """What the run's exit code means, in words a person acts on, then the gate rules'
    counts. "every gate rule passed" is said only when every gate rule in scope was checked."""
    return f"{_meaning(finished)}; {gate_line(finished)}"


def _were_not_checked(number: int) -> str:
    return f"{number} {'was' if number == 1 else 'were'} not checked"


_EXIT_MEANINGS = {
    2: "usage error",
    3: "the target did not answer",
    5: "internal error (a bug in patgate; the reports were written and the cleanup "
    "ran; the traceback is on stderr)",
    130: "interrupted (SIGINT)",
    143: "interrupted (SIGTERM)",
}


def _meaning(finished: RunFinished) -> str:
    code = finished.exit_code
    if code == 0:
        return _meaning_of_a_pass(finished)
    if code == EXIT_UNCHECKED:
        unchecked = gate_count(finished.rules, finished.require).unchecked
        named = f" ({', '.join(rule_id for rule_id, _ in unchecked)})" if unchecked else ""
        return f"exit {code}: a gate rule --require names was not checked{named}"
    if code == 1:
        return _meaning_of_a_failure(finished)
    if code == 3 and finished.lost:
        return f"exit {code}: the target became unreachable mid-run ({finished.unreachable})"
    if code == 3 and finished.unreachable:
        return f"exit {code}: the target did not answer ({finished.unreachable})"
    return f"exit {code}: {_EXIT_MEANINGS.get(code, 'the run did not complete')}"


def _meaning_of_a_pass(finished: RunFinished) -> str:
    """Exit 0: whether every gate rule was checked, and why not; warnings do not fail."""
    count = gate_count(finished.rules, finished.require)
    if count.waived:
        said = f"no gate rule failed but {count.waived} waived"
        if not count.all_checked:
            said += f", and {_were_not_checked(len(count.unchecked))}"
    elif count.all_checked and count.uncheckable:
        said = (
            "every gate rule this target can check passed "
            f"({len(count.uncheckable)} cannot be checked on it)"
        )
    elif count.all_checked:
        said = "every gate rule passed"
    elif count.removable:
        said = (
            f"no gate rule failed, but {_were_not_checked(len(count.unchecked))} "
            "(--require all or --require checkable makes that fail the run)"
        )
    else:
        # Nothing the user can change would check them: no flag to suggest.
        said = (
            f"no gate rule failed, but {_were_not_checked(len(count.unchecked))}: "
            f"{'it' if len(count.unchecked) == 1 else 'they'} {CANNOT_BE_CHECKED}"
        )
    if any(scenario.outcome is Outcome.WARNING for scenario in finished.scenarios):
        return f"exit 0: {said}; warnings do not fail the run"
    return f"exit 0: {said}"


def _meaning_of_a_failure(finished: RunFinished) -> str:
    """Exit 1: a gate rule failed, the tokens were not all accounted for, or --strict."""
    gate_failed = any(
        rule.level is Level.GATE and rule.outcome is Outcome.FAILED for rule in finished.rules
    ) or any(
        failure.level is Level.GATE
        for scenario in finished.scenarios
        if scenario.outcome is Outcome.FAILED
        for failure in scenario.failures
    )
    if gate_failed or not finished.scenarios:
        return "exit 1: a gate rule failed"
    if finished.tallies is not None and (
        finished.tallies.left_behind or finished.tallies.wrong_ids
    ):
        return (
            "exit 1: the run left tokens behind, refused a delete or was answered a "
            "wrong id (see tokens:)"
        )
    return "exit 1: an advisory rule failed and --strict makes that fail the run"


def rule_reason(rule: RuleResult, scenarios: Iterable[ScenarioFinished]) -> str:
    """Why ``rule`` has its verdict: its own reason (why it was not checked, a waiver's);
    for a rule that failed or warned without one, the headline of its first failure
    (``(and 2 more)`` when there are others), or the failing scenario's reason."""
    if rule.reason or rule.outcome not in (Outcome.FAILED, Outcome.WARNING, Outcome.WAIVED):
        return rule.reason
    failures = [f for s in scenarios for f in s.failures if f.rule == rule.rule_id]
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        return failure_headline(failures[0]) + more
    stopped = [s.reason for s in scenarios if rule.rule_id in s.rules and s.reason]
    return stopped[0] if stopped else f"{outcome_word(rule.outcome)}; see the scenarios"


def failure_headline(failure: Failure) -> str:
    """One line: ``PAT-CAP (gate) at step "create a 6th token": the create was accepted``."""
    where = f' at step "{failure.step}"' if failure.step else ""
    return f"{failure.rule} ({failure.level}){where}: {failure.message}"


def describe_failure(failure: Failure) -> str:
    """The headline, then the documented clause the rule holds the target to, what a
    conforming answer would be and what the target answered, each on its own indented
    lines."""
    lines = [failure_headline(failure)]
    for label, value in (
        ("clause", failure.clause),
        ("expected", failure.expected),
        ("actual", failure.actual),
    ):
        if value:
            # Only LF (or CRLF) starts a line: other breaks stay in the text, for the
            # reporter to escape (a runner would read U+2028 or a lone CR as a new line).
            first, *rest = _LINE_BREAK.split(value)
            lines.append(f"  {label + ':':<9} {first}")
            lines.extend(f"  {'':<9} {line}" for line in rest)
    return "\n".join(lines)


def source_location(source: str, *, cwd: Path | None = None) -> tuple[str, int | None]:
    """A scenario's ``path:line`` as a report shows it: a built-in scenario as
    ``patgate/scenarios/NAME.yaml``, another file relative to the working directory (never
    the machine's absolute path); the line, or ``None``."""
    from patgate.basics.resources import scenarios_dir

    match = _SOURCE.match(source)
    file, line = (match["file"], int(match["line"])) if match else (source, None)
    if not file:
        return "", line
    path = Path(file)
    if path.is_absolute():
        try:
            builtin = path.resolve().relative_to(scenarios_dir().resolve())
        except (ValueError, OSError, FileNotFoundError):
            base = cwd if cwd is not None else Path.cwd()
            try:
                file = os.path.relpath(path, base)
            except ValueError:  # another drive (Windows)
                file = path.as_posix()
        else:
            file = f"patgate/scenarios/{builtin.as_posix()}"
    return Path(file).as_posix(), line
