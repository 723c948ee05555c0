"""The CI contract gate of ``patgate run``: waivers, exclusions, several targets in one run,
and honest reports when the target cannot be reached."""

from __future__ import annotations

import datetime
import json
import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from patgate.basics.resources import specs_dir
from patgate.cli import main
from patgate.harness import Fake
from patgate.runner.results.events import Outcome, RuleResult
from patgate.runner.results.waivers import Waiver, apply_waivers, matches_target

FAILING = """\
id: token-teapot
title: Expects a status no deployment answers
rules: [TOKEN-OK]
steps:
  - token: {client_id: "${client_id}", client_secret: "${client_secret}",
            grant_type: client_credentials}
    expect:
      - status: 418
---
id: grant-type
title: A wrong grant type is refused
rules: [TOKEN-GRANT-TYPE]
steps:
  - token: {client_id: "${client_id}", client_secret: "${client_secret}",
            grant_type: password}
    expect:
      - status: 400
"""
"""Two scenarios: TOKEN-OK fails (it expects a 418), TOKEN-GRANT-TYPE passes."""


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _validate(document: object) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((specs_dir() / "report.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = [error.message for error in Draft202012Validator(schema).iter_errors(document)]
    assert errors == []


def _scenarios(tmp_path: Path) -> Path:
    path = tmp_path / "gate.yaml"
    path.write_text(FAILING, encoding="utf-8")
    return path


def _waivers(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "waivers.yaml"
    path.write_text(text, encoding="utf-8")
    return path


FUTURE = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
PAST = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()


# -- waivers -------------------------------------------------------------------------------


def test_a_waiver_turns_a_failing_gate_rule_into_waived_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    waivers = _waivers(
        tmp_path,
        f"waivers:\n  - rule: TOKEN-OK\n    reason: vendor case 4711\n    expires: {FUTURE}\n",
    )
    reports = {kind: tmp_path / f"r.{kind}" for kind in ("json", "junit", "html")}
    argv = ["run", "--scenarios", str(_scenarios(tmp_path)), "--waivers", str(waivers)]
    for kind, path in reports.items():
        argv += ["--report", f"{kind}:{path}"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    # The progress line already agrees with the verdict.
    assert re.search(r"^waived +token-teapot ", out, re.MULTILINE)
    assert not re.search(r"^failed ", out, re.MULTILINE)
    assert f"waived: TOKEN-OK until {FUTURE}: vendor case 4711 ({waivers}:2)" in out
    assert "gate rules: 1 passed, 0 failed, 1 waived" in out
    document = json.loads(reports["json"].read_text(encoding="utf-8"))
    _validate(document)
    rules = {rule["id"]: rule for rule in document["rules"]}
    assert rules["TOKEN-OK"]["outcome"] == "waived"
    assert "vendor case 4711" in rules["TOKEN-OK"]["reason"]
    assert FUTURE in rules["TOKEN-OK"]["reason"]
    assert document["waivers"][0]["state"] == "applied"
    assert document["gate_rules"]["waived"] == 1
    junit = ET.parse(reports["junit"]).getroot()  # noqa: S314 (our own report)
    case = next(c for c in junit.iter("testcase") if c.get("name") == "token-teapot")
    skipped = case.find("skipped")
    assert skipped is not None
    assert "waived" in (skipped.get("message") or "")
    assert case.find("failure") is None, "a waived failure does not turn the pipeline red"
    properties = [p.get("value") or "" for p in junit.iter("property")]
    assert any("vendor case 4711" in value and FUTURE in value for value in properties)
    page = reports["html"].read_text(encoding="utf-8")
    assert "vendor case 4711" in page
    assert FUTURE in page
    assert "Waived" in page


def test_an_expired_waiver_no_longer_applies_and_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    waivers = _waivers(
        tmp_path, f"waivers:\n  - rule: TOKEN-OK\n    reason: old case\n    expires: {PAST}\n"
    )
    report = tmp_path / "r.json"
    argv = ["run", "--scenarios", str(_scenarios(tmp_path)), "--waivers", str(waivers)]
    assert main([*argv, "--report", f"json:{report}"]) == 1
    out = capsys.readouterr().out
    assert f"waiver expired: TOKEN-OK on {PAST}, it no longer applies" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    rules = {rule["id"]: rule for rule in document["rules"]}
    assert rules["TOKEN-OK"]["outcome"] == "failed"
    assert "expired" in rules["TOKEN-OK"]["reason"]


def test_a_waiver_of_a_rule_that_passed_is_reported_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    waivers = _waivers(
        tmp_path,
        f"waivers:\n  - rule: TOKEN-GRANT-TYPE\n    reason: fixed now\n    expires: {FUTURE}\n",
    )
    argv = ["run", "--scenarios", str(_scenarios(tmp_path)), "--waivers", str(waivers)]
    assert main(argv) == 1  # TOKEN-OK still fails: nothing waives it
    out = capsys.readouterr().out
    assert "stale waiver: TOKEN-GRANT-TYPE did not fail" in out


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "waivers:\n  - rule: TOKEN-OK\n    reason: x\n    expires: 2030-01-01\n"
            "  - rule: NO-SUCH-RULE\n    reason: y\n    expires: 2030-01-01\n",
            5,
            "unknown rule 'NO-SUCH-RULE'",
        ),
        ("waivers:\n  - rule: TOKEN-OK\n    expires: 2030-01-01\n", 2, "missing 'reason'"),
        ("waivers:\n  - rule: TOKEN-OK\n    reason: x\n", 2, "missing 'expires'"),
        (
            "waivers:\n  - rule: TOKEN-OK\n    reason: x\n    expires: soon\n",
            4,
            "not an ISO date",
        ),
        (
            "waivers:\n  - rule: TOKEN-OAUTH-RESPONSE\n    reason: x\n    expires: 2030-01-01\n",
            2,
            "advisory",
        ),
        ("waivers:\n  - rule: TOKEN-OK\n    reason: x\n    expires: 2030-02-30\n", 4, "date"),
        ("waivers: [\n", 2, "not valid YAML"),
    ],
)
def test_a_bad_waiver_is_a_usage_error_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, message: str
) -> None:
    waivers = _waivers(tmp_path, text)
    assert main(["run", "--scenario", "token-ok", "--waivers", str(waivers)]) == 2
    err = capsys.readouterr().err
    assert f"{waivers}:{line}:" in err
    assert message in err
    assert "Traceback" not in err


def test_a_waiver_for_another_target_does_not_apply() -> None:
    waiver = Waiver("PAT-CAP", "known", datetime.date(2030, 1, 1), "production")
    assert matches_target(waiver, "ci/production.yaml", "https://prod.example")
    assert matches_target(waiver, "production.json", "https://prod.example")
    assert not matches_target(waiver, "ci/staging.yaml", "https://staging.example")
    by_url = Waiver("PAT-CAP", "known", datetime.date(2030, 1, 1), "https://prod.example/")
    assert matches_target(by_url, "", "https://prod.example")
    failed = RuleResult("PAT-CAP", "cap", "gate", Outcome.FAILED, ("pat-cap",))
    rules, _, notes = apply_waivers(
        [waiver], [failed], [], label="staging.yaml", display="https://staging.example"
    )
    assert rules[0].outcome is Outcome.FAILED
    assert notes == ()
    # The last day it applies is its expiry date; the day after, it has expired.
    day = datetime.date(2030, 1, 1)
    rules, _, notes = apply_waivers(
        [waiver], [failed], [], label="production.yaml", display="", today=day
    )
    assert (rules[0].outcome, notes[0].state) == (Outcome.WAIVED, "applied")
    rules, _, notes = apply_waivers(
        [waiver],
        [failed],
        [],
        label="production.yaml",
        display="",
        today=day + datetime.timedelta(days=1),
    )
    assert (rules[0].outcome, notes[0].state) == (Outcome.FAILED, "expired")


# -- exclusions ----------------------------------------------------------------------------


def test_exclude_rule_and_exclude_scenario_narrow_the_run_and_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios = str(_scenarios(tmp_path))
    report = tmp_path / "r.json"
    argv = ["run", "--scenarios", scenarios, "--report", f"json:{report}"]
    assert main([*argv, "--exclude-rule", "TOKEN-OK"]) == 0
    out = capsys.readouterr().out
    assert "excluded rules (--exclude-rule): TOKEN-OK" in out
    assert "excluded scenarios: token-teapot" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["excluded"] == {"rules": ["TOKEN-OK"], "scenarios": ["token-teapot"]}
    assert [rule["id"] for rule in document["rules"]] == ["TOKEN-GRANT-TYPE"]
    assert main([*argv, "--exclude-scenario", "token-teapot"]) == 0
    assert "excluded scenarios: token-teapot" in capsys.readouterr().out
    assert main([*argv, "--exclude-scenario", "nope"]) == 2
    assert "unknown scenario 'nope'" in capsys.readouterr().err


# -- honest exits ----------------------------------------------------------------------------


def test_a_target_unreachable_from_the_start_exits_3_with_every_report_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    reports = {kind: tmp_path / f"r.{kind}" for kind in ("json", "junit", "html")}
    argv = ["run", "--base-url", url, "--auth-url", url]
    for kind, path in reports.items():
        argv += ["--report", f"{kind}:{path}"]
    assert main(argv) == 3
    captured = capsys.readouterr()
    assert f"cannot reach {url}" in captured.err
    assert "exit 3: the target did not answer" in captured.out
    document = json.loads(reports["json"].read_text(encoding="utf-8"))
    _validate(document)
    assert (document["exit_code"], document["unreachable"], document["lost"]) == (3, True, False)
    suite = ET.parse(reports["junit"]).getroot()  # noqa: S314 (our own report)
    assert suite.get("errors") == "1"
    cases = list(suite.iter("testcase"))
    assert len(cases) == 1
    error = cases[0].find("error")
    assert error is not None
    assert f"cannot reach {url}" in (error.get("message") or "")
    assert "the target did not answer" in reports["html"].read_text(encoding="utf-8")


# -- several targets -------------------------------------------------------------------------


def test_several_worlds_run_in_turn_each_with_its_verdict_and_the_worst_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    staging = tmp_path / "staging.json"
    broken = tmp_path / "broken.json"
    keys = {"base_url": url, "auth_url": url, "client_id": "ci", "client_secret": "cs"}
    broken.write_text(json.dumps(keys), encoding="utf-8")
    reports = {kind: tmp_path / f"r.{kind}" for kind in ("json", "junit", "html")}
    fake = Fake(urls={"base_url": "https://staging.example", "auth_url": "https://auth.example"})
    with fake:
        staging.write_text(json.dumps(fake.world), encoding="utf-8")
        argv = ["run", "--world", str(staging), "--world", str(broken), "--rule", "TOKEN-OK"]
        argv += ["--ledger", str(tmp_path / "ledger.jsonl")]
        for kind, path in reports.items():
            argv += ["--report", f"{kind}:{path}"]
        code = main(argv)
    out = capsys.readouterr().out
    assert code == 3, out
    assert f"== target 1 of 2: {staging} ==" in out
    assert f"== target 2 of 2: {broken} ==" in out
    assert f"2 targets ({staging}: exit 0, {broken}: exit 3); exit 3, the worst of them" in out
    document = json.loads(reports["json"].read_text(encoding="utf-8"))
    _validate(document)
    assert document["exit_code"] == 3
    assert [t["world"] for t in document["targets"]] == [str(staging), str(broken)]
    assert [t["exit_code"] for t in document["targets"]] == [0, 3]
    first = {rule["id"]: rule["outcome"] for rule in document["targets"][0]["rules"]}
    assert first["TOKEN-OK"] == "passed"
    assert document["targets"][0]["target"] == "https://staging.example"
    suites = ET.parse(reports["junit"]).getroot()  # noqa: S314 (our own report).findall("testsuite")
    assert [suite.get("name") for suite in suites] == [f"patgate {staging}", f"patgate {broken}"]
    assert suites[1].get("errors") == "1"
    page = reports["html"].read_text(encoding="utf-8")
    assert str(staging) in page
    assert str(broken) in page
    assert page.count("<h1>patgate conformance report</h1>") == 2


def test_each_of_several_targets_gets_its_own_ledger_named_after_its_world() -> None:
    from patgate.commands.run import _ledgers

    two = [("ci/staging.yaml", None), ("ci/production.yaml", None)]
    assert _ledgers(None, two) == [
        Path(".patgate/ledger-staging.jsonl"),
        Path(".patgate/ledger-production.jsonl"),
    ]
    same = [("a/w.json", None), ("b/w.json", None)]
    assert _ledgers(Path("out/l.jsonl"), same) == [
        Path("out/l-w.jsonl"),
        Path("out/l-w-2.jsonl"),
    ]
    assert _ledgers(Path("out/l.jsonl"), [("w.json", None)]) == [Path("out/l.jsonl")]


def test_after_the_cut_off_a_lost_targets_cleanup_sends_nothing() -> None:
    import httpx

    from patgate.errors import RequestFailed
    from patgate.runner import LiveTarget, TargetConfig
    from patgate.runner.connection.exchange import Exchange

    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(200, json={})

    target = LiveTarget(
        TargetConfig({"base_url": "https://deployment.example"}),
        transport=httpx.MockTransport(answer),
    )
    exchange = Exchange(target)
    try:
        exchange.send("GET", "https://deployment.example/v2/content/hubs", kind="hubs")
        exchange.cut_off(0)
        with pytest.raises(RequestFailed, match="not sent: the time to clean up ran out"):
            exchange.send("GET", "https://deployment.example/v2/content/hubs", kind="hubs")
    finally:
        exchange.close()
    assert len(sent) == 1


def test_the_docs_state_the_bound_of_a_lost_targets_cleanup() -> None:
    from patgate.runner.engine import LOST_CLEANUP

    page = Path(__file__).resolve().parents[2] / "docs/how-to/waivers-and-targets.md"
    readme = page.read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert f"the cleanup is tried for at most {LOST_CLEANUP:g} seconds" in text
