from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

from patgate.reporting import make_reporter
from patgate.runner.results.events import Event, Failure, Outcome
from tests.reporting.sample import CAP_ACTUAL, CAP_EXPECTED, feed_events, run_events, scenario


def write_report(path: Path, events: list[Event]) -> ET.Element:
    feed_events(make_reporter(f"junit:{path}", stream=io.StringIO()), events)
    # The file is the one this test just wrote, not untrusted input.
    return ET.parse(path).getroot()  # noqa: S314


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.attrib["name"]: case for case in root.iter("testcase")}


def test_the_suite_counts_tests_failures_and_skips(tmp_path: Path, sample_run: list[Event]) -> None:
    root = write_report(tmp_path / "junit.xml", sample_run)
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.attrib["name"] == "patgate"
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == (
        "5",
        "1",
        "1",
    )
    assert suite.attrib["time"] == "0.840"
    properties = {p.attrib["name"]: p.attrib["value"] for p in suite.iter("property")}
    assert properties["run_id"] == "run-7f3a"
    assert properties["exit_code"] == "1"


def test_a_gate_failure_carries_its_detail(tmp_path: Path, sample_run: list[Event]) -> None:
    case = cases(write_report(tmp_path / "junit.xml", sample_run))["pat-cap-sixth"]
    assert case.attrib["classname"] == "patgate.PAT-CAP"
    assert (case.attrib["file"], case.attrib["line"]) == ("scenarios/pat-cap.yaml", "12")
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["message"] == (
        'PAT-CAP (gate) at step "create a 6th token": the 6th create was accepted'
    )
    assert CAP_EXPECTED in (failure.text or "")
    assert CAP_ACTUAL in (failure.text or "")


def test_a_warning_is_not_a_failure(tmp_path: Path, sample_run: list[Event]) -> None:
    case = cases(write_report(tmp_path / "junit.xml", sample_run))["token-cache"]
    assert case.find("failure") is None
    assert case.find("skipped") is None
    out = case.find("system-out")
    assert out is not None
    assert (out.text or "").startswith("advisory warning: TOKEN-OAUTH-RESPONSE (advisory)")
    warnings = [p.attrib["value"] for p in case.iter("property") if p.attrib["name"] == "warning"]
    assert warnings == [
        'TOKEN-OAUTH-RESPONSE (advisory) at step "request a token": Cache-Control lacks no-store'
    ]


def test_a_skip_carries_its_reason(tmp_path: Path, sample_run: list[Event]) -> None:
    case = cases(write_report(tmp_path / "junit.xml", sample_run))["pat-approval"]
    skipped = case.find("skipped")
    assert skipped is not None
    assert skipped.attrib["message"] == "not checked: needs member_token"
    assert skipped.text == "needs member_token"


def test_passes_carry_only_their_outcome(tmp_path: Path, sample_run: list[Event]) -> None:
    case = cases(write_report(tmp_path / "junit.xml", sample_run))["token-ok"]
    assert [child.tag for child in case] == ["properties"]
    assert [(p.attrib["name"], p.attrib["value"]) for p in case.iter("property")] == [
        ("outcome", "passed")
    ]


def test_control_characters_and_cdata_ends_never_break_the_file(tmp_path: Path) -> None:
    nasty = "a\x00b\x1b[31mc\x07 ]]> & <x/> \ud800 \ufffe"
    failure = Failure("PAT-CAP", "gate", nasty, nasty, expected=nasty, actual=nasty)
    events = run_events(scenario(nasty, "PAT-CAP", Outcome.FAILED, failures=(failure,)))
    root = write_report(tmp_path / "junit.xml", events)
    case = root.find("testsuite/testcase")
    assert case is not None
    failure_element = case.find("failure")
    assert failure_element is not None
    shown = "a\\x00b\\x1b[31mc\\x07 ]]> & <x/> \\ud800 \\ufffe"
    assert case.attrib["name"] == shown
    assert shown in failure_element.attrib["message"]
    assert f"actual:   {shown}" in (failure_element.text or "")


def test_several_failures_are_all_in_the_body(tmp_path: Path) -> None:
    first = Failure("PAT-CAP", "gate", "create", "first problem")
    second = Failure("PAT-CAP", "gate", "list", "second problem")
    events = run_events(scenario("s", "PAT-CAP", Outcome.FAILED, failures=(first, second)))
    failure = write_report(tmp_path / "junit.xml", events).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.attrib["message"].endswith("first problem (and 1 more)")
    assert "second problem" in (failure.text or "")
