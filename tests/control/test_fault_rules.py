"""Fault rules and the rate limit, from Python, as a client of the fake meets them."""

from __future__ import annotations

from datetime import datetime, timezone

import httpx
import pytest
import requests

from patgate.errors import InvalidRequest, NotFound
from patgate.fake.clock import Clock
from patgate.fake.deployment import Deployment
from patgate.harness import Fake

VIEWER = {"query": "query Who { viewer { id } }", "operationName": "Who"}


def _hubs(fake: Fake, token: str | None = None) -> httpx.Response:
    bearer = token or fake.world["admin_token"]
    return httpx.get(
        fake.world["base_url"] + "/v2/content/hubs", headers={"Authorization": f"Bearer {bearer}"}
    )


def _graph(fake: Fake, body: dict[str, str], token: str | None = None) -> httpx.Response:
    bearer = token or fake.world["admin_token"]
    return httpx.post(
        fake.world["graphql_url"], json=body, headers={"Authorization": f"Bearer {bearer}"}
    )


def test_a_429_with_retry_after_for_the_next_two_hub_listings_only() -> None:
    with Fake() as fake:
        rule = fake.faults.add("hubs", status=429, retry_after=7, count=2)
        answers = [_hubs(fake) for _ in range(3)]
    assert [a.status_code for a in answers] == [429, 429, 200]
    assert answers[0].headers["Retry-After"] == "7"
    assert answers[0].json()["errors"][0]["message"] == f"fault injected by rule {rule.id}"
    assert fake.faults.rules() == []  # spent rules go


def test_a_rule_answers_its_own_body_and_leaves_other_endpoints_alone() -> None:
    with Fake() as fake:
        fake.faults.add("token", status=503, body={"error": "temporarily_unavailable"})
        token = httpx.post(
            fake.world["auth_url"] + "/oauth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": fake.world["client_id"],
                "client_secret": fake.world["client_secret"],
            },
        )
        hubs = _hubs(fake)
    assert (token.status_code, token.json()) == (503, {"error": "temporarily_unavailable"})
    assert hubs.status_code == 200


def test_a_rule_can_match_one_principal_and_one_graphql_operation() -> None:
    with Fake() as fake:
        member = fake.default_world.member_id
        fake.faults.add("graphql", operation="Who", principal=member, status=500)
        as_member = _graph(fake, VIEWER, fake.world["member_token"])
        as_admin = _graph(fake, VIEWER)
        other_operation = _graph(
            fake, {"query": "query Other { viewer { id } }"}, fake.world["member_token"]
        )
    assert as_member.status_code == 500
    assert as_admin.status_code == 200
    assert other_operation.status_code == 200


def test_probability_zero_never_fires_and_latency_alone_gives_the_real_answer() -> None:
    with Fake() as fake:
        fake.faults.add("hubs", status=500, probability=0.0)
        fake.faults.add("hubs", latency=0.01)
        answers = [_hubs(fake).status_code for _ in range(3)]
        hits = [rule.hits for rule in fake.faults.rules()]
    assert answers == [200, 200, 200]
    assert hits == [0, 3]


def test_a_dropped_connection_is_each_librarys_own_connection_error() -> None:
    with Fake() as fake:
        fake.faults.add("hubs", drop=True)
        with pytest.raises(httpx.RemoteProtocolError):
            _hubs(fake)
        with pytest.raises(requests.ConnectionError):
            requests.get(
                fake.world["base_url"] + "/v2/content/hubs",
                headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
                timeout=5,
            )
        [entry, *_] = fake.requests().entries
    assert entry.status == 0  # logged as dropped


@pytest.mark.slow
def test_the_rate_limit_is_off_by_default_and_allows_60_per_minute_per_key() -> None:
    # A frozen clock, so that Retry-After is exact: the key's window opens at its first request.
    frozen = Deployment(clock=Clock(datetime(2026, 1, 1, 12, 0, 10, tzinfo=timezone.utc)))
    with Fake(deployment=frozen) as fake:
        first = [_graph(fake, VIEWER).status_code for _ in range(61)]
        fake.faults.set_rate_limit(True)
        admin = [_graph(fake, VIEWER) for _ in range(61)]
        member = _graph(fake, VIEWER, fake.world["member_token"])
        fake.advance_clock(60)
        next_minute = _graph(fake, VIEWER)
        hubs = _hubs(fake)
    assert set(first) == {200}
    assert [a.status_code for a in admin[:60]] == [200] * 60
    assert admin[60].status_code == 429
    assert admin[60].headers["Retry-After"] == "60"  # no time passed since the window opened
    assert member.status_code == 200
    assert next_minute.status_code == 200
    assert hubs.status_code == 200  # the published limit is GraphQL's


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ({"endpoint": "nowhere", "status": 500}, "endpoint must be one of"),
        ({"status": 99}, "status must be a whole number from 200 to 599"),
        ({"status": 500, "colour": "red"}, "unknown field(s) ['colour']"),
        ({}, "give a status, a latency, or drop: true"),
        ({"drop": True, "status": 500}, "a dropped connection has no status"),
        ({"probability": 2, "status": 500}, "probability must be a number from 0 to 1"),
        ({"latency": 3600}, "latency must be a number from 0 to 60"),
        ({"count": 0, "status": 500}, "count must be a whole number"),
        ({"endpoint": "hubs", "operation": "Who", "status": 500}, "operation applies to"),
        ({"retry_after": 3, "latency": 1}, "body and retry_after need a status"),
    ],
)
def test_a_bad_rule_is_refused_with_its_problem_named(spec: dict[str, object], named: str) -> None:
    fake = Fake()
    with pytest.raises(InvalidRequest, match="fault rule: ") as refused:
        fake.faults.add_from_json(spec)
    assert named in str(refused.value)
    assert fake.faults.rules() == []


def test_removing_an_unknown_rule_is_refused_and_clear_switches_everything_off() -> None:
    fake = Fake()
    fake.faults.add("any", status=500)
    fake.faults.set_rate_limit(True)
    with pytest.raises(NotFound, match="fault-99"):
        fake.faults.remove("fault-99")
    fake.faults.clear()
    assert (fake.faults.rules(), fake.faults.rate_limit) == ([], False)
