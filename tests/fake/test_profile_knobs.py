"""Each knob of the second round changes what a client sees, and without it nothing does
(through httpx against Fake(profile=...), the code path ``patgate serve --profile`` runs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

import patgate
from tests.control.served import served
from tests.fake.test_profile_answers import LIST, Client

DELETE = "mutation($i: ID!) { deletePersonalAccessToken(input: {id: $i}) }"
MILLIS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
MICROS_OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$")


def _with(**profile: Any) -> Client:
    return Client(patgate.Fake(profile={"profile_version": 1, **profile}))


def _default() -> Client:
    return Client(patgate.Fake())


def test_a_null_token_type_leaves_the_field_out() -> None:
    assert "token_type" not in _with(client_token={"token_type": None}).client_token()
    assert _default().client_token()["token_type"] == "Bearer"


def _hub_names(client: Client) -> list[str]:
    return [hub["name"] for hub in client.hubs().json()["_embedded"]["hubs"]]


def test_the_hubs_order_follows_the_profile() -> None:
    filed = _hub_names(_default())
    assert len(filed) > 2
    assert filed != sorted(filed)  # the default world's hubs are not filed by name
    assert _hub_names(_with(hubs={"order": "name_ascending"})) == sorted(filed)
    assert _hub_names(_with(hubs={"order": "name_descending"})) == sorted(filed, reverse=True)
    assert _hub_names(_with(hubs={"order": "created_ascending"})) == filed
    assert _hub_names(_with(hubs={"order": "created_descending"})) == filed[::-1]


def test_a_size_over_the_maximum_is_cut_or_refused() -> None:
    cut = _with(pages={"default_size": 2, "maximum_size": 2, "over_maximum": "cut"}).hubs(
        "?size=50"
    )
    assert cut.status_code == 200
    assert cut.json()["page"]["size"] == 2
    assert len(cut.json()["_embedded"]["hubs"]) == 2
    assert "size=2" in cut.json()["_links"]["self"]["href"]
    assert _with(pages={"default_size": 2, "maximum_size": 2}).hubs("?size=50").status_code == 400


def test_a_page_links_only_the_relations_the_profile_names() -> None:
    links = _with(pages={"links": ["self"]}).hubs("?size=1&page=1").json()["_links"]
    assert list(links) == ["self"]
    links = _with(pages={"links": ["self", "next", "last"]}).hubs("?size=1&page=1").json()
    assert list(links["_links"]) == ["self", "last", "next"]  # the fake's order
    assert list(_default().hubs("?size=1&page=1").json()["_links"]) == [
        "self",
        "first",
        "last",
        "prev",
        "next",
    ]


def test_dates_take_the_profiles_precision_and_offset() -> None:
    client = _with(
        date_precision={"lastUsedDate": "microseconds"},
        date_offset={"lastUsedDate": "+00:00", "hubs": "+00:00"},
        hubs={"date_precision": "microseconds"},
    )
    client.graph(LIST)  # the admin's token has been used now
    (token,) = client.tokens()
    assert MICROS_OFFSET.match(token["lastUsedDate"])
    assert MILLIS_Z.match(token["createdDate"])  # documented: not a choice
    hub = client.hubs().json()["_embedded"]["hubs"][0]
    assert MICROS_OFFSET.match(hub["createdDate"])
    assert MICROS_OFFSET.match(hub["lastModifiedDate"])
    default = _default()
    default.graph(LIST)
    assert MILLIS_Z.match(default.tokens()[0]["lastUsedDate"])
    assert MILLIS_Z.match(default.hubs().json()["_embedded"]["hubs"][0]["createdDate"])


def test_the_rate_limit_is_announced_on_every_graphql_answer() -> None:
    client = _with(rate_limit={"requests_per_minute": 3, "announce": "ratelimit_headers"})
    first = client.graph(LIST)
    assert first.headers["RateLimit-Policy"] == "3;w=60"
    # Counted while the limit is off too (a client reading RateLimit sees it move), never refused.
    off = [first, *(client.graph(LIST) for _ in range(3))]
    assert [answer.headers["RateLimit"] for answer in off] == [
        "limit=3, remaining=2, reset=60",
        "limit=3, remaining=1, reset=60",
        "limit=3, remaining=0, reset=60",
        "limit=3, remaining=0, reset=60",
    ]
    assert [answer.status_code for answer in off] == [200] * 4
    client.fake.control.set_rate_limit(True)  # every key starts afresh
    seen = [client.graph(LIST) for _ in range(4)]
    assert [answer.headers["RateLimit"] for answer in seen[:3]] == [
        "limit=3, remaining=2, reset=60",
        "limit=3, remaining=1, reset=60",
        "limit=3, remaining=0, reset=60",
    ]
    assert seen[3].status_code == 429
    assert seen[3].headers["RateLimit"] == "limit=3, remaining=0, reset=60"
    client.fake.clock.advance(45)
    assert client.graph(LIST).headers["RateLimit"] == "limit=3, remaining=0, reset=15"
    refused = client.graph(LIST, token="not-a-token")
    assert refused.status_code == 401
    assert "RateLimit" in refused.headers
    assert "RateLimit" not in client.hubs().headers  # GraphQL only
    assert "RateLimit" not in _default().graph(LIST).headers


def test_a_client_credential_create_is_refused_as_forbidden_naming_the_knob() -> None:
    client = _with(pat_creation={"client_credentials": "refused"})
    bearer = client.client_token()["access_token"]
    refused = client.create("from a client", token=bearer)
    assert refused.json()["data"]["createPersonalAccessToken"] is None
    assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    (logged,) = [e for e in client.fake.requests().entries if e.reason_code is not None]
    assert logged.reason_code == "client-credential-creation"
    assert "pat_creation.client_credentials: refused" in str(logged.reason)
    assert client.create("with a PAT").json()["data"]["createPersonalAccessToken"]["id"]
    default = _default()
    created = default.create("from a client", token=default.client_token()["access_token"])
    assert created.json()["data"]["createPersonalAccessToken"]["id"]


def test_a_graphql_refusal_takes_its_kinds_status_when_the_profile_says_so() -> None:
    client = _with(graphql={"refusal_status": "refusal"}, refusals={"not_found": {"status": 410}})
    refused = client.graph(DELETE, i="no-such-token")
    assert refused.status_code == 410
    assert refused.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert refused.json()["data"] == {"deletePersonalAccessToken": None}
    assert client.graph(LIST).status_code == 200
    assert _default().graph(DELETE, i="no-such-token").status_code == 200


def test_content_refusals_may_be_problem_details() -> None:
    client = _with(content_errors={"format": "problem+json"})
    missing = client.get(f"{client.world['base_url']}/v2/content/hubs/no-such-hub")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json() == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "no such hub",
    }
    unauthenticated = client.hubs(token="not-a-token")
    assert unauthenticated.json()["status"] == 401
    assert "WWW-Authenticate" in unauthenticated.headers
    default = _default().get(f"{client.world['base_url']}/v2/content/hubs/no-such-hub")
    assert default.headers["content-type"] == "application/json"
    assert default.json() == {"errors": [{"message": "no such hub"}]}


def test_a_message_for_one_operation_does_not_bleed_into_another() -> None:
    client = _with(
        refusal_messages={
            "delete_token": {"not_found": "No such personal access token"},
            "hub": {"not_found": "Hub not found"},
        }
    )
    deleted = client.graph(DELETE, i="no-such-token").json()
    assert deleted["errors"][0]["message"] == "No such personal access token"
    hub = client.get(f"{client.world['base_url']}/v2/content/hubs/no-such-hub").json()
    assert hub == {"errors": [{"message": "Hub not found"}]}
    listing = client.get(f"{client.world['base_url']}/v2/content/hubs/no-such-hub/events")
    assert listing.json() == {"errors": [{"message": "no such hub"}]}  # not the hub's
    # The old way, one message per kind, served both: the bleed per-operation messages end.
    both = _with(refusals={"not_found": {"message": "No such personal access token"}})
    hub = both.get(f"{both.world['base_url']}/v2/content/hubs/no-such-hub").json()
    assert hub == {"errors": [{"message": "No such personal access token"}]}
    kind_and_operation = _with(
        refusals={"not_found": {"message": "Not found"}},
        refusal_messages={"delete_token": {"not_found": "No such personal access token"}},
    )
    assert kind_and_operation.graph(DELETE, i="x").json()["errors"][0]["message"] == (
        "No such personal access token"
    )
    hub = kind_and_operation.get(f"{both.world['base_url']}/v2/content/hubs/x").json()
    assert hub == {"errors": [{"message": "Not found"}]}


def test_an_operations_message_follows_its_field_under_an_alias() -> None:
    client = _with(refusal_messages={"delete_token": {"not_found": "No such token"}})
    aliased = 'mutation { gone: deletePersonalAccessToken(input: {id: "x"}) }'
    assert client.graph(aliased).json()["errors"][0]["message"] == "No such token"


def test_a_token_endpoint_message_comes_from_its_operation() -> None:
    client = _with(refusal_messages={"token": {"unauthenticated": "bad client"}})
    answer = client.http.post(
        f"{client.world['auth_url']}/oauth/token",
        data={"client_id": "x", "client_secret": "y", "grant_type": "client_credentials"},
    )
    assert answer.status_code == 400  # documented
    assert answer.json() == {"error": "invalid_client", "error_description": "bad client"}


SERVED_PROFILE = """\
profile_version: 1
client_token: {token_type: null}
rate_limit: {requests_per_minute: 7, announce: ratelimit_headers}
content_errors: {format: problem+json}
refusal_messages:
  hub: {not_found: Hub not found}
shapes:
  hub:
    body:
      type: object
      keys:
        id: {type: string}
        region: {type: string, sample: eu-west-1}
"""


@pytest.mark.slow
def test_serve_with_a_profile_serves_its_knobs_and_shapes(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(SERVED_PROFILE, encoding="utf-8")
    with served(tmp_path / "w.json", "--profile", str(profile)) as world:
        token = httpx.post(
            f"{world['auth_url']}/oauth/token",
            data={
                "client_id": world["client_id"],
                "client_secret": world["client_secret"],
                "grant_type": "client_credentials",
            },
        ).json()
        assert "token_type" not in token
        headers = {"Authorization": f"Bearer {world['admin_token']}"}
        listed = httpx.post(world["graphql_url"], json={"query": LIST}, headers=headers)
        assert listed.headers["RateLimit-Policy"] == "7;w=60"
        hubs = httpx.get(f"{world['base_url']}/v2/content/hubs", headers=headers).json()
        first = hubs["_embedded"]["hubs"][0]
        hub = httpx.get(first["_links"]["self"]["href"], headers=headers).json()
        assert hub == {"id": first["id"], "region": "eu-west-1"}
        missing = httpx.get(f"{world['base_url']}/v2/content/hubs/nope", headers=headers)
        assert missing.headers["content-type"] == "application/problem+json"
        assert missing.json()["detail"] == "Hub not found"
