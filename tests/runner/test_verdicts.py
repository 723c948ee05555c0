"""Verdicts that say what was checked: gate rules passed, failed and not checked, with the
reason of each; ``--require``; narrowed runs; the target file's keys; writes judged on what
is sent; authoring mistakes refused at load."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.errors import ScenarioError
from patgate.harness import Fake
from patgate.reporting.summary import exit_meaning, unchecked_lines
from patgate.runner import FakeTarget, LiveTarget, TargetConfig
from patgate.runner.results.events import Outcome, RunStarted
from patgate.runner.results.outcomes import EXIT_UNCHECKED, gate_count

from .support import builtin, finished, live, run_events, scenarios


def test_a_read_only_live_run_does_not_say_every_gate_rule_passed() -> None:
    _, end = run_events(builtin(), live(Fake()))
    assert end.exit_code == 0
    count = gate_count(end.rules)
    assert count.passed > 0
    assert count.failed == 0
    assert count.unchecked
    meaning = exit_meaning(end)
    assert "every gate rule passed" not in meaning
    assert f"{count.passed} passed, 0 failed, {len(count.unchecked)} not checked" in meaning
    lines = unchecked_lines(end)
    assert any(
        line.startswith("not checked: PAT-CAP (") and "--allow-writes" in line for line in lines
    )
    assert any("PAT-APPROVAL" in line and "control" in line for line in lines)


def test_the_embedded_fake_checks_every_gate_rule() -> None:
    _, end = run_events(builtin(), FakeTarget())
    assert gate_count(end.rules).all_checked
    assert exit_meaning(end).startswith("exit 0: every gate rule passed")


def test_require_all_turns_an_unchecked_gate_rule_into_exit_4() -> None:
    _, end = run_events(builtin(), live(Fake()), require=("all",))
    assert EXIT_UNCHECKED == 4
    assert end.exit_code == EXIT_UNCHECKED
    assert exit_meaning(end).startswith("exit 4: a gate rule --require names was not checked")


def test_require_of_checked_rules_passes_and_of_an_unchecked_one_fails() -> None:
    _, checked = run_events(builtin(), live(Fake()), require=("TOKEN-OK", "PAT-LIST-MASKED"))
    assert checked.exit_code == 0
    _, unchecked = run_events(builtin(), live(Fake()), require=("PAT-CAP",))
    assert unchecked.exit_code == EXIT_UNCHECKED


def test_require_checkable_fails_for_a_reason_the_user_can_remove() -> None:
    _, end = run_events(builtin(), live(Fake()), require=("checkable",))
    assert end.exit_code == EXIT_UNCHECKED
    count = gate_count(end.rules, end.require)
    unchecked = dict(count.unchecked)
    assert "--allow-writes" in unchecked["PAT-CAP"]
    # Control-plane rules cannot be checked on a live target: listed apart, not counted.
    uncheckable = dict(count.uncheckable)
    assert "PAT-APPROVAL" not in unchecked
    assert "control" in uncheckable["PAT-APPROVAL"]
    assert "cannot be checked on this target: PAT-APPROVAL (" in "\n".join(unchecked_lines(end))
    assert "PAT-CAP" in exit_meaning(end)


def test_require_checkable_passes_when_only_what_the_target_cannot_check_is_left() -> None:
    # Every scenario but the one that waits 300 s in real time (over --max-wait).
    chosen = [s for s in builtin() if not s.waits]
    _, end = run_events(
        chosen, live(Fake()), require=("checkable",), allow_writes=True, every_rule=False
    )
    assert end.exit_code == 0, [(r.rule_id, r.reason) for r in end.rules if r.reason]
    count = gate_count(end.rules, end.require)
    assert count.unchecked == ()
    assert "PAT-APPROVAL" in dict(count.uncheckable)
    assert exit_meaning(end).startswith("exit 0: every gate rule this target can check passed (")
    # The same run with --require all fails: those rules were not checked.
    _, strict = run_events(chosen, live(Fake()), require=("all",), allow_writes=True)
    assert strict.exit_code == EXIT_UNCHECKED


def test_require_checkable_counts_a_wait_over_max_wait() -> None:
    chosen = [s for s in builtin() if s.waits]
    assert chosen
    _, end = run_events(chosen, live(Fake()), require=("checkable",), allow_writes=True)
    assert end.exit_code == EXIT_UNCHECKED
    reasons = dict(gate_count(end.rules, end.require).unchecked)
    assert any("--max-wait" in why for why in reasons.values())


def test_a_rules_coverage_lists_only_the_scenarios_that_ran() -> None:
    _, end = run_events(builtin(), live(Fake()))
    rules = {rule.rule_id: rule for rule in end.rules}
    assert rules["PAT-APPROVAL"].outcome is Outcome.NOT_CHECKED
    assert rules["PAT-APPROVAL"].scenarios == ()
    assert "control" in rules["PAT-APPROVAL"].reason
    ran = {s.scenario_id for s in end.scenarios if s.outcome is not Outcome.NOT_CHECKED}
    assert all(set(rule.scenarios) <= ran for rule in end.rules)


ONE = """\
id: only-token-ok
title: One scenario
rules: [TOKEN-OK]
steps:
  - token: {client_id: "${client_id}", client_secret: "${client_secret}",
            grant_type: client_credentials}
    expect:
      - status: 200
"""


def test_a_run_of_custom_scenarios_reports_only_the_rules_in_its_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(ONE, encoding="utf-8")
    report = tmp_path / "r.json"
    assert main(["run", "--scenarios", str(path), "--report", f"json:{report}"]) == 0
    out = capsys.readouterr().out
    assert "no scenario covers this rule" not in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [rule["id"] for rule in document["rules"]] == ["TOKEN-OK"]
    assert document["gate_rules"]["passed"] == 1
    assert document["gate_rules"]["not_checked"] == []
    assert "every gate rule passed" in out.splitlines()[-1]


def test_the_command_line_require_exits_4_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = Fake()
    with fake:
        world = tmp_path / "world.json"
        keys = {k: v for k, v in fake.world.items() if k != "member_token"}
        world.write_text(json.dumps(keys), encoding="utf-8")
        report = tmp_path / "r.json"
        code = main(
            ["run", "--world", str(world), "--require", "all", "--report", f"json:{report}"]
        )
    out = capsys.readouterr().out
    assert code == EXIT_UNCHECKED
    last = out.splitlines()[-1]
    assert last.startswith("exit 4:")
    assert "not checked" in last
    assert re.search(r"missing member_token: \d+ scenario\(s\) not checked", out)
    document = json.loads(report.read_text(encoding="utf-8"))
    reasons = {item["id"]: item["reason"] for item in document["gate_rules"]["not_checked"]}
    assert "needs member_token" in reasons["PAT-LIST-OWN"]
    assert document["gate_rules"]["required"] == ["all"]


@pytest.mark.parametrize(
    ("value", "message"),
    [("NO-SUCH-RULE", "unknown rule 'NO-SUCH-RULE'"), ("TOKEN-OAUTH-RESPONSE", "advisory")],
)
def test_require_refuses_unknown_and_advisory_rules(
    value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--require", value]) == 2
    assert message in capsys.readouterr().err


# -- the target file -----------------------------------------------------------------------


def test_an_unknown_key_in_the_target_file_is_an_error_naming_the_nearest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "world.yaml"
    world.write_text("base_url: https://example.invalid\nadmin_tokn: x\n", encoding="utf-8")
    assert main(["run", "--world", str(world)]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'admin_tokn'; did you mean 'admin_token'?" in err


def test_the_header_lists_the_keys_found_and_what_each_missing_one_costs() -> None:
    events, _ = run_events(builtin(), live(Fake(), drop=("member_token", "client_secret")))
    started = events[0]
    assert isinstance(started, RunStarted)
    assert "admin_token" in started.keys
    assert "member_token" not in started.keys
    costs = dict(started.missing)
    assert re.match(
        r"\d+ scenario\(s\) not checked; gate rules not checked: ", costs["member_token"]
    )
    assert "PAT-LIST-OWN" in costs["member_token"]
    assert "TOKEN-OK" in costs["client_secret"]
    assert all(key not in started.missing for key in started.keys)


# -- writes judged on what is sent ------------------------------------------------------------

INJECTED = """\
id: injected-write
title: A read whose value turns it into a mutation
rules: [PAT-LIST-OWN]
steps:
  - name: looks like a read
    graphql:
      query: '{ viewer { id name(x: "${organization_id}") } }'
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def test_a_substituted_value_cannot_turn_a_read_into_a_write_on_a_live_run() -> None:
    fake = Fake()
    before = len(fake.deployment.tokens)
    injection = '") } } mutation M { createPersonalAccessToken(input: {name: "x"}) { id } } #'
    (scenario,) = scenarios(INJECTED)
    assert not scenario.writes  # judged as written, with the value unknown
    keys = {**fake.world, "organization_id": injection}
    target = LiveTarget(TargetConfig(keys), transport=fake.httpx_transport())
    events, end = run_events([scenario], target)
    (failure,) = finished(events)["injected-write"].failures
    assert "refused to send a GraphQL mutation" in failure.message
    assert end.exit_code == 1
    assert len(fake.deployment.tokens) == before


@pytest.mark.parametrize(
    ("query", "writes"),
    [
        ("{ viewer { id } }", False),
        ("query { mutation }", False),  # a field named mutation reads
        ("query A { a } mutation B { b }", True),
        ("mutation { deletePersonalAccessToken(id: 1) }", True),
        ("${run_id}", True),  # unknown until sent: judged a write at load
    ],
)
def test_graphql_documents_are_parsed_to_judge_writes(query: str, writes: bool) -> None:
    text = (
        "id: q\ntitle: t\nrules: [PAT-LIST-OWN]\nsteps:\n"
        f"  - graphql: {{query: {json.dumps(query)}}}\n    bearer: ${{admin_token}}\n"
        "    expect: [{ok: true}]\n"
    )
    (scenario,) = scenarios(text)
    assert scenario.writes is writes


# -- authoring mistakes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("graphql: create_token\n    args: {name: my-token}", "name starts with ${new_name}"),
        ("control: {request_token: {user: member, name: mine}}", "name starts with ${new_name}"),
        ("graphql: delete_token\n    args: {id: tok_123}", "a literal id would be refused"),
    ],
)
def test_authoring_mistakes_are_load_errors(
    step: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"id: mistake\ntitle: t\nrules: [PAT-CREATE-FIELDS]\nsteps:\n  - {step}\n"
    with pytest.raises(ScenarioError, match=message.replace("$", r"\$").replace("{", r"\{")):
        scenarios(text)
    path = tmp_path / "mistake.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["run", "--scenarios", str(path)]) == 2
    assert re.search(r"mistake\.yaml:[56]: steps\[0\]", capsys.readouterr().err)
