"""One vocabulary for outcomes: every report names each outcome with the same word.

A run with every outcome (passed, failed, waived, advisory warning, not checked for a reason
the user can remove, not checked because the target cannot check it) goes through every
reporter: the terminal, JSON, JUnit, HTML and the GitHub step summary. Each output must
carry, for each scenario and rule, the word of :data:`OUTCOME_WORDS`, and the "cannot be
checked on this target" reason for the one the target's nature left unchecked.
"""

from __future__ import annotations

import html
import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from patgate.harness import Fake
from patgate.reporting.github import step_summary
from patgate.reporting.html_page import render_page
from patgate.reporting.json_document import report_document
from patgate.reporting.junit import junit_tree
from patgate.reporting.summary import exit_meaning, unchecked_lines
from patgate.reporting.terminal import TerminalReporter
from patgate.runner.planning.admission import NEEDS_CONTROL
from patgate.runner.results.events import (
    CANNOT_BE_CHECKED,
    Event,
    Failure,
    Outcome,
    RunFinished,
    RunStarted,
)
from tests.reporting.sample import CACHE_WARNING, CAP_FAILURE, run_events, scenario
from tests.runner.support import builtin, live
from tests.runner.support import run_events as run_for_real

WAIVED_FAILURE = Failure("TOKEN-OK", "gate", "request a token", "answered 200, not 418")
REMOVABLE = "writes to the deployment; run with --allow-writes"


@dataclass(frozen=True)
class Expected:
    """What every report must say of one scenario (and its one rule)."""

    word: str
    json: str
    by_nature: bool = False


EVERY_OUTCOME = {
    "token-ok": Expected("passed", "passed"),
    "pat-cap-sixth": Expected("failed", "failed"),
    "token-teapot": Expected("waived", "waived"),
    "token-cache": Expected("advisory warning", "warning"),
    "pat-writes": Expected("not checked", "not_checked"),
    "pat-approval": Expected("not checked", "not_checked", by_nature=True),
}


def _every_outcome_run() -> list[Event]:
    return run_events(
        scenario("token-ok", "TOKEN-OK", Outcome.PASSED),
        scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, failures=(CAP_FAILURE,)),
        scenario(
            "token-teapot",
            "TOKEN-TEAPOT",
            Outcome.WAIVED,
            failures=(WAIVED_FAILURE,),
            reason="waived until 2030-06-30: vendor case 4711 (waivers.yaml:2)",
        ),
        scenario("token-cache", "TOKEN-OAUTH-RESPONSE", Outcome.WARNING, failures=(CACHE_WARNING,)),
        scenario("pat-writes", "PAT-WRITES", Outcome.NOT_CHECKED, reason=REMOVABLE),
        scenario(
            "pat-approval",
            "PAT-APPROVAL",
            Outcome.NOT_CHECKED,
            reason=NEEDS_CONTROL,
            inherent=True,
        ),
    )


def _ends(events: Sequence[Event]) -> tuple[RunStarted, RunFinished]:
    started, finished = events[0], events[-1]
    assert isinstance(started, RunStarted)
    assert isinstance(finished, RunFinished)
    return started, finished


def _terminal(events: Sequence[Event]) -> str:
    stream = io.StringIO()
    reporter = TerminalReporter(stream, color=False, github=False)
    for event in events:
        reporter.handle(event)
    reporter.close()
    return stream.getvalue()


def _check_terminal(text: str, expected: dict[str, Expected], rules: dict[str, Expected]) -> None:
    for scenario_id, want in expected.items():
        # The progress line starts with the word, padded to "advisory warning".
        line = next(ln for ln in text.splitlines() if re.match(rf"\S.*  {scenario_id}  ", ln))
        assert line.startswith(f"{want.word:<16}  {scenario_id}  "), line
        assert (CANNOT_BE_CHECKED in line) is want.by_nature, line
    for rule_id, want in rules.items():
        row = next(ln for ln in text.splitlines() if ln.startswith(f"{rule_id}  "))
        assert re.split(r"\s{2,}", row)[2] == want.word, row
        assert (CANNOT_BE_CHECKED in row) is want.by_nature, row


def _check_json(
    document: dict[str, Any], expected: dict[str, Expected], rules: dict[str, Expected]
) -> None:
    scenarios = {s["id"]: s for s in document["scenarios"]}
    for scenario_id, want in expected.items():
        assert scenarios[scenario_id]["outcome"] == want.json
        assert scenarios[scenario_id]["reason"].startswith(CANNOT_BE_CHECKED) is want.by_nature
    reported = {rule["id"]: rule for rule in document["rules"]}
    for rule_id, want in rules.items():
        assert reported[rule_id]["outcome"] == want.json
        assert reported[rule_id]["reason"].startswith(CANNOT_BE_CHECKED) is want.by_nature


def _check_junit(root: ET.Element, expected: dict[str, Expected]) -> None:
    cases = {case.attrib["name"]: case for case in root.iter("testcase")}
    for scenario_id, want in expected.items():
        case = cases[scenario_id]
        outcome = [
            p.attrib["value"] for p in case.iter("property") if p.attrib["name"] == "outcome"
        ]
        assert outcome == [want.word]
        skipped = case.find("skipped")
        if want.word in ("not checked", "waived"):
            assert skipped is not None
            assert skipped.attrib["message"].startswith(f"{want.word}: ")
            by_nature = skipped.attrib["message"].startswith(f"not checked: {CANNOT_BE_CHECKED}")
            assert by_nature is want.by_nature
        else:
            assert skipped is None
        if want.word == "advisory warning":
            out = case.find("system-out")
            assert out is not None
            assert (out.text or "").startswith("advisory warning: ")


def _check_html(page: str, expected: dict[str, Expected]) -> None:
    for scenario_id, want in expected.items():
        row = re.search(
            rf'<tr id="scenario-\d+" [^>]*>((?:(?!</tr>).)*?>{scenario_id}<.*?)</tr>',
            page,
            re.DOTALL,
        )
        assert row is not None, scenario_id
        badge = re.search(r'<span class="badge [\w ]+">([^<]+)</span>', row.group(1))
        assert badge is not None
        assert badge.group(1).lower() == want.word
        assert (CANNOT_BE_CHECKED in html.unescape(row.group(1))) is want.by_nature


def _check_summary(markdown: str, rules: dict[str, Expected]) -> None:
    rows = {
        cells[0].strip(" `"): cells
        for line in markdown.splitlines()
        if line.startswith("| `")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    for rule_id, want in rules.items():
        _rule, _level, verdict, reason = rows[rule_id]
        assert verdict.strip("*") == want.word
        assert reason.startswith(CANNOT_BE_CHECKED) is want.by_nature


def _no_other_word(*texts: str) -> None:
    """ "skipped" or SKIP are not words of the vocabulary (JUnit's element aside)."""
    for text in texts:
        assert not re.search(r"skip", text, re.IGNORECASE), re.findall(r".{30}skip.{30}", text)


def _junit_words(root: ET.Element) -> str:
    """Every attribute value and text of a JUnit tree: what a person reads of it."""
    return "\n".join(
        [value for element in root.iter() for value in element.attrib.values()]
        + [element.text or "" for element in root.iter()]
    )


def _check_every_report(events: Sequence[Event], expected: dict[str, Expected]) -> None:
    """``expected``: per scenario id; each rule only that scenario covers must say the same."""
    started, finished = _ends(events)
    covering: dict[str, list[str]] = {}
    for item in finished.scenarios:
        for rule_id in item.rules:
            covering.setdefault(rule_id, []).append(item.scenario_id)
    rules = {rule: expected[ids[0]] for rule, ids in covering.items() if len(ids) == 1}
    assert rules
    terminal = _terminal(events)
    document = report_document(started, finished)
    root = junit_tree(started, finished)
    page = render_page(started, finished, folder=Path.cwd())
    markdown = step_summary([("", started, finished)])
    _check_terminal(terminal, expected, rules)
    _check_json(document, expected, rules)
    _check_junit(root, expected)
    _check_html(page, expected)
    _check_summary(markdown, rules)
    _no_other_word(terminal, json.dumps(document), _junit_words(root), page, markdown)


def test_every_outcome_has_the_same_word_in_every_report() -> None:
    _check_every_report(_every_outcome_run(), EVERY_OUTCOME)


def test_a_real_run_on_a_live_target_says_not_checked_and_why_in_every_report() -> None:
    chosen = [s for s in builtin() if s.id in ("token-ok", "pat-cap", "pat-approval")]
    events, end = run_for_real(chosen, live(Fake()))
    expected = {
        "token-ok": Expected("passed", "passed"),
        "pat-cap": Expected("not checked", "not_checked"),
        "pat-approval": Expected("not checked", "not_checked", by_nature=True),
    }
    assert {s.scenario_id: s.outcome.value for s in end.scenarios} == {
        sid: want.json for sid, want in expected.items()
    }
    _check_every_report(events, expected)


@pytest.mark.parametrize("word", ["skipped", "SKIP"])
def test_the_check_for_another_word_catches_it(word: str) -> None:
    # The twin of _no_other_word: a report that says "skipped" again is caught.
    with pytest.raises(AssertionError):
        _no_other_word(f"1 passed, 1 {word} in 0.84s")


def _gate_rules_not_checked(*by_nature: bool) -> RunFinished:
    items = [
        scenario(
            f"scenario-{index}",
            f"RULE-{index}",
            Outcome.NOT_CHECKED,
            reason=NEEDS_CONTROL if inherent else REMOVABLE,
            inherent=inherent,
        )
        for index, inherent in enumerate(by_nature)
    ]
    _started, finished = _ends(run_events(*items, exit_code=0))
    return finished


def test_the_last_line_offers_require_only_when_a_rule_could_be_checked() -> None:
    mixed = exit_meaning(_gate_rules_not_checked(True, False))
    assert mixed == (
        "exit 0: no gate rule failed, but 2 were not checked (--require all or --require "
        "checkable makes that fail the run); gate rules: 0 passed, 0 failed, 2 not checked"
    )


def test_the_last_line_says_the_target_cannot_check_them_when_none_could_be() -> None:
    assert exit_meaning(_gate_rules_not_checked(True, True)) == (
        "exit 0: no gate rule failed, but 2 were not checked: they cannot be checked on this "
        "target; gate rules: 0 passed, 0 failed, 2 not checked"
    )
    assert exit_meaning(_gate_rules_not_checked(True)).startswith(
        "exit 0: no gate rule failed, but 1 was not checked: it cannot be checked on this target;"
    )


def test_the_unchecked_lines_put_what_the_target_cannot_check_apart() -> None:
    finished = _gate_rules_not_checked(True, False)
    needs_control = NEEDS_CONTROL.removeprefix(f"{CANNOT_BE_CHECKED}: ")
    assert unchecked_lines(finished) == [
        f"not checked: RULE-1 ({REMOVABLE})",
        f"cannot be checked on this target: RULE-0 ({needs_control})",
    ]
    # With --require checkable the same line lists it, and the gate count leaves it out.
    required = replace(finished, require=("checkable",))
    assert unchecked_lines(required) == unchecked_lines(finished)
    assert "gate rules: 0 passed, 0 failed, 1 not checked" in exit_meaning(required)
