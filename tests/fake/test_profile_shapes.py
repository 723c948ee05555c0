"""The profile's ``shapes`` render the fake's REST answers; without them nothing changes."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import httpx
import pytest

import patgate
from patgate.fake.answer_shapes import answer_shape_of, shape_differences
from patgate.fake.clock import Clock
from patgate.fake.deployment import Deployment
from patgate.fake.profile import load_profile
from tests.fake.test_profile_answers import LIST, Client

START = datetime(2026, 3, 1, 9, 30, 0, 250000, tzinfo=timezone.utc)


def _fake(profile: dict[str, Any] | None = None) -> Client:
    document = {"profile_version": 1, **(profile or {})}
    deployment = Deployment(clock=Clock(START), profile=load_profile(document))
    return Client(patgate.Fake(deployment=deployment))


def _answers(client: Client) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    base = client.world["base_url"]
    hubs = client.hubs()
    first = hubs.json()["_embedded"]["hubs"][0]["_links"]["self"]["href"]
    answers = [
        hubs,
        client.hubs("?size=1&page=1"),
        client.get(first),
        client.get(f"{base}/v2/content/hubs/no-such-hub"),
        client.hubs(token="not-a-token"),
    ]
    listing = client.graph(LIST)
    # A PAT's value is random: the listing is compared without its masked form.
    masked = listing.json()["data"]["viewer"]["personalAccessTokens"][0]["token"]
    answers.append(
        httpx.Response(
            listing.status_code,
            headers=listing.headers,
            content=listing.content.replace(masked.encode(), b"*"),
        )
    )
    return [(a.status_code, sorted(a.headers.items()), a.content) for a in answers]


def test_an_empty_shapes_section_changes_no_byte() -> None:
    assert _answers(_fake({"shapes": {}})) == _answers(_fake())
    plain = _fake().client_token()
    shaped = _fake({"shapes": {}}).client_token()
    assert list(shaped) == list(plain)


HUB_SHAPE = {
    "content_type": "application/vnd.hub+json",
    "body": {
        "type": "object",
        "keys": {
            "id": {"type": "string", "form": "text"},
            "name": {"type": "string", "form": "text"},
            "createdDate": {"type": "string", "form": "date-time/microseconds/+00:00"},
            "region": {"type": "string", "form": "text", "sample": "eu-west-1"},
            "_links": {"type": "object"},
        },
    },
}


def test_a_hub_is_rendered_through_its_shape() -> None:
    client = _fake({"shapes": {"hub": HUB_SHAPE}})
    first = client.hubs().json()["_embedded"]["hubs"][0]
    answer = client.get(first["_links"]["self"]["href"])
    assert answer.headers["content-type"] == "application/vnd.hub+json"
    hub = answer.json()
    assert list(hub) == ["id", "name", "createdDate", "_links", "region"]
    assert hub["region"] == "eu-west-1"
    assert hub["createdDate"].endswith("+00:00")
    assert hub["createdDate"][:26] == first["createdDate"][:23] + "000"
    # The recorded shape of the rendered answer is the profile's: compare finds no drift.
    recorded = answer_shape_of(200, answer.headers["content-type"], (), hub)
    assert shape_differences(HUB_SHAPE, recorded) == []
    assert "region" not in first  # the hubs page has a shape of its own (none here)


def test_a_hubs_page_and_the_token_answer_are_rendered_through_theirs() -> None:
    page_shape = {
        "body": {
            "type": "object",
            "keys": {
                "_embedded": {
                    "type": "object",
                    "keys": {
                        "hubs": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "keys": {"id": {"type": "string"}, "name": {"type": "string"}},
                            },
                        }
                    },
                },
                "page": {"type": "object"},
                "count": {"type": "integer", "sample": 0},
            },
        }
    }
    token_shape = {
        "body": {
            "type": "object",
            "keys": {
                "access_token": {"type": "string", "form": "jwt"},
                "expires_in": {"type": "integer"},
                "scope": {"type": "string", "sample": "content"},
            },
        }
    }
    client = _fake({"shapes": {"hubs_page": page_shape, "token": token_shape}})
    page = client.hubs().json()
    assert list(page) == ["_embedded", "page", "count"]
    assert {tuple(hub) for hub in page["_embedded"]["hubs"]} == {("id", "name")}
    token = client.client_token()
    assert list(token) == ["access_token", "expires_in", "scope"]
    assert token["scope"] == "content"
    assert client.graph(LIST, token=token["access_token"]).status_code == 200


@pytest.mark.parametrize("format_", ["json", "problem+json"])
def test_a_content_refusal_is_rendered_through_its_kinds_shape(format_: str) -> None:
    shape = {
        "content_type": "application/vnd.error+json",
        "body": {
            "type": "object",
            "keys": {
                "errors": {"type": "array"},
                "detail": {"type": "string"},
                "status": {"type": "integer"},
                "code": {"type": "string", "sample": "HUB_NOT_FOUND"},
            },
        },
    }
    client = _fake(
        {"content_errors": {"format": format_}, "shapes": {"refusal.content.not_found": shape}}
    )
    missing = client.get(f"{client.world['base_url']}/v2/content/hubs/no-such-hub")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/vnd.error+json"
    if format_ == "json":
        assert missing.json() == {
            "errors": [{"message": "no such hub"}],
            "code": "HUB_NOT_FOUND",
        }
    else:
        assert missing.json() == {"status": 404, "detail": "no such hub", "code": "HUB_NOT_FOUND"}
    unauthenticated = client.hubs(token="nope")  # another kind: its own answer
    assert "code" not in unauthenticated.json()
    assert "WWW-Authenticate" in unauthenticated.headers


def test_a_fake_with_shapes_is_served_the_same_through_httpx_of_any_client() -> None:
    client = _fake({"shapes": {"hub": HUB_SHAPE}})
    first = client.hubs().json()["_embedded"]["hubs"][0]["_links"]["self"]["href"]
    with httpx.Client(transport=client.fake.httpx_transport()) as other:
        answer = other.get(
            first, headers={"Authorization": f"Bearer {client.world['admin_token']}"}
        )
    assert answer.json()["region"] == "eu-west-1"
