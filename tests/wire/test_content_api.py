from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from patgate.fake.deployment import Deployment
from patgate.fake.world import DefaultWorld
from tests.wire.conftest import FORM, HUBS_URL, TOKEN_URL, Call, bearer

HUB_FIELDS = {
    "id",
    "name",
    "label",
    "description",
    "status",
    "settings",
    "createdBy",
    "createdDate",
    "lastModifiedBy",
    "lastModifiedDate",
    "_links",
}


def _client_token(call: Call, world: DefaultWorld) -> str:
    body = urlencode(
        {
            "client_id": world.client_id,
            "client_secret": world.client_secret,
            "grant_type": "client_credentials",
        }
    )
    token: str = call("POST", TOKEN_URL, [FORM], body).json()["access_token"]
    return token


def test_the_listing_is_a_hal_page(call: Call, world: DefaultWorld) -> None:
    response = call("GET", HUBS_URL, [bearer(world.admin_token)])
    assert response.status == 200
    assert response.header("content-type") == "application/hal+json"
    body = response.json()
    assert body["page"] == {"size": 20, "totalElements": 3, "totalPages": 1, "number": 0}
    hubs = body["_embedded"]["hubs"]
    assert len(hubs) == 3
    for hub in hubs:
        assert set(hub) == HUB_FIELDS
        assert re.fullmatch(r"[0-9a-f]{24}", hub["id"])
        assert hub["_links"]["self"]["href"] == f"{HUBS_URL}/{hub['id']}"
    assert body["_links"]["self"]["href"] == f"{HUBS_URL}?page=0&size=20"


def test_page_and_size_page_through_the_hubs(call: Call, world: DefaultWorld) -> None:
    auth = [bearer(world.admin_token)]
    first = call("GET", f"{HUBS_URL}?page=0&size=2", auth).json()
    second = call("GET", f"{HUBS_URL}?page=1&size=2", auth).json()
    assert first["page"] == {"size": 2, "totalElements": 3, "totalPages": 2, "number": 0}
    assert len(first["_embedded"]["hubs"]) == 2
    assert len(second["_embedded"]["hubs"]) == 1
    assert first["_links"]["next"]["href"] == f"{HUBS_URL}?page=1&size=2"
    assert "next" not in second["_links"]
    assert second["_links"]["prev"]["href"] == f"{HUBS_URL}?page=0&size=2"


@pytest.mark.parametrize(
    "query",
    [
        "page=-1",
        "page=x",
        "size=0",
        "size=101",
        "size=1.5",
        "page=1&page=2",
        "size=%zz",
        # Empty values are no integers (the spec's type), so they are refused, not ignored.
        "page=",
        "size=",
        "page=&size=5",
        # One above the declared maximum.
        "page=1000000000",
    ],
)
def test_a_bad_page_or_size_is_a_400(call: Call, world: DefaultWorld, query: str) -> None:
    response = call("GET", f"{HUBS_URL}?{query}", [bearer(world.admin_token)])
    assert response.status == 400
    assert response.json()["errors"][0]["message"]


def test_the_largest_declared_page_is_an_empty_page(call: Call, world: DefaultWorld) -> None:
    response = call("GET", f"{HUBS_URL}?page=999999999", [bearer(world.admin_token)])
    assert response.status == 200
    assert response.json()["page"]["number"] == 999999999
    assert response.json()["_embedded"]["hubs"] == []


def test_a_client_token_and_a_lower_case_bearer_are_accepted(
    call: Call, world: DefaultWorld
) -> None:
    token = _client_token(call, world)
    assert call("GET", HUBS_URL, [bearer(token)]).status == 200
    assert call("GET", HUBS_URL, [("authorization", f"bearer {token}")]).status == 200
    assert call("GET", HUBS_URL, [("Authorization", f"BEARER {world.admin_token}")]).status == 200


def test_no_credentials_is_a_401_challenge_without_an_error(call: Call) -> None:
    response = call("GET", HUBS_URL)
    assert response.status == 401
    assert response.header("www-authenticate") == "Bearer"
    assert response.json() == {"errors": [{"message": "an authorization token is required"}]}


@pytest.mark.parametrize(
    "token",
    [
        "garbage",
        "amp_pat_AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
        "has spaces inside",
        "nön-ascii",
    ],
)
def test_an_invalid_token_is_a_401_invalid_token(call: Call, token: str) -> None:
    response = call("GET", HUBS_URL, [("Authorization", f"Bearer {token}")])
    assert response.status == 401
    assert response.header("www-authenticate") == 'Bearer error="invalid_token"'


def test_an_expired_client_token_is_refused(
    call: Call, world: DefaultWorld, deployment: Deployment
) -> None:
    token = _client_token(call, world)
    deployment.clock.advance(301)
    response = call("GET", HUBS_URL, [bearer(token)])
    assert response.status == 401
    assert response.header("www-authenticate") == 'Bearer error="invalid_token"'


@pytest.mark.parametrize("who", ["removed_token", "unpermitted_token"])
def test_a_removed_or_unpermitted_user_is_forbidden(
    call: Call, world: DefaultWorld, who: str
) -> None:
    response = call("GET", HUBS_URL, [bearer(getattr(world, who))])
    assert response.status == 403
    assert response.header("www-authenticate") == 'Bearer error="insufficient_scope"'
    assert response.json()["errors"][0]["message"]


def test_access_token_in_the_url_is_not_a_credential(call: Call, world: DefaultWorld) -> None:
    response = call("GET", f"{HUBS_URL}?access_token={world.admin_token}")
    assert response.status == 401
    assert world.admin_token.encode() not in response.body


@pytest.mark.parametrize(
    "headers",
    [
        [("Authorization", "Bearer"), ("X", "y")],
        [("Authorization", "Bearer    ")],
        [("Authorization", "Bearer a"), ("Authorization", "Bearer b")],
    ],
)
def test_malformed_bearer_requests_are_400_invalid_request(
    call: Call, headers: list[tuple[str, str]]
) -> None:
    response = call("GET", HUBS_URL, headers)
    assert response.status == 400
    assert response.header("www-authenticate") == 'Bearer error="invalid_request"'


def test_a_token_in_header_and_url_is_400(call: Call, world: DefaultWorld) -> None:
    url = f"{HUBS_URL}?access_token={world.admin_token}"
    response = call("GET", url, [bearer(world.admin_token)])
    assert response.status == 400


def test_another_scheme_counts_as_no_credentials(call: Call) -> None:
    response = call("GET", HUBS_URL, [("Authorization", "Basic dXNlcjpwYXNz")])
    assert response.status == 401
    assert response.header("www-authenticate") == "Bearer"


def test_other_methods_get_405_with_allow(call: Call, world: DefaultWorld) -> None:
    for method in ("POST", "DELETE", "PATCH"):
        response = call(method, HUBS_URL, [bearer(world.admin_token)])
        assert response.status == 405
        assert response.header("allow") == "GET, HEAD, OPTIONS"
