"""The engine: outcomes, skip reasons, rule results, exit codes, cleanup and secrets."""

from __future__ import annotations

import json
from dataclasses import asdict

import httpx

from patgate.harness import Fake
from patgate.reporting.summary import exit_meaning
from patgate.runner import FakeTarget, LiveTarget, TargetConfig
from patgate.runner.results.events import (
    Outcome,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
)
from patgate.wire.messages import WireHandler, WireRequest, WireResponse

from .support import builtin, finished, live, run_events, scenarios

TOKEN_STEP = """\
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
"""


def test_the_unmodified_fake_passes_every_scenario_and_rule() -> None:
    events, end = run_events(builtin(), FakeTarget())
    assert isinstance(events[0], RunStarted)
    assert events[0].target == "embedded fake"
    assert events[0].scenario_count == len(builtin())
    kinds = [type(e) for e in events[1:-1]]
    assert kinds == [ScenarioStarted, ScenarioFinished] * len(builtin())
    assert {s.outcome for s in end.scenarios} == {Outcome.PASSED}
    assert {r.outcome for r in end.rules} == {Outcome.PASSED}
    assert end.exit_code == 0
    assert end.counts["passed"] == len(builtin())
    assert end.tallies.tokens_created == end.tallies.tokens_deleted > 0
    assert end.tallies.tokens_leaked == end.tallies.deletes_refused == 0


def test_a_live_target_skips_control_writes_and_long_waits_with_reasons() -> None:
    fake = Fake()
    events, end = run_events(builtin(), live(fake))
    results = finished(events)
    assert results["pat-approval"].reason == (
        "cannot be checked on this target: "
        "needs control of the deployment (a served or embedded fake)"
    )
    assert results["pat-cap"].reason == "writes to the deployment; run with --allow-writes"
    assert results["client-token-expiry"].reason == "needs to wait 305 s, more than --max-wait 0"
    assert results["pat-list-masked"].outcome is Outcome.PASSED
    assert all(s.outcome in (Outcome.PASSED, Outcome.NOT_CHECKED) for s in end.scenarios)
    rules = {r.rule_id: r for r in end.rules}
    assert rules["PAT-CAP"].outcome is Outcome.NOT_CHECKED
    assert "--allow-writes" in rules["PAT-CAP"].reason
    assert end.exit_code == 0
    # Nothing was created: every principal still holds only its world token.
    assert len(fake.deployment.tokens) == 4


def test_allow_writes_runs_the_writing_scenarios_on_a_live_target() -> None:
    fake = Fake()
    events, end = run_events(builtin(), live(fake), allow_writes=True)
    results = finished(events)
    for scenario_id in ("pat-cap", "pat-create", "pat-delete", "pat-admin-only"):
        assert results[scenario_id].outcome is Outcome.PASSED, results[scenario_id]
    assert end.exit_code == 0
    assert len(fake.deployment.tokens) == 4, "every token the run created is deleted"


def test_a_missing_key_skips_the_scenarios_that_need_it() -> None:
    chosen = [s for s in builtin() if s.id in ("pat-admin-only", "token-ok")]
    events, end = run_events(chosen, live(Fake(), drop=["member_token"]), allow_writes=True)
    results = finished(events)
    assert results["pat-admin-only"].outcome is Outcome.NOT_CHECKED
    assert results["pat-admin-only"].reason == "needs member_token"
    assert results["token-ok"].outcome is Outcome.PASSED
    rule = next(r for r in end.rules if r.rule_id == "PAT-ADMIN-ONLY")
    assert (rule.outcome, rule.reason) == (Outcome.NOT_CHECKED, "needs member_token")


def test_the_organization_id_is_discovered_when_the_target_lacks_it() -> None:
    chosen = [s for s in builtin() if s.id in ("pat-create", "org-discovery")]
    target = live(Fake(), drop=["organization_id"])
    _, end = run_events(chosen, target, allow_writes=True)
    assert {s.outcome for s in end.scenarios} == {Outcome.PASSED}


def test_an_organization_that_cannot_be_found_skips_with_the_reason() -> None:
    chosen = [s for s in builtin() if s.id == "pat-create"]
    target = live(Fake(), drop=["organization_id", "admin_token", "member_token"])
    events, _ = run_events(chosen, target, allow_writes=True)
    # admin_token is missing first; that is the reason given.
    assert finished(events)["pat-create"].reason == "needs admin_token"


def test_a_gate_failure_fails_the_scenario_the_rule_and_the_run() -> None:
    text = f"""\
id: wrong-status
title: Expects the wrong status
rules: [TOKEN-OK]
steps:
  - name: ask for a token
{TOKEN_STEP}    expect:
      - status: 201
"""
    events, end = run_events(scenarios(text), FakeTarget())
    result = finished(events)["wrong-status"]
    assert result.outcome is Outcome.FAILED
    (failure,) = result.failures
    assert (failure.rule, failure.level, failure.step) == ("TOKEN-OK", "gate", "ask for a token")
    assert failure.expected == "201"
    assert failure.actual.startswith("HTTP 200: ")
    assert result.source == "inline.yaml:1"
    rule = next(r for r in end.rules if r.rule_id == "TOKEN-OK")
    assert rule.outcome is Outcome.FAILED
    assert end.exit_code == 1


ADVISORY_TEXT = f"""\
id: lifetime-three
title: Expects a lifetime of 3 seconds
rules: [TOKEN-OK, TOKEN-LIFETIME]
steps:
  - name: ask for a token
{TOKEN_STEP}    expect:
      - status: 200
      - {{path: expires_in, equals: 3, rule: TOKEN-LIFETIME}}
"""


def test_an_advisory_failure_warns_and_exits_0() -> None:
    events, end = run_events(scenarios(ADVISORY_TEXT), FakeTarget())
    assert finished(events)["lifetime-three"].outcome is Outcome.WARNING
    rules = {r.rule_id: r.outcome for r in end.rules}
    assert rules["TOKEN-OK"] is Outcome.PASSED
    assert rules["TOKEN-LIFETIME"] is Outcome.WARNING
    assert end.exit_code == 0


def test_strict_makes_a_warning_fail_the_run() -> None:
    _, end = run_events(scenarios(ADVISORY_TEXT), FakeTarget(), strict=True)
    assert end.exit_code == 1


def test_a_filtered_run_reports_only_the_rules_it_touched() -> None:
    _, end = run_events(scenarios(ADVISORY_TEXT), FakeTarget(), every_rule=False)
    assert [r.rule_id for r in end.rules] == ["TOKEN-OK", "TOKEN-LIFETIME"]
    _, whole = run_events(scenarios(ADVISORY_TEXT), FakeTarget())
    uncovered = next(r for r in whole.rules if r.rule_id == "PAT-CAP")
    assert (uncovered.outcome, uncovered.reason) == (
        Outcome.NOT_CHECKED,
        "no scenario covers this rule",
    )


def test_steps_stop_at_a_gate_failure_but_not_at_an_advisory_one() -> None:
    text = f"""\
id: stops
title: Stops at the gate failure
rules: [TOKEN-OK, TOKEN-LIFETIME]
steps:
  - name: advisory miss
{TOKEN_STEP}    expect:
      - {{path: expires_in, equals: 3, rule: TOKEN-LIFETIME}}
  - name: gate miss
{TOKEN_STEP}    expect:
      - status: 500
  - name: never run
{TOKEN_STEP}    expect:
      - status: 501
"""
    events, _ = run_events(scenarios(text), FakeTarget())
    result = finished(events)["stops"]
    assert [f.step for f in result.failures] == ["advisory miss", "gate miss"]
    assert result.outcome is Outcome.FAILED


CREATE_AND_FAIL = """\
id: create-and-fail
title: Creates a token then fails
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
    capture:
      ids: {path: data.createPersonalAccessToken.id, append: true}
  - name: fail on purpose
    graphql: viewer
    bearer: ${admin_token}
    expect:
      - {path: data.viewer.personalAccessTokens, length: 99}
"""


def test_cleanup_runs_after_a_failure() -> None:
    text = CREATE_AND_FAIL + (
        "cleanup:\n  - name: delete\n    for_each: ids\n    graphql: delete_token\n"
        "    args: {id: '${item}'}\n    bearer: ${admin_token}\n    expect: [{ok: true}]\n"
    )
    target = FakeTarget()
    events, _ = run_events(scenarios(text), target)
    assert [f.step for f in finished(events)["create-and-fail"].failures] == ["fail on purpose"]
    admin = target.fake.default_world.admin_id
    assert len(list(target.fake.deployment.tokens_of(admin))) == 1


def test_tokens_a_scenario_forgot_to_delete_are_deleted_anyway() -> None:
    target = FakeTarget()
    names_before = {t.name for t in target.fake.deployment.tokens.values()}
    run_events(scenarios(CREATE_AND_FAIL), target)
    assert {t.name for t in target.fake.deployment.tokens.values()} == names_before


def test_a_cleanup_step_whose_value_was_never_captured_is_left_out() -> None:
    text = """\
id: nothing-captured
title: Fails before the capture
rules: [TOKEN-OK]
steps:
  - name: fail
    hubs: true
    expect:
      - status: 299
    capture:
      id: page.size
  - name: never
    hubs: true
cleanup:
  - name: delete
    graphql: delete_token
    args: {id: "${id}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""
    events, _ = run_events(scenarios(text), FakeTarget())
    assert [f.step for f in finished(events)["nothing-captured"].failures] == ["fail"]


def test_repeat_counts_from_a_captured_value_and_for_each_walks_a_list() -> None:
    text = """\
id: loops
title: Loops
rules: [PAT-CAP]
steps:
  - name: count
    graphql: viewer
    bearer: ${admin_token}
    capture:
      held: {count: data.viewer.personalAccessTokens}
  - name: create up to 3
    repeat: 3 - held
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    capture:
      ids: {path: data.createPersonalAccessToken.id, append: true}
  - name: now 3
    graphql: viewer
    bearer: ${admin_token}
    expect:
      - {path: data.viewer.personalAccessTokens, length: 3}
cleanup:
  - for_each: ids
    graphql: delete_token
    args: {id: "${item}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""
    target = FakeTarget()
    events, _ = run_events(scenarios(text), target)
    assert finished(events)["loops"].outcome is Outcome.PASSED
    assert len(target.fake.deployment.tokens) == 4


def test_an_assumption_that_does_not_hold_skips_with_its_reason() -> None:
    text = """\
id: assumes
title: Assumes
rules: [PAT-CAP]
steps:
  - name: count
    graphql: viewer
    bearer: ${admin_token}
    capture:
      held: {count: data.viewer.personalAccessTokens}
  - name: needs room
    assume: {that: held > 10, otherwise: the admin holds too few tokens}
    graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
"""
    events, end = run_events(scenarios(text), FakeTarget())
    result = finished(events)["assumes"]
    assert (result.outcome, result.reason) == (
        Outcome.NOT_CHECKED,
        "the admin holds too few tokens",
    )
    assert next(r for r in end.rules if r.rule_id == "PAT-CAP").outcome is Outcome.NOT_CHECKED


def test_a_short_wait_runs_on_a_live_target_and_a_long_one_is_skipped() -> None:
    text = """\
id: waits-{n}
title: Waits
rules: [TOKEN-OK]
steps:
  - wait: {n}
  - hubs: true
    expect:
      - error: true
"""
    chosen = scenarios(text.format(n=0)) + scenarios(text.format(n=2))
    events, _ = run_events(chosen, live(Fake()), max_wait=1)
    results = finished(events)
    assert results["waits-0"].outcome is Outcome.PASSED
    assert results["waits-2"].reason == "needs to wait 2 s, more than --max-wait 1"


def test_a_known_token_in_any_response_fails_single_reveal_without_showing_it() -> None:
    leaked: dict[str, str] = {}

    def echo_the_admin_token(app: WireHandler) -> WireHandler:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is None or not request.url.endswith("/hubs"):
                return response
            body = json.dumps({"echo": leaked["token"]}).encode()
            return WireResponse(response.status, response.headers, body)

        return handler

    fake = Fake(wrap_app=echo_the_admin_token)
    leaked["token"] = fake.world["admin_token"]
    chosen = [s for s in builtin() if s.id == "content-pat"]
    events, end = run_events(chosen, FakeTarget(fake))
    failures = [f for s in end.scenarios for f in s.failures]
    assert {f.rule for f in failures} == {"PAT-SINGLE-REVEAL"}
    assert all(f.actual == "the target's admin_token" for f in failures)
    assert end.exit_code == 1
    assert leaked["token"] not in json.dumps([asdict(e) for e in events], default=str)


def test_no_secret_reaches_an_event() -> None:
    text = f"""\
id: shows-a-token
title: A failure whose body holds an access token
rules: [TOKEN-OK]
steps:
  - name: ask for a token
{TOKEN_STEP}    expect:
      - status: 400
    capture:
      access_token: access_token
"""
    fake = Fake()
    events, _ = run_events(scenarios(text) + builtin(), FakeTarget(fake))
    dumped = json.dumps([asdict(e) for e in events], default=str)
    for key in ("client_secret", "admin_token", "member_token", "removed_token"):
        assert fake.world[key] not in dumped
    assert "eyJ" not in dumped, "no access token (a JWT) appears"
    assert "[REDACTED]" in dumped


def test_a_target_that_does_not_answer_is_unreachable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    config = TargetConfig({"base_url": "https://deployment.invalid"})
    target = LiveTarget(config, transport=httpx.MockTransport(refuse))
    chosen = [s for s in builtin() if s.id in ("auth-required", "token-ok")]
    _, end = run_events(chosen, target)
    assert end.exit_code == 3
    assert end.unreachable.startswith("cannot reach https://deployment.invalid")
    assert not end.lost
    assert {s.outcome for s in end.scenarios} == {Outcome.NOT_CHECKED}
    assert all("the target did not answer" in s.reason for s in end.scenarios)
    assert exit_meaning(end).startswith("exit 3: the target did not answer (cannot reach")


def test_a_target_lost_mid_run_ends_with_exit_3_and_the_rest_not_reached() -> None:
    fake = Fake()
    answers = fake.httpx_transport()
    chosen = [s for s in builtin() if not s.writes and not s.control][:6]
    calls = {"n": 0, "limit": 10**6}

    def dies(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] > calls["limit"]:
            raise httpx.ConnectError("connection refused", request=request)
        return answers.handle_request(request)

    target = LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(dies))
    run_events(chosen[:1], target)
    # The first scenario's requests are answered, the second's first one too; then nothing.
    calls["limit"], calls["n"] = calls["n"] + 1, 0
    target = LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(dies))
    _, end = run_events(chosen, target, concurrency=1)
    assert end.exit_code == 3
    assert end.lost
    results = list(end.scenarios)
    assert len(results) == len(chosen)
    assert results[0].outcome is Outcome.PASSED
    reasons = [s.reason for s in results if s.outcome is Outcome.NOT_CHECKED]
    assert any("target became unreachable while it ran" in why for why in reasons)
    assert any(why.startswith("not run: target became unreachable") for why in reasons)
    assert not any(s.outcome is Outcome.FAILED for s in results)
    assert calls["n"] == calls["limit"] + 1, "no scenario started after the target was lost"
    assert exit_meaning(end).startswith("exit 3: the target became unreachable mid-run")


def test_a_transport_error_after_the_first_answer_fails_only_that_step() -> None:
    fake = Fake()
    answers = fake.httpx_transport()
    calls = {"n": 0}

    def flaky(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 2:
            raise httpx.ReadTimeout("timed out", request=request)
        return answers.handle_request(request)

    target = LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(flaky))
    chosen = [s for s in builtin() if s.id == "auth-required"]
    events, end = run_events(chosen, target)
    (failure,) = finished(events)["auth-required"].failures
    assert "ReadTimeout" in failure.message
    assert end.exit_code == 1


def test_a_target_file_may_replace_an_operation_document() -> None:
    text = """\
id: own-viewer
title: Uses the target's viewer document
rules: [PAT-OWNER-LOOKUP]
steps:
  - graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
      - {path: data.viewer.email, exists: false}
      - {path: data.viewer.id, type: string}
"""
    document = "query Mine { viewer { id } }"
    events, _ = run_events(scenarios(text), live(Fake(), viewer=document))
    assert finished(events)["own-viewer"].outcome is Outcome.PASSED


def test_a_control_action_the_fake_refuses_fails_the_step() -> None:
    text = """\
id: approve-nothing
title: Approves a request that does not exist
rules: [PAT-APPROVAL]
steps:
  - name: approve
    control: {approve: no-such-request}
  - name: never
    graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
"""
    events, end = run_events(scenarios(text), FakeTarget())
    (failure,) = finished(events)["approve-nothing"].failures
    assert failure.step == "approve"
    assert failure.message.startswith("the control action failed:")
    assert end.exit_code == 1


def test_an_expectation_on_a_value_an_advisory_capture_missed_warns_under_its_own_rule() -> None:
    # A correct token endpoint may answer 400 with any body (the spec does not show it); the
    # built-in scenario compares the two error bodies, which is advisory.
    def plain_errors(app: WireHandler) -> WireHandler:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is not None and response.status == 400:
                return WireResponse(400, (("content-type", "text/plain"),), b"Bad credentials")
            return response

        return handler

    chosen = [s for s in builtin() if s.id == "token-bad-credentials"]
    events, end = run_events(chosen, FakeTarget(Fake(wrap_app=plain_errors)))
    result = finished(events)["token-bad-credentials"]
    assert result.outcome is Outcome.WARNING
    assert {f.rule for f in result.failures} == {"TOKEN-ERROR-BODY"}
    assert any(f.message == "wrong_secret_answer was never captured" for f in result.failures)
    assert end.exit_code == 0


def test_no_answer_while_finding_the_organization_fails_that_scenario_only() -> None:
    fake = Fake()
    answers = fake.httpx_transport()

    def no_introspection(request: httpx.Request) -> httpx.Response:
        if b"__schema" in request.content:
            raise httpx.ReadTimeout("timed out", request=request)
        return answers.handle_request(request)

    keys = {k: v for k, v in fake.world.items() if k != "organization_id"}
    target = LiveTarget(TargetConfig(keys), transport=httpx.MockTransport(no_introspection))
    chosen = [s for s in builtin() if s.id in ("token-ok", "pat-create")]
    events, end = run_events(chosen, target, allow_writes=True)
    (failure,) = finished(events)["pat-create"].failures
    assert (failure.rule, failure.step) == ("PAT-CREATE-FIELDS", "find the organization id")
    assert "ReadTimeout" in failure.message
    assert finished(events)["token-ok"].outcome is Outcome.PASSED
    assert end.exit_code == 1


def test_a_listing_with_nothing_in_it_skips_the_checks_it_would_make_vacuous() -> None:
    def empty_listings(app: WireHandler) -> WireHandler:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is None or not request.url.endswith("/graphql"):
                return response
            body = json.loads(response.body)
            viewer = (body.get("data") or {}).get("viewer")
            if isinstance(viewer, dict) and "personalAccessTokens" in viewer:
                viewer["personalAccessTokens"] = []
            return WireResponse(response.status, response.headers, json.dumps(body).encode())

        return handler

    chosen = [s for s in builtin() if s.id in ("pat-list-masked", "pat-list-own")]
    events, _ = run_events(chosen, FakeTarget(Fake(wrap_app=empty_listings)))
    results = finished(events)
    assert results["pat-list-masked"].outcome is Outcome.NOT_CHECKED
    assert results["pat-list-masked"].reason == (
        "the admin holds no token whose mask could be looked at"
    )
    assert results["pat-list-own"].outcome is Outcome.NOT_CHECKED
