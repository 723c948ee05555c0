from __future__ import annotations

import io
import re

import pytest

from patgate.reporting import make_reporter
from patgate.reporting.terminal import TerminalReporter
from patgate.runner.results.events import Event, Failure, Outcome
from tests.reporting.sample import (
    CAP_ACTUAL,
    CAP_EXPECTED,
    SAMPLE_SCENARIOS,
    feed_events,
    run_events,
    scenario,
)


class FakeTty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def render(events: list[Event]) -> str:
    stream = io.StringIO()
    feed_events(make_reporter("terminal", stream=stream), events)
    return stream.getvalue()


def test_the_summary_line_counts_every_outcome(sample_run: list[Event]) -> None:
    output = render(sample_run)
    assert "2 passed, 1 failed, 1 advisory warning, 1 not checked in 0.84s" in output
    assert "exit 1: a gate rule failed" in output


def test_one_progress_line_per_scenario_with_mark_id_title_and_duration(
    sample_run: list[Event],
) -> None:
    lines = render(sample_run).splitlines()
    # The outcome's word, padded so the ids line up under the longest, "advisory warning".
    assert "passed            token-ok  Checks TOKEN-OK (0.12s)" in lines
    assert "failed            pat-cap-sixth  Checks PAT-CAP (0.12s)" in lines
    assert "advisory warning  token-cache  Checks TOKEN-OAUTH-RESPONSE (0.12s)" in lines
    assert (
        "not checked       pat-approval  Checks PAT-APPROVAL (0.12s): needs member_token" in lines
    )


def test_a_failure_shows_rule_step_expected_and_actual_indented(
    sample_run: list[Event],
) -> None:
    lines = render(sample_run).splitlines()
    start = lines.index("failed            pat-cap-sixth  Checks PAT-CAP (0.12s)")
    assert lines[start + 1 : start + 4] == [
        '      PAT-CAP (gate) at step "create a 6th token": the 6th create was accepted',
        f"        expected: {CAP_EXPECTED}",
        f"        actual:   {CAP_ACTUAL}",
    ]


def test_the_rule_table_lists_id_level_outcome_and_covering_scenarios(
    sample_run: list[Event],
) -> None:
    lines = render(sample_run).splitlines()
    header = next(line for line in lines if line.startswith("RULE"))
    assert header.split() == ["RULE", "LEVEL", "OUTCOME", "SCENARIOS"]
    # Columns are two spaces apart; a word ("not checked") has single spaces.
    rows = {
        line.split()[0]: re.split(r"\s{2,}", line)
        for line in lines[lines.index(header) + 1 :]
        if line
    }
    assert rows["PAT-CAP"] == ["PAT-CAP", "gate", "failed", "pat-cap-sixth"]
    assert rows["TOKEN-OAUTH-RESPONSE"] == [
        "TOKEN-OAUTH-RESPONSE",
        "advisory",
        "advisory warning",
        "token-cache",
    ]
    assert rows["PAT-APPROVAL"] == [
        "PAT-APPROVAL",
        "gate",
        "not checked",
        "pat-approval (needs member_token)",
    ]


def test_a_clean_run_says_exit_0() -> None:
    output = render(run_events(*SAMPLE_SCENARIOS[:2], exit_code=0))
    assert "2 passed in 0.84s" in output
    assert "exit 0: every gate rule passed" in output


def test_no_colour_when_the_stream_is_not_a_terminal(sample_run: list[Event]) -> None:
    assert "\x1b" not in render(sample_run)


def test_colour_on_a_terminal(monkeypatch: pytest.MonkeyPatch, sample_run: list[Event]) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    stream = FakeTty()
    feed_events(make_reporter("terminal", stream=stream), sample_run)
    assert f"\x1b[31mfailed\x1b[0m{' ' * 12}pat-cap-sixth" in stream.getvalue()


def test_no_colour_on_a_terminal_when_no_color_is_set(
    monkeypatch: pytest.MonkeyPatch, sample_run: list[Event]
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    stream = FakeTty()
    feed_events(make_reporter("terminal", stream=stream), sample_run)
    assert "\x1b" not in stream.getvalue()


def test_escape_sequences_from_a_deployment_are_shown_not_obeyed() -> None:
    hostile = Failure("PAT-CAP", "gate", "create", "bad\u202e", actual="\x1b[2J\x1b]0;pwned\x07")
    events = run_events(scenario("s", "PAT-CAP", Outcome.FAILED, failures=(hostile,)))
    output = render(events)
    assert "\x1b" not in output
    assert "\x07" not in output
    assert "bad\\u202e" in output
    assert "actual:   \\x1b[2J\\x1b]0;pwned\\x07" in output


def test_a_multi_line_value_stays_in_its_column() -> None:
    failure = Failure("PAT-CAP", "gate", "list", "too many", expected="5", actual="line 1\nline 2")
    lines = render(
        run_events(scenario("s", "PAT-CAP", Outcome.FAILED, failures=(failure,)))
    ).splitlines()
    index = lines.index("        actual:   line 1")
    assert lines[index + 1] == "                  line 2"


def test_a_run_that_stops_early_says_so(sample_run: list[Event]) -> None:
    stream = io.StringIO()
    reporter = TerminalReporter(stream)
    for event in sample_run[:3]:
        reporter.handle(event)
    reporter.close()
    assert "the run stopped before it finished: 1 of 5 scenarios reported" in stream.getvalue()
