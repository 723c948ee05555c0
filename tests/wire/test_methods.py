"""HEAD wherever GET is served, and OPTIONS with Allow (RFC 9110 9.3.2, 9.3.7).

The content API, the token endpoint, GraphQL, the management page and the control API all
answer them alike, because one wrapper (``wire/methods.py``) adds them to every handler.
"""

from __future__ import annotations

import httpx
import pytest

from patgate.fake.world import DefaultWorld
from patgate.harness import Fake
from patgate.wire import WireRequest, WireResponse
from patgate.wire.methods import allow_value, with_implicit_methods, without_body
from tests.wire.conftest import GRAPHQL_URL, HUBS_URL, TOKEN_URL, URLS, Call, bearer


def _same_but_the_body(got: WireResponse, head: WireResponse) -> None:
    assert head.status == got.status
    assert head.body == b""
    assert head.header("content-length") == str(len(got.body)) != "0"
    assert [h for h in head.headers if h[0].lower() != "content-length"] == [
        h for h in got.headers if h[0].lower() != "content-length"
    ]


@pytest.mark.parametrize("path", ["", "/{hub}", "/{hub}/content-types", "/{hub}/nothing-here"])
def test_head_on_the_content_api_is_get_without_the_body(
    call: Call, world: DefaultWorld, path: str
) -> None:
    hubs = call("GET", HUBS_URL, [bearer(world.admin_token)]).json()["_embedded"]["hubs"]
    url = HUBS_URL + path.format(hub=hubs[0]["id"])
    got = call("GET", url, [bearer(world.admin_token)])
    head = call("HEAD", url, [bearer(world.admin_token)])
    _same_but_the_body(got, head)


def test_head_without_a_bearer_is_the_gets_401(call: Call) -> None:
    head = call("HEAD", HUBS_URL)
    assert head.status == 401
    assert head.header("www-authenticate") == "Bearer"
    assert head.body == b""


@pytest.mark.parametrize(
    ("url", "allow"),
    [
        (HUBS_URL, "GET, HEAD, OPTIONS"),
        (TOKEN_URL, "POST, OPTIONS"),
        (GRAPHQL_URL, "POST, OPTIONS"),
    ],
)
def test_options_answers_204_with_allow(
    call: Call, world: DefaultWorld, url: str, allow: str
) -> None:
    response = call("OPTIONS", url, [bearer(world.admin_token)])
    assert (response.status, response.header("allow"), response.body) == (204, allow, b"")


def test_head_where_get_is_not_served_is_405_naming_the_methods(call: Call) -> None:
    response = call("HEAD", TOKEN_URL)
    assert (response.status, response.header("allow"), response.body) == (
        405,
        "POST, OPTIONS",
        b"",
    )


def test_options_on_the_content_api_judges_the_bearer_first(call: Call) -> None:
    assert call("OPTIONS", HUBS_URL).status == 401


def test_allow_value_adds_head_beside_get_and_options_once() -> None:
    assert allow_value("GET") == "GET, HEAD, OPTIONS"
    assert allow_value("GET, POST") == "GET, HEAD, POST, OPTIONS"
    assert allow_value("POST") == "POST, OPTIONS"
    assert allow_value("GET, HEAD, OPTIONS") == "GET, HEAD, OPTIONS"


def test_without_body_keeps_the_get_length_over_a_stale_one() -> None:
    response = WireResponse(200, (("Content-Length", "1"), ("X", "y")), b"abcd")
    assert without_body(response) == WireResponse(200, (("X", "y"), ("Content-Length", "4")), b"")


def test_a_handler_that_serves_nothing_still_serves_nothing() -> None:
    for method in ("HEAD", "OPTIONS", "GET"):
        assert with_implicit_methods(lambda _: None, WireRequest(method, URLS.hubs_url)) is None


@pytest.fixture
def fake() -> object:
    with Fake() as running:
        yield running


@pytest.mark.parametrize("path", ["/", "/tokens", "/approvals", "/inspector"])
def test_head_on_the_management_page(fake: Fake, path: str) -> None:
    url = fake.urls.ui_url + path
    with httpx.Client() as client:
        client.get(fake.world["ui_url"])  # the address with the page's key signs in
        got = client.get(url)
        head = client.head(url)
    assert head.status_code == got.status_code  # a page, or the redirect to pick a user
    assert head.content == b""
    # A redirect carries a one-time notice handle of its own: the same address otherwise.
    assert (
        str(head.headers.get("location")).partition("?note=")[0]
        == str(got.headers.get("location")).partition("?note=")[0]
    )
    assert head.headers.get("content-type") == got.headers.get("content-type")
    assert head.headers["content-length"] == str(len(got.content))


def test_options_on_the_management_page(fake: Fake) -> None:
    with httpx.Client() as client:
        client.get(fake.world["ui_url"])  # the address with the page's key signs in
        response = client.options(fake.urls.ui_url + "/tokens")
    assert (response.status_code, response.headers["allow"]) == (204, "GET, HEAD, POST, OPTIONS")


@pytest.mark.parametrize("path", ["/users", "/world", "/clock", "/requests", "/faults"])
def test_head_on_control_gets(fake: Fake, path: str) -> None:
    url = fake.world["control_url"] + path
    auth = {"Authorization": f"Bearer {fake.control_token}"}
    with httpx.Client(headers=auth) as client:
        got = client.get(url)
        head = client.head(url)
        options = client.options(url)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(len(got.content))
    assert options.status_code == 204
    assert "HEAD" in options.headers["allow"].split(", ")


def test_control_options_without_the_token_is_401(fake: Fake) -> None:
    assert httpx.options(fake.world["control_url"] + "/users").status_code == 401
