"""``--report terminal``: progress while the run goes, a rule table and a verdict at the end.

Every value a scenario file, a waivers file or the target supplied is printed through
:mod:`patgate.guards.untrusted_text`: on one line where the view has one line, else with no line a
workflow command; on a GitHub runner each failure's details (the target's answer) are
printed between ``::stop-commands::`` and its resume token.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TextIO

from patgate.guards.untrusted_text import commands_stopped, on_github, one_line, safe_text
from patgate.reporting.summary import (
    count_outcomes,
    custody_line,
    describe_failure,
    exit_meaning,
    summary_line,
    unchecked_lines,
    waiver_lines,
)
from patgate.reporting.text import indent_block
from patgate.runner.results.events import (
    OUTCOME_WORDS,
    Event,
    Outcome,
    RuleResult,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    Targets,
)

__all__ = ["MARKS", "TerminalReporter", "wants_color"]

_WORD_WIDTH = max(len(words.word) for words in OUTCOME_WORDS.values())
MARKS: dict[Outcome, str] = {outcome: words.word for outcome, words in OUTCOME_WORDS.items()}
"""The mark that starts a scenario's progress line: the outcome's word (padded after it, so
the scenario ids line up)."""

_COLORS = {
    Outcome.PASSED: "32",
    Outcome.FAILED: "31",
    Outcome.WAIVED: "35",
    Outcome.WARNING: "33",
    Outcome.NOT_CHECKED: "36",
}
_DETAIL_INDENT = " " * 6


def wants_color(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal that shows colour and ``NO_COLOR`` is not set.

    As https://no-color.org asks, any non-empty ``NO_COLOR`` turns colour off.
    """
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or already closed
        return False


class TerminalReporter:
    """Writes one line per finished scenario, then the rule table, the counts and exit code.

    ``color`` forces colour on or off; by default it follows :func:`wants_color`.
    ``github`` forces the stop-commands blocks around failure details on or off; by
    default they are on in a GitHub Actions step.
    """

    def __init__(
        self, stream: TextIO, *, color: bool | None = None, github: bool | None = None
    ) -> None:
        self.stream = stream
        self.color = wants_color(stream) if color is None else color
        self.github = on_github() if github is None else github
        self._started: RunStarted | None = None
        self._reported = 0
        self._finished = False
        self._labels: tuple[str, ...] = ()
        self._target = 0

    def handle(self, event: Event) -> None:
        """Print what ``event`` tells a person watching the run."""
        if isinstance(event, Targets):
            self._labels = event.labels
        elif isinstance(event, RunStarted):
            if self._labels:
                self._target += 1
                label = self._labels[self._target - 1] if self._target <= len(self._labels) else ""
                self._write(
                    f"{'' if self._target == 1 else chr(10)}== target {self._target} of"
                    f" {len(self._labels)}: {one_line(label)} =="
                )
            self._started = event
            self._reported = 0
            self._finished = False
            noun = "scenario" if event.scenario_count == 1 else "scenarios"
            self._write(
                f"patgate run {one_line(event.run_id)}: {event.scenario_count} {noun}"
                f" against {one_line(event.target)}"
            )
            if event.keys:
                self._write(f"target keys: {one_line(', '.join(event.keys))}")
            for key, cost in event.missing:
                self._write(f"  missing {one_line(key)}: {one_line(cost)}")
        elif isinstance(event, ScenarioFinished):
            self._reported += 1
            self._write(self._scenario_line(event))
            details = self._details(event)
            if details:
                with commands_stopped(self.stream, github=self.github):
                    self._write(details)
        elif isinstance(event, RunFinished):
            self._finished = True
            self._write(self._closing_lines(event))

    def close(self) -> None:
        """Say so when the run stopped before it finished; flush the stream."""
        if self._started is not None and not self._finished:
            self._write(
                f"the run stopped before it finished: {self._reported} of"
                f" {self._started.scenario_count} scenarios reported"
            )
        self.stream.flush()

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def _scenario_line(self, scenario: ScenarioFinished) -> str:
        word = MARKS[scenario.outcome]
        # Pad outside the paint: escape codes take no room on screen but count in len().
        mark = self._paint(word, _COLORS[scenario.outcome]) + " " * (_WORD_WIDTH - len(word))
        line = (
            f"{mark}  {one_line(scenario.scenario_id)}  {one_line(scenario.title)}"
            f" ({scenario.duration:.2f}s)"
        )
        if scenario.reason:
            line += f": {one_line(scenario.reason)}"
        return line

    @staticmethod
    def _details(scenario: ScenarioFinished) -> str:
        """Each failure's headline, expected and actual values: what the target answered."""
        if scenario.outcome not in (Outcome.FAILED, Outcome.WAIVED, Outcome.WARNING):
            return ""
        return "\n".join(
            indent_block(safe_text(describe_failure(failure)), _DETAIL_INDENT)
            for failure in scenario.failures
        )

    def _closing_lines(self, finished: RunFinished) -> str:
        counts = count_outcomes(finished)
        if counts[Outcome.FAILED.value]:
            tone = _COLORS[Outcome.FAILED]
        elif counts[Outcome.WARNING.value]:
            tone = _COLORS[Outcome.WARNING]
        else:
            tone = _COLORS[Outcome.PASSED]
        lines = ["", *self._rule_table(finished.rules), ""]
        lines.append(self._paint(summary_line(counts, finished.duration), "1;" + tone))
        custody = custody_line(finished.tallies)
        if custody:
            leaked = finished.tallies is not None and finished.tallies.left_behind
            lines.append(self._paint(custody, _COLORS[Outcome.FAILED]) if leaked else custody)
        lines.extend(one_line(line) for line in unchecked_lines(finished))
        lines.extend(one_line(line) for line in waiver_lines(finished))
        lines.append(one_line(exit_meaning(finished)))
        return "\n".join(lines)

    def _rule_table(self, rules: Sequence[RuleResult]) -> list[str]:
        if not rules:
            return ["no rules were reported"]
        id_width = max(len("RULE"), *(len(one_line(rule.rule_id)) for rule in rules))
        level_width = max(len("LEVEL"), *(len(one_line(rule.level)) for rule in rules))
        outcome_width = _WORD_WIDTH
        lines = [
            f"{'RULE':<{id_width}}  {'LEVEL':<{level_width}}  {'OUTCOME':<{outcome_width}}"
            "  SCENARIOS"
        ]
        for rule in rules:
            covering = ", ".join(rule.scenarios) or "-"
            if rule.reason:
                covering += f" ({rule.reason})"
            word = MARKS[rule.outcome]
            outcome = self._paint(word, _COLORS[rule.outcome]) + " " * (outcome_width - len(word))
            lines.append(
                f"{one_line(rule.rule_id):<{id_width}}  {one_line(rule.level):<{level_width}}"
                f"  {outcome}  {one_line(covering)}"
            )
        return lines
