"""GitHub Actions output: workflow-command annotations at the scenario's file and line, a
Markdown step summary per target, and report paths relative to the working directory."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from patgate.basics.resources import scenarios_dir, specs_dir
from patgate.cli import main
from patgate.reporting.github import step_summary, wants_annotations, workflow_commands
from patgate.reporting.junit import junit_tree
from patgate.reporting.summary import source_location
from patgate.runner.planning.admission import NEEDS_CONTROL
from patgate.runner.results.events import Event, Failure, Outcome, RunFinished, RunStarted
from tests.reporting.sample import CAP_FAILURE, SAMPLE_SCENARIOS, run_events, scenario

FAILING = """\
id: token-teapot
title: Expects a status no deployment answers
rules: [TOKEN-OK]
steps:
  - token: {client_id: "${client_id}", client_secret: "${client_secret}",
            grant_type: client_credentials}
    expect:
      - status: 418
"""


def _ends(events: list[Event]) -> tuple[RunStarted, RunFinished]:
    started, finished = events[0], events[-1]
    assert isinstance(started, RunStarted)
    assert isinstance(finished, RunFinished)
    return started, finished


def test_failed_gate_rules_are_errors_and_advisories_warnings_at_file_and_line() -> None:
    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    lines = workflow_commands([("", started, finished)])
    assert lines == [
        "::error file=scenarios/pat-cap.yaml,line=12,title=PAT-CAP::pat-cap-sixth: "
        'PAT-CAP (gate) at step "create a 6th token": the 6th create was accepted',
        "::warning file=scenarios/token-oauth-response.yaml,line=12,"
        "title=TOKEN-OAUTH-RESPONSE::token-cache: TOKEN-OAUTH-RESPONSE (advisory) at step "
        '"request a token": Cache-Control lacks no-store',
        "::error title=patgate run::exit 1: a gate rule failed; gate rules: 2 passed, 1 failed, "
        "1 not checked",
    ]


def test_a_message_cannot_start_another_workflow_command() -> None:
    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    failing = finished.scenarios[2]
    bad = dataclasses.replace(
        failing.failures[0], message="line one\n::error::forged 100%", step="a,b:c"
    )
    scenario = dataclasses.replace(failing, failures=(bad,), source="odd,name:x.yaml:3")
    finished = dataclasses.replace(finished, scenarios=(scenario,))
    line, _verdict = workflow_commands([("", started, finished)])
    assert "\n" not in line
    assert "%0A\\x3a:error::forged 100%25" in line
    assert line.startswith("::error file=odd%2Cname%3Ax.yaml,line=3,title=PAT-CAP::")


def test_only_github_actions_turns_annotations_on() -> None:
    assert wants_annotations({"GITHUB_ACTIONS": "true"})
    assert not wants_annotations({})
    assert not wants_annotations({"GITHUB_ACTIONS": "false"})


def test_the_step_summary_has_a_table_of_rules_and_verdicts_per_target() -> None:
    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    text = step_summary([("staging.yaml", started, finished), ("prod.yaml", started, finished)])
    assert text.count("| Rule | Level | Verdict | Reason |") == 2
    assert "## patgate: staging.yaml" in text
    assert "## patgate: prod.yaml" in text
    assert "| `PAT-CAP` | gate | **failed** |" in text
    assert "| `PAT-APPROVAL` | gate | not checked | needs member_token |" in text


def test_report_paths_are_relative_and_builtin_scenarios_are_named_in_the_package(
    tmp_path: Path,
) -> None:
    builtin = scenarios_dir() / "pat-cap.yaml"
    assert source_location(f"{builtin}:1") == ("patgate/scenarios/pat-cap.yaml", 1)
    mine = tmp_path / "ci" / "mine.yaml"
    assert source_location(f"{mine}:7", cwd=tmp_path) == ("ci/mine.yaml", 7)
    assert source_location("relative/x.yaml:2") == ("relative/x.yaml", 2)
    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    scenario = dataclasses.replace(finished.scenarios[0], source=f"{builtin}:1")
    finished = dataclasses.replace(finished, scenarios=(scenario,))
    case = junit_tree(started, finished).find("testsuite/testcase")
    assert case is not None
    assert (case.get("file"), case.get("line")) == ("patgate/scenarios/pat-cap.yaml", "1")


def test_patgate_run_in_github_actions_annotates_and_appends_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "gate.yaml").write_text(FAILING, encoding="utf-8")
    summary = tmp_path / "step-summary.txt"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    report = tmp_path / "r.xml"
    assert main(["run", "--scenarios", "ci/gate.yaml", "--report", f"junit:{report}"]) == 1
    out = capsys.readouterr().out
    assert "::error file=ci/gate.yaml,line=1,title=TOKEN-OK::token-teapot: TOKEN-OK" in out
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## patgate: embedded fake")
    assert "| `TOKEN-OK` | gate | **failed** |" in text
    case = ET.parse(report).getroot().find("testsuite/testcase")  # noqa: S314 (our own report)
    assert case is not None
    assert case.get("file") == "ci/gate.yaml"


def test_the_report_schema_types_every_yes_no_field_as_a_boolean() -> None:
    schema = json.loads((specs_dir() / "report.schema.json").read_text(encoding="utf-8"))
    typed: dict[str, set[str]] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for name, sub in (node.get("properties") or {}).items():
                if isinstance(sub, dict) and "type" in sub:
                    kinds = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
                    typed.setdefault(name, set()).update(kinds)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    for name in ("interrupted", "unreachable", "lost"):
        assert typed[name] == {"boolean"}, name
    assert "boolean" not in typed["signal"]


def test_a_waived_rule_is_not_annotated() -> None:
    from patgate.runner.results.events import Outcome

    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    rules = tuple(
        dataclasses.replace(rule, outcome=Outcome.WAIVED) if rule.rule_id == "PAT-CAP" else rule
        for rule in finished.rules
    )
    scenarios = tuple(
        dataclasses.replace(s, outcome=Outcome.WAIVED) if s.scenario_id == "pat-cap-sixth" else s
        for s in finished.scenarios
    )
    finished = dataclasses.replace(finished, rules=rules, scenarios=scenarios, exit_code=0)
    lines = workflow_commands([("", started, finished)])
    assert [line.split(" ", 1)[0] for line in lines] == ["::warning"]


def test_a_builtin_scenario_is_annotated_by_rule_and_scenario_without_a_file(
    tmp_path: Path,
) -> None:
    started, finished = _ends(run_events(*SAMPLE_SCENARIOS))
    failing = finished.scenarios[2]
    builtin = dataclasses.replace(failing, source=f"{scenarios_dir() / 'pat-cap.yaml'}:12")
    elsewhere = dataclasses.replace(failing, source=f"{tmp_path.parent / 'other.yaml'}:3")
    mine = dataclasses.replace(failing, source=f"{tmp_path / 'ci' / 'gate.yaml'}:7")
    lines = []
    for source in (builtin, elsewhere, mine):
        run = dataclasses.replace(finished, scenarios=(source,))
        lines.append(workflow_commands([("", started, run)], cwd=tmp_path)[0])
    properties = [line.split("::")[1].split(" ", 1)[1] for line in lines]
    assert properties == [
        "title=PAT-CAP pat-cap-sixth",
        "title=PAT-CAP pat-cap-sixth",
        "file=ci/gate.yaml,line=7,title=PAT-CAP",
    ]


@pytest.mark.parametrize("github", [True, False])
def test_the_terminal_prints_failure_details_in_a_stop_commands_block_on_a_runner(
    github: bool,
) -> None:
    import io

    from patgate.reporting.terminal import TerminalReporter
    from tests.actions_runner import read_commands

    stream = io.StringIO()
    reporter = TerminalReporter(stream, color=False, github=github)
    for event in run_events(*SAMPLE_SCENARIOS):
        reporter.handle(event)
    reporter.close()
    text = stream.getvalue()
    view = read_commands(text)
    failing = [
        line for line in text.splitlines() if line.startswith(("failed ", "advisory warning "))
    ]
    assert view.names() == (["stop-commands"] * len(failing) if github else [])
    assert len(view.blocks) == (len(failing) if github else 0)
    assert view.open_block is None
    assert "actual:" in text


def _rows(markdown: str) -> dict[str, list[str]]:
    """The rule table's rows by rule id: rule, level, verdict, reason."""
    return {
        cells[0].strip(" `"): cells
        for line in markdown.splitlines()
        if line.startswith("| `")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }


def test_the_step_summary_counts_not_checked_and_cannot_be_checked_on_separate_rows() -> None:
    by_nature = scenario(
        "pat-approval",
        "PAT-APPROVAL",
        Outcome.NOT_CHECKED,
        reason=NEEDS_CONTROL,
        inherent=True,
    )
    removable = scenario(
        "pat-writes", "PAT-WRITES", Outcome.NOT_CHECKED, reason="needs member_token"
    )
    other = scenario("pat-remove", "PAT-REMOVE", Outcome.NOT_CHECKED, reason=NEEDS_CONTROL)
    other = dataclasses.replace(other, inherent=True)
    started, finished = _ends(run_events(by_nature, removable, other, exit_code=0))
    text = step_summary([("", started, finished)])
    lines = text.splitlines()
    assert "| not checked (a reason you can remove) | 1 |" in lines
    assert "| not checked: cannot be checked on this target | 2 |" in lines
    rows = _rows(text)
    assert rows["PAT-APPROVAL"][2:] == ["not checked", NEEDS_CONTROL]
    assert rows["PAT-APPROVAL"][3].startswith("cannot be checked on this target: ")
    assert rows["PAT-WRITES"][2:] == ["not checked", "needs member_token"]


def test_every_failure_and_warning_row_of_the_step_summary_says_why() -> None:
    second = Failure("PAT-CAP", "gate", "list", "the list shows 6 tokens")
    failing = scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, failures=(CAP_FAILURE, second))
    events = run_events(failing, *SAMPLE_SCENARIOS[3:4], *SAMPLE_SCENARIOS[:1])
    started, finished = _ends(events)
    rows = _rows(step_summary([("", started, finished)]))
    assert rows["PAT-CAP"][2:] == [
        "**failed**",
        'PAT-CAP (gate) at step "create a 6th token": the 6th create was accepted (and 1 more)',
    ]
    assert rows["TOKEN-OAUTH-RESPONSE"][2:] == [
        "advisory warning",
        'TOKEN-OAUTH-RESPONSE (advisory) at step "request a token": Cache-Control lacks no-store',
    ]
    for cells in rows.values():
        if cells[2] != "passed":
            assert cells[3], cells


def test_a_rule_that_failed_without_a_failure_record_still_says_why() -> None:
    stopped = scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, reason="the scenario stopped")
    started, finished = _ends(run_events(stopped))
    # As the runner sends it: a failed rule carries no reason of its own.
    rules = tuple(dataclasses.replace(rule, reason="") for rule in finished.rules)
    finished = dataclasses.replace(finished, rules=rules)
    assert _rows(step_summary([("", started, finished)]))["PAT-CAP"][3] == "the scenario stopped"
