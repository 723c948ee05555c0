"""Loading scenario files: good files become typed scenarios, bad ones name file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patgate.basics.resources import scenarios_dir, specs_dir
from patgate.errors import ScenarioError
from patgate.scenario import load_file, load_scenarios
from patgate.scenario.control_actions import CONTROL_ACTIONS
from patgate.scenario.model import (
    GRAPHQL_OPERATIONS,
    PRINCIPALS,
    TARGET_KEYS,
    GraphqlCall,
    TokenCall,
)

GOOD = """\
id: my-token-check
title: My deployment hands out tokens
rules: [TOKEN-OK, TOKEN-LIFETIME]
steps:
  - name: ask for a token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - status: 200
      - {path: expires_in, equals: 300, rule: TOKEN-LIFETIME}
    capture:
      access_token: access_token
  - name: create a token with it
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${access_token}
    expect:
      - ok: true
"""

HEADER = "id: x\ntitle: t\nrules: [TOKEN-OK]\n"


def _write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_becomes_a_typed_scenario(tmp_path: Path) -> None:
    (scenario,) = load_file(_write(tmp_path, GOOD)).scenarios
    assert scenario.id == "my-token-check"
    assert scenario.rules == ("TOKEN-OK", "TOKEN-LIFETIME")
    assert scenario.location == f"{tmp_path / 'scenario.yaml'}:1"
    first, second = scenario.steps
    assert isinstance(first.request, TokenCall)
    assert first.line == 5
    assert [(e.check, e.rule, e.line) for e in first.expect] == [
        ("status", "TOKEN-OK", 11),
        ("path", "TOKEN-LIFETIME", 12),
    ]
    assert isinstance(second.request, GraphqlCall)
    assert second.request.operation == "create_token"


def test_needs_and_writes_are_inferred_from_the_steps(tmp_path: Path) -> None:
    (scenario,) = load_file(_write(tmp_path, GOOD)).scenarios
    # Referenced keys, the endpoints the steps call, and the organization a create needs.
    assert set(scenario.needs) == {
        "auth_url",
        "client_id",
        "client_secret",
        "graphql_url",
        "organization_id",
    }
    assert scenario.writes is True
    assert scenario.control is False
    assert scenario.waits is False


def test_a_file_may_hold_several_scenarios(tmp_path: Path) -> None:
    second = GOOD.replace("my-token-check", "another-check")
    scenarios = load_file(_write(tmp_path, f"{GOOD}---\n{second}")).scenarios
    assert [s.id for s in scenarios] == ["my-token-check", "another-check"]
    assert scenarios[1].line == GOOD.count("\n") + 2


def test_every_built_in_scenario_loads() -> None:
    scenarios = load_scenarios([scenarios_dir()])
    assert len(scenarios) >= 30
    assert len({s.id for s in scenarios}) == len(scenarios)


def test_the_schema_names_the_same_keys_operations_and_actions_as_the_code() -> None:
    schema = json.loads((specs_dir() / "scenario.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    assert tuple(defs["targetKey"]["enum"]) == TARGET_KEYS
    assert tuple(defs["principal"]["enum"]) == PRINCIPALS
    named = defs["step"]["properties"]["graphql"]["anyOf"][0]["enum"]
    assert tuple(named) == tuple(GRAPHQL_OPERATIONS)
    assert tuple(defs["step"]["properties"]["control"]["properties"]) == CONTROL_ACTIONS.names()


BAD_FILES = [
    pytest.param("id: x\ntitle: [unclosed\n", 3, "not valid YAML", id="yaml-syntax"),
    pytest.param("id: a\nid: b\n", 2, "the key 'id' appears twice", id="duplicate-key"),
    pytest.param("- a\n- b\n", 1, "a scenario is a mapping", id="not-a-mapping"),
    pytest.param("", 1, "holds no scenario", id="empty"),
    pytest.param("id: x\ntitle: t\nrules: [TOKEN-OK]\n", 1, "missing key 'steps'", id="missing"),
    pytest.param(
        "id: Not Valid\ntitle: t\nrules: [TOKEN-OK]\nsteps: [{hubs: true}]\n",
        1,
        "an id is lower-case letters",
        id="bad-id",
    ),
    pytest.param(
        HEADER + "stepz: []\nsteps: [{hubs: true}]\n", 4, "unknown key 'stepz'", id="unknown-key"
    ),
    pytest.param(
        HEADER + "steps:\n  - token: {}\n    hubs: true\n",
        5,
        "exactly one of token, hubs, graphql, http, control, wait (found token, hubs)",
        id="two-requests",
    ),
    pytest.param(
        HEADER + "steps:\n  - name: nothing to send\n", 5, "exactly one of", id="no-request"
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - stauts: 200\n",
        7,
        "unknown key 'stauts'",
        id="misspelt-check",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {status: 200, error: true}\n",
        7,
        "exactly one check",
        id="two-checks",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {status: 200, of: x}\n",
        7,
        "unknown key 'of' (allowed here: rule, status)",
        id="option-of-another-check",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - status: 4x\n",
        7,
        "status is a code (200), a class (4xx) or a list of codes",
        id="bad-status",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - deleted: maybe\n",
        7,
        "deleted is true (the delete was done) or false (it was refused)",
        id="bad-deleted",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {path: a}\n",
        7,
        "a path expectation needs a matcher",
        id="path-without-matcher",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {path: 'a..b', exists: true}\n",
        7,
        "an empty segment",
        id="bad-path",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {path: a, matches: '(['}\n",
        7,
        "not a regular expression",
        id="bad-regex",
    ),
    pytest.param(
        "id: x\ntitle: t\nrules: [TOKEN-NOPE]\nsteps: [{hubs: true}]\n",
        3,
        "unknown rule 'TOKEN-NOPE'",
        id="unknown-rule",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - {status: 200, rule: PAT-CAP}\n",
        7,
        "'PAT-CAP' is not among this scenario's rules",
        id="rule-not-listed",
    ),
    pytest.param(
        "id: x\ntitle: t\nrules: [TOKEN-OK, PAT-CAP]\nsteps:\n  - hubs: true\n"
        "    expect: [{status: 200}]\n",
        3,
        "no expectation checks the rule 'PAT-CAP'",
        id="rule-never-checked",
    ),
    pytest.param(
        HEADER + "steps:\n  - token: {client_id: '${clientid}'}\n    expect: [{ok: true}]\n",
        5,
        "unknown name 'clientid'",
        id="unknown-name",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    bearer: '${index}'\n    expect: [{ok: true}]\n",
        6,
        "only defined inside repeat or for_each",
        id="loop-name-outside-a-loop",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    bearer: '${later}'\n    expect: [{ok: true}]\n"
        "  - hubs: true\n    capture: {later: a}\n",
        6,
        "captured by an earlier step",
        id="name-captured-later",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect: [{ok: true}]\n    capture: {base_url: a}\n",
        7,
        "is a target key or built-in name",
        id="capture-shadows-a-key",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    repeat: 5 - (\n    expect: [{ok: true}]\n",
        6,
        "cannot read the expression",
        id="bad-expression",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    repeat: held.count\n    expect: [{ok: true}]\n",
        6,
        "uses Attribute",
        id="expression-outside-the-language",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - schema: nope.json\n",
        7,
        "no schema file 'nope.json'",
        id="missing-schema-file",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    expect:\n      - schema: {type: 12}\n",
        7,
        "not a valid JSON Schema",
        id="bad-inline-schema",
    ),
    pytest.param(
        HEADER + "steps:\n  - graphql: delete_token\n    expect: [{ok: true}]\n",
        5,
        "delete_token needs args: id",
        id="missing-args",
    ),
    pytest.param(
        HEADER + "steps:\n  - graphql: viewer\n    args: {id: x}\n    expect: [{ok: true}]\n",
        6,
        "viewer takes no arg 'id'",
        id="unknown-arg",
    ),
    pytest.param(
        HEADER + "steps:\n  - control: {remove_user: bob}\n    expect: [{ok: true}]\n",
        5,
        "'bob' is not one of",
        id="unknown-principal",
    ),
    pytest.param(
        HEADER + "control: false\nsteps:\n  - control: {remove_user: member}\n"
        "    expect: [{ok: true}]\n",
        4,
        "control is false, yet a step uses control",
        id="control-declared-false",
    ),
    pytest.param(
        HEADER + "writes: false\nsteps:\n  - graphql: create_token\n"
        "    args: {name: '${new_name}'}\n    expect: [{ok: true}]\n",
        4,
        "writes is false, yet a step creates a token",
        id="create-declared-read-only",
    ),
    pytest.param(
        HEADER
        + "steps:\n  - hubs: true\n    bearer: amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhp\n"
        "    expect: [{ok: true}]\n",
        6,
        "looks like a personal access token",
        id="literal-pat",
    ),
    pytest.param(
        HEADER + "steps:\n  - hubs: true\n    bearer: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\n"
        "    expect: [{ok: true}]\n",
        6,
        "looks like a JWT",
        id="literal-jwt",
    ),
    pytest.param(
        HEADER + "steps:\n  - token: {client_secret: Xq8vR2mZ9pL4wN7kT1yB6cF3hJ0sD5gA8eU2iO4rQ7t}\n"
        "    expect: [{ok: true}]\n",
        5,
        "looks like a random secret",
        id="literal-random-secret",
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_FILES)
def test_a_bad_file_is_refused_naming_its_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    error = caught.value
    assert (error.path, error.line) == (str(path), line)
    assert str(error).startswith(f"{path}:{line}: ")
    assert message in str(error)


def test_a_scenario_id_is_unique_across_files(tmp_path: Path) -> None:
    _write(tmp_path, GOOD, "a.yaml")
    _write(tmp_path, GOOD, "b.yaml")
    with pytest.raises(ScenarioError, match=r"b\.yaml:1: the scenario id 'my-token-check' is"):
        load_scenarios([tmp_path])


def test_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file or folder"):
        load_scenarios([tmp_path / "nowhere"])


def test_a_schema_file_next_to_the_scenario_is_found(tmp_path: Path) -> None:
    (tmp_path / "mine.json").write_text('{"type": "object"}', encoding="utf-8")
    text = HEADER + "steps:\n  - hubs: true\n    expect:\n      - schema: mine.json\n"
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert scenario.steps[0].expect[0].argument == str(tmp_path / "mine.json")


def test_a_regex_in_a_matcher_is_not_taken_for_a_secret(tmp_path: Path) -> None:
    text = (
        HEADER + "steps:\n  - hubs: true\n    expect:\n"
        "      - {path: t, matches: '^amp_pat_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22,}$'}\n"
    )
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert scenario.steps[0].expect[0].options["matches"].startswith("^amp_pat_")


def test_cleanup_may_refer_to_any_captured_value(tmp_path: Path) -> None:
    text = (
        HEADER + "steps:\n  - hubs: true\n    expect: [{ok: true}]\n"
        "    capture: {ids: {path: a, append: true}}\n"
        "cleanup:\n  - for_each: ids\n    graphql: delete_token\n    args: {id: '${item}'}\n"
    )
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert scenario.appends == ("ids",)
    assert scenario.cleanup[0].for_each == "ids"
    assert scenario.cleanup[0].name == "cleanup 1"


def test_a_capture_may_be_optional_and_an_assume_may_name_it(tmp_path: Path) -> None:
    text = (
        HEADER + "steps:\n  - hubs: true\n"
        "    capture: {link: {path: '_embedded.hubs[0]._links.self.href', optional: true}}\n"
        "  - assume: {that: link, otherwise: no hub link is advertised}\n"
        "    http: {method: GET, url: '${link}'}\n    expect: [{error: true}]\n"
    )
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    (capture,) = scenario.steps[0].capture
    assert capture.optional
    assert scenario.steps[1].assume_reason == "no hub link is advertised"


def test_an_optional_capture_is_a_boolean(tmp_path: Path) -> None:
    text = HEADER + "steps:\n  - hubs: true\n    capture: {link: {path: a, optional: 'yes'}}\n"
    with pytest.raises(ScenarioError) as refused:
        load_file(_write(tmp_path, text))
    assert ":6: steps[0].capture.link: a capture is a path" in str(refused.value)


def test_waits_are_inferred_and_a_declared_writes_false_is_trusted(tmp_path: Path) -> None:
    text = (
        HEADER + "writes: false\nsteps:\n  - wait: 3\n  - graphql: delete_token\n"
        "    args: {id: '${missing_id}'}\n    expect: [{error: true}]\n"
    )
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert (scenario.waits, scenario.writes, scenario.control) == (True, False, False)


def test_bulk_is_declared_and_the_cap_probe_declares_it() -> None:
    scenarios = {s.id: s for s in load_scenarios([scenarios_dir()])}
    assert scenarios["pat-cap"].bulk
    assert not scenarios["pat-create"].bulk
    assert [s.id for s in scenarios.values() if s.untracked_writes] == []


@pytest.mark.parametrize(
    ("step", "untracked"),
    [
        ("graphql: {query: 'mutation { x }'}", True),
        # An operation after another on one line, or after a comma (which GraphQL ignores).
        ("graphql: {query: '{ viewer { id } } mutation { x }'}", True),
        ("graphql: {query: ',mutation { x }'}", True),
        ("graphql: {query: '{ viewer { id } }'}", False),
        ("http: {method: POST, url: '${graphql_url}', json: {query: q}}", True),
        ("http: {method: DELETE, url: '${base_url}/v2/content/hubs'}", True),
        ("http: {method: POST, url: '${auth_url}/oauth/token', form: {a: b}}", False),
        ("http: {method: POST, url: '${auth_url}/oauth/token?x=1', form: {a: b}}", False),
        ("http: {method: DELETE, url: '${auth_url}/oauth/token/../../v2/content/x'}", True),
        ("http: {method: GET, url: '${base_url}/v2/content/hubs'}", False),
        ("graphql: create_token\n    args: {name: '${new_name}'}", False),
    ],
)
def test_writes_the_ledger_cannot_track_are_marked(
    tmp_path: Path, step: str, untracked: bool
) -> None:
    text = f"{HEADER}steps:\n  - {step}\n    expect: [{{ok: true}}]\n"
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert scenario.untracked_writes is untracked


def test_missing_id_is_a_built_in_name(tmp_path: Path) -> None:
    text = (
        f"{HEADER}steps:\n  - graphql: delete_token\n    args: {{id: '${{missing_id}}'}}\n"
        "    expect: [{error: true}]\n"
    )
    (scenario,) = load_file(_write(tmp_path, text)).scenarios
    assert scenario.steps[0].request == GraphqlCall("delete_token", {"id": "${missing_id}"})
    with pytest.raises(ScenarioError, match="'missing_id' is a target key or built-in name"):
        load_file(
            _write(tmp_path, f"{HEADER}steps:\n  - hubs: true\n    capture: {{missing_id: a}}\n")
        )
