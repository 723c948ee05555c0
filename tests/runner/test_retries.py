"""429 and 503: Retry-After in both forms, within a wait limit and a budget, counted."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import format_datetime

import httpx
import pytest

from patgate.harness import Fake
from patgate.runner import LiveTarget, TargetConfig
from patgate.runner.connection.exchange import Exchange
from patgate.runner.connection.retries import RetryPolicy, retry_after_seconds
from patgate.runner.results.events import Outcome

from .support import builtin, finished, run_events, scenarios

NOW = 1_700_000_000.0


def _policy(**options: float) -> RetryPolicy:
    return RetryPolicy(clock=lambda: NOW, jitter=lambda: 0.0, **options)  # type: ignore[arg-type]


def test_retry_after_in_seconds_and_as_an_http_date() -> None:
    assert retry_after_seconds("7", NOW) == 7.0
    later = format_datetime(datetime.fromtimestamp(NOW + 12, tz=timezone.utc), usegmt=True)
    assert retry_after_seconds(later, NOW) == pytest.approx(12.0)
    earlier = format_datetime(datetime.fromtimestamp(NOW - 60, tz=timezone.utc), usegmt=True)
    assert retry_after_seconds(earlier, NOW) == 0.0
    assert retry_after_seconds("soon", NOW) is None
    assert retry_after_seconds(None, NOW) is None


def test_only_429_and_503_are_retried() -> None:
    policy = _policy()
    assert policy.delay(500, {"retry-after": "1"}, 0) is None
    assert policy.delay(429, {"retry-after": "1"}, 0) == 1.0
    assert policy.delay(503, {"retry-after": "2"}, 0) == 2.0
    assert policy.retries == 2


def test_a_wait_longer_than_the_limit_is_not_waited() -> None:
    policy = _policy(max_wait=10.0)
    assert policy.delay(429, {"retry-after": "11"}, 0) is None
    assert policy.retries == 0


def test_the_budget_caps_the_waits_of_the_whole_run() -> None:
    policy = _policy(budget=5.0, max_wait=10.0)
    assert policy.delay(429, {"retry-after": "3"}, 0) == 3.0
    assert policy.delay(429, {"retry-after": "3"}, 0) is None
    assert policy.delay(429, {"retry-after": "2"}, 0) == 2.0
    assert policy.retries == 2


def test_without_retry_after_the_waits_grow_and_attempts_are_limited() -> None:
    policy = _policy(attempts=3)
    assert [policy.delay(503, {}, attempt) for attempt in range(4)] == [0.5, 1.0, 2.0, None]


def test_jitter_adds_a_little_to_each_wait() -> None:
    policy = RetryPolicy(clock=lambda: NOW, jitter=lambda: 1.0)
    wait = policy.delay(429, {"retry-after": "10"}, 0)
    assert wait is not None
    assert 10.0 < wait <= 11.0


def _busy_then(answers: int, status: int = 429, retry_after: str = "0") -> httpx.MockTransport:
    fake = Fake()
    inner = fake.httpx_transport()
    seen = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["n"] += 1
        if seen["n"] <= answers:
            return httpx.Response(status, headers={"Retry-After": retry_after})
        return inner.handle_request(request)

    transport = httpx.MockTransport(handler)
    transport.fake = fake  # type: ignore[attr-defined]
    return transport


def test_the_exchange_resends_a_read_and_counts_it() -> None:
    transport = _busy_then(2)
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    target = LiveTarget(TargetConfig(fake.world), transport=transport)
    exchange = Exchange(target, retry=_policy(), sleep=lambda seconds: None)
    observed = exchange.send("GET", fake.world["base_url"] + "/v2/content/hubs", kind="hubs")
    assert observed.status == 401  # the real answer, after two 429s
    assert exchange.retry.retries == 2


def test_a_write_is_not_resent_by_the_exchange() -> None:
    transport = _busy_then(1)
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    target = LiveTarget(TargetConfig(fake.world), transport=transport)
    exchange = Exchange(target, retry=_policy(), sleep=lambda seconds: None)
    observed = exchange.send(
        "POST", fake.world["graphql_url"], kind="graphql", json={"query": "mutation { x }"}
    )
    assert observed.status == 429
    assert exchange.retry.retries == 0


def test_a_run_honours_retry_after_and_reports_the_retries() -> None:
    transport = _busy_then(2, status=503)
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    target = LiveTarget(TargetConfig(fake.world), transport=transport)
    chosen = [s for s in builtin() if s.id == "token-ok"]
    events, end = run_events(chosen, target)
    assert finished(events)["token-ok"].outcome is Outcome.PASSED
    assert end.tallies.retries == 2


def test_past_the_budget_a_429_stands_and_leaves_the_rules_not_checked() -> None:
    # Rate limits are not documented: a 429 answers no rule's question, so it neither
    # fails the rule nor passes it ("error: true" would take any 4xx).
    transport = _busy_then(50, retry_after="1")
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    target = LiveTarget(TargetConfig(fake.world), transport=transport)
    chosen = [s for s in builtin() if s.id in ("token-ok", "auth-required")]
    events, end = run_events(chosen, target, retry_budget=0.0, every_rule=False)
    for scenario_id in ("token-ok", "auth-required"):
        result = finished(events)[scenario_id]
        assert result.outcome is Outcome.NOT_CHECKED
        assert result.failures == ()
        assert "429" in result.reason
        assert "--retry-budget" in result.reason
    outcomes = {rule.rule_id: rule.outcome for rule in end.rules}
    assert outcomes["TOKEN-OK"] is Outcome.NOT_CHECKED
    assert outcomes["AUTH-REQUIRED"] is Outcome.NOT_CHECKED
    assert end.tallies.retries == 0
    assert end.exit_code == 0
    _, required = run_events(chosen, target, retry_budget=0.0, require=("checkable",))
    assert required.exit_code == 4


def test_past_the_budget_a_503_stands_and_fails_the_step() -> None:
    transport = _busy_then(50, status=503, retry_after="1")
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    target = LiveTarget(TargetConfig(fake.world), transport=transport)
    chosen = [s for s in builtin() if s.id == "token-ok"]
    events, end = run_events(chosen, target, retry_budget=0.0)
    (failure, *_) = finished(events)["token-ok"].failures
    assert "503" in failure.actual
    assert end.exit_code == 1


def test_a_step_that_asks_for_429_checks_it() -> None:
    chosen = scenarios(
        """\
id: own-limit
title: The deployment's own limit answers 429
rules: [AUTH-REQUIRED]
steps:
  - hubs: true
    expect:
      - status: [429]
"""
    )
    transport = _busy_then(50, retry_after="1")
    fake: Fake = transport.fake  # type: ignore[attr-defined]
    busy = LiveTarget(TargetConfig(fake.world), transport=transport)
    events, _ = run_events(chosen, busy, retry_budget=0.0)
    assert finished(events)["own-limit"].outcome is Outcome.PASSED
    calm = LiveTarget(TargetConfig(fake.world), transport=fake.httpx_transport())
    events, _ = run_events(chosen, calm, retry_budget=0.0)
    (failure,) = finished(events)["own-limit"].failures
    assert "expected status [429], got 401" in failure.message


def test_a_429_on_a_later_step_leaves_its_rule_not_checked_though_an_earlier_step_held() -> None:
    fake = Fake()
    inner = fake.httpx_transport()
    seen = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["n"] += 1
        if seen["n"] == 2:
            return httpx.Response(429, headers={"Retry-After": "60"})
        return inner.handle_request(request)

    target = LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(handler))
    chosen = scenarios(
        """\
id: two-steps
title: The first step holds, the second meets the limit
rules: [CONTENT-PAT]
steps:
  - hubs: true
    bearer: ${admin_token}
    expect:
      - ok: true
  - hubs: true
    bearer: ${admin_token}
    expect:
      - ok: true
"""
    )
    events, end = run_events(chosen, target, every_rule=False)
    assert finished(events)["two-steps"].outcome is Outcome.NOT_CHECKED
    (rule,) = end.rules
    assert rule.outcome is Outcome.NOT_CHECKED
    assert "answered 429" in rule.reason


def _closed_then_answered(fake: Fake) -> httpx.MockTransport:
    """The first request meets a kept-alive connection the server had closed (no answer at
    all); the next ones reach the fake."""
    inner = fake.httpx_transport()
    closed: list[bool] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if not closed:
            closed.append(True)
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return inner.handle_request(request)

    return httpx.MockTransport(handler)


def test_a_read_goes_again_after_a_closed_connection_and_a_write_does_not() -> None:
    # A read (or a delete) is sent once more on a fresh connection; a write never is.
    from patgate.errors import RequestFailed

    fake = Fake()
    target = LiveTarget(TargetConfig(fake.world), transport=_closed_then_answered(fake))
    exchange = Exchange(target, retry=_policy(), sleep=lambda seconds: None)
    hubs = fake.world["base_url"] + "/v2/content/hubs"
    assert exchange.send("GET", hubs, kind="hubs").status == 401  # the real answer

    fake = Fake()
    target = LiveTarget(TargetConfig(fake.world), transport=_closed_then_answered(fake))
    exchange = Exchange(target, retry=_policy(), sleep=lambda seconds: None)
    mutation = {"query": "mutation { x }"}
    with pytest.raises(RequestFailed, match="without sending a response"):
        exchange.send("POST", fake.world["graphql_url"], kind="graphql", json=mutation)
