from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from patgate.fake.deployment import Deployment
from patgate.fake.world import DefaultWorld, build_default_world
from patgate.wire import FakeUrls, WireApp, WireRequest, WireResponse

URLS = FakeUrls()
TOKEN_URL = URLS.token_url
HUBS_URL = URLS.hubs_url
GRAPHQL_URL = URLS.graphql_url
FORM = ("Content-Type", "application/x-www-form-urlencoded")
JSON = ("Content-Type", "application/json")

Call = Callable[..., WireResponse]


@pytest.fixture
def deployment() -> Deployment:
    return Deployment()


@pytest.fixture
def world(deployment: Deployment) -> DefaultWorld:
    return build_default_world(deployment)


@pytest.fixture
def app(deployment: Deployment, world: DefaultWorld) -> WireApp:
    return WireApp(deployment, URLS)


@pytest.fixture
def call(app: WireApp) -> Call:
    """Send one request to the app; a ``None`` answer fails the test."""

    def send(
        method: str, url: str, headers: Iterable[tuple[str, str]] = (), body: bytes | str = b""
    ) -> WireResponse:
        raw = body.encode() if isinstance(body, str) else body
        response = app(WireRequest(method, url, tuple(headers), raw))
        assert response is not None, f"the app does not serve {url}"
        return response

    return send


def bearer(token: str) -> tuple[str, str]:
    return ("Authorization", f"Bearer {token}")


def graph_body(query: str, variables: dict[str, Any] | None = None) -> bytes:
    payload: dict[str, Any] = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    return json.dumps(payload).encode()
