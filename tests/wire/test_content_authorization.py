"""The authorization matrix: every principal against every content route and GraphQL.

Every path under ``/v2/content`` is authorized before it is looked up, so each bearer gets
the same answer on every route: 200 for a caller who may read, 403 for a removed or
unpermitted user, 401 with a Bearer challenge for anything that is not a valid token.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal, Role
from patgate.fake.world import DefaultWorld
from patgate.service import api_paths
from patgate.wire import WireApp
from patgate.wire.content_resources import KIND_ROUTES
from tests.wire.conftest import FORM, GRAPHQL_URL, JSON, TOKEN_URL, URLS, Call, graph_body

VIEWER = "{ viewer { id } }"
ALLOWED, FORBIDDEN, UNAUTHENTICATED = 200, 403, 401


@dataclass(frozen=True)
class Bearer:
    name: str
    value: str | None
    content: int
    """The status every content route answers."""
    graphql: int
    """The status GraphQL answers to ``viewer``."""
    unknown: int
    """The status of a path no route serves: 404 once the bearer passes the gate (valid
    token, member of the organization); permission is judged by each route, not the gate."""


def _client_token(call: Call, world: DefaultWorld) -> str:
    form = {
        "client_id": world.client_id,
        "client_secret": world.client_secret,
        "grant_type": "client_credentials",
    }
    token: str = call("POST", TOKEN_URL, [FORM], urlencode(form)).json()["access_token"]
    return token


def _bearers(deployment: Deployment, world: DefaultWorld, call: Call) -> list[Bearer]:
    expired = _client_token(call, world)
    deployment.clock.advance(deployment.client_tokens.expires_in + 1)
    admin = Principal(world.admin_id, world.organization_id, via="client")
    deleted = deployment.create_token(admin, "to delete", world.organization_id)
    deployment.delete_token(admin, deleted.record.id)
    pending = deployment.request_token_via_ui(world.member_id, world.organization_id, "pending")
    assert pending.record.status.value == "pending"
    # GraphQL's viewer answers any member; a removed user's viewer is a rule's refusal (200).
    return [
        Bearer("client token", _client_token(call, world), ALLOWED, ALLOWED, 404),
        Bearer("admin PAT", world.admin_token, ALLOWED, ALLOWED, 404),
        Bearer("member PAT", world.member_token, ALLOWED, ALLOWED, 404),
        Bearer("unpermitted member PAT", world.unpermitted_token, FORBIDDEN, ALLOWED, 404),
        Bearer("removed user's PAT", world.removed_token, FORBIDDEN, ALLOWED, FORBIDDEN),
        Bearer("pending PAT", pending.value, *[UNAUTHENTICATED] * 3),
        Bearer("deleted PAT", deleted.value, *[UNAUTHENTICATED] * 3),
        Bearer("expired client token", expired, *[UNAUTHENTICATED] * 3),
        Bearer("garbage", "not-a-token", *[UNAUTHENTICATED] * 3),
        Bearer("no token", None, *[UNAUTHENTICATED] * 3),
    ]


def content_urls(deployment: Deployment, world: DefaultWorld) -> Iterator[tuple[str, str]]:
    """``(template, url)`` for every content route, filled with a hub's real ids."""
    hub = next(h for h in deployment.hubs if h.organization_id == world.organization_id)
    ids = {
        route.single: deployment.content.listing(route.kind, hub.id)[0].id for route in KIND_ROUTES
    }
    ids[api_paths.EVENT_EDITIONS] = ids[api_paths.EVENT]
    for path in api_paths.ALL_PATHS:
        if not path.is_content:
            continue
        template = path.url(URLS.base_url, **{n: "{" + n + "}" for n in path.parameters})
        yield (
            template.replace("%7B", "{").replace("%7D", "}"),
            path.url(URLS.base_url, hub_id=hub.id, id=ids.get(path, "")),
        )


def test_the_matrix_covers_every_content_route(
    app: WireApp, deployment: Deployment, world: DefaultWorld
) -> None:
    served = {t for t, _ in app.router if t.startswith(URLS.base_url + api_paths.CONTENT_PREFIX)}
    assert {template for template, _ in content_urls(deployment, world)} == served


def test_every_bearer_gets_the_same_answer_on_every_route(
    call: Call, deployment: Deployment, world: DefaultWorld
) -> None:
    bearers = _bearers(deployment, world, call)
    urls = [url for _, url in content_urls(deployment, world)]
    unknown = f"{URLS.base_url}{api_paths.CONTENT_PREFIX}/no-such-thing"
    wrong: list[str] = []
    for bearer in bearers:
        headers = [("Authorization", f"Bearer {bearer.value}")] if bearer.value else []
        for url in [*urls, unknown]:
            expected = bearer.unknown if url == unknown else bearer.content
            response = call("GET", url, headers)
            if response.status != expected:
                wrong.append(f"{bearer.name} GET {url}: {response.status}, expected {expected}")
            elif expected == UNAUTHENTICATED:
                challenge = response.header("www-authenticate") or ""
                if not challenge.startswith("Bearer"):
                    wrong.append(f"{bearer.name} GET {url}: no Bearer challenge")
        graph = call("POST", GRAPHQL_URL, [JSON, *headers], graph_body(VIEWER))
        if graph.status != bearer.graphql:
            wrong.append(f"{bearer.name} POST graphql: {graph.status}, expected {bearer.graphql}")
    assert wrong == []


def test_a_removed_users_viewer_is_refused_inside_a_200(call: Call, world: DefaultWorld) -> None:
    headers = [JSON, ("Authorization", f"Bearer {world.removed_token}")]
    body = call("POST", GRAPHQL_URL, headers, graph_body(VIEWER)).json()
    assert body["data"] == {"viewer": None}
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"


@pytest.mark.parametrize("role", [Role.MEMBER, Role.RESTRICTED])
def test_another_organizations_hub_and_records_are_not_found(
    call: Call, deployment: Deployment, world: DefaultWorld, role: Role
) -> None:
    other = deployment.add_organization("Elsewhere")
    stranger = deployment.add_user("Stranger", "s@elsewhere.test", other.id, role)
    token = deployment.request_token_via_ui(stranger.id, other.id, "t")
    deployment.approve_token_request(token.record.id)
    headers = [("Authorization", f"Bearer {token.value}")]
    expected = 404 if role is Role.MEMBER else 403
    for _, url in content_urls(deployment, world):
        if url == URLS.hubs_url:
            continue
        assert (url, call("GET", url, headers).status) == (url, expected)
