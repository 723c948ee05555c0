"""The fake beside a user's own mocks: every style of responses, respx and pytest-httpx.

In every combination the user's route answers its URL, the fake answers its own, in either
order of starting them, and the user's mock library still makes its own end-of-test checks
(responses' ``assert_all_requests_are_fired``, respx's ``assert_all_called``, pytest-httpx's
"every response requested, no unexpected request"): the fake's requests never reach them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack

import httpx
import pytest
import requests
import responses
import respx
from pytest_httpx import HTTPXMock

from patgate.harness import Fake

OTHER = "https://other.test/ping"
"""A URL of the user's own service, answered by the user's mock."""

ORDERS = ["fake first", "mock first"]


def _check_fake_with_requests(fake: Fake) -> None:
    world = fake.world
    auth = {"Authorization": "Bearer " + world["admin_token"]}
    answer = requests.get(world["base_url"] + "/v2/content/hubs", headers=auth, timeout=5)
    assert answer.status_code == 200, answer.text
    assert answer.json()["page"]["totalElements"] == 3
    token = requests.post(
        world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
        },
        timeout=5,
    )
    assert token.status_code == 200, token.text


def _check_fake_with_httpx(fake: Fake) -> None:
    world = fake.world
    auth = {"Authorization": "Bearer " + world["admin_token"]}
    hubs = world["base_url"] + "/v2/content/hubs"
    assert httpx.get(hubs, headers=auth).json()["page"]["totalElements"] == 3

    async def from_async() -> int:
        async with httpx.AsyncClient() as client:
            return (await client.get(hubs, headers=auth)).status_code

    assert asyncio.run(from_async()) == 200


# -- responses ---------------------------------------------------------------------------


def _route_responses(mock: responses.RequestsMock, fake: Fake | None, passthru: str | None) -> None:
    mock.get(OTHER, body="pong")
    if passthru is not None:
        # What a user tries first: let the fake's hosts (and one of their own) pass through.
        if fake is not None:
            mock.add_passthru(fake.world["base_url"])
            mock.add_passthru(fake.world["auth_url"])
        mock.add_passthru(passthru)


def _check_user_with_requests(passthru: str | None) -> None:
    assert requests.get(OTHER, timeout=5).text == "pong"
    if passthru is not None:
        assert requests.get(passthru + "/x", timeout=5).text == "elsewhere"
    else:
        with pytest.raises(requests.ConnectionError, match="Connection refused by Responses"):
            requests.get("https://unrouted.test/", timeout=5)


@pytest.fixture(params=[False, True], ids=["no passthru", "add_passthru"])
def passthru(request: pytest.FixtureRequest) -> str | None:
    if not request.param:
        return None
    url: str = request.getfixturevalue("elsewhere")
    return url


@pytest.fixture
def mocked_responses() -> Iterator[responses.RequestsMock]:
    """The fixture responses' documentation recommends."""
    with responses.RequestsMock() as mock:
        yield mock


@pytest.mark.parametrize("order", ORDERS)
def test_responses_decorator(order: str, passthru: str | None) -> None:
    @responses.activate
    def body_after_fake(fake: Fake) -> None:
        _route_responses(responses.mock, fake, passthru)
        _check_fake_with_requests(fake)
        _check_user_with_requests(passthru)

    @responses.activate
    def body_before_fake() -> None:
        with Fake() as fake:
            _route_responses(responses.mock, fake, passthru)
            _check_fake_with_requests(fake)
            _check_user_with_requests(passthru)

    if order == "fake first":
        with Fake() as fake:
            body_after_fake(fake)
    else:
        body_before_fake()


@pytest.mark.parametrize("order", ORDERS)
def test_responses_context_manager(order: str, passthru: str | None) -> None:
    fake = Fake()
    managers: list[AbstractContextManager[object]] = [fake, responses.RequestsMock()]
    with ExitStack() as stack:
        entered = [
            stack.enter_context(m) for m in (managers if order == ORDERS[0] else managers[::-1])
        ]
        mock = next(m for m in entered if isinstance(m, responses.RequestsMock))
        _route_responses(mock, fake, passthru)
        _check_fake_with_requests(fake)
        _check_user_with_requests(passthru)


@pytest.mark.parametrize("order", ORDERS)
def test_responses_fixture(
    request: pytest.FixtureRequest, order: str, passthru: str | None
) -> None:
    names = ["patgate_fake", "mocked_responses"]
    values = {n: request.getfixturevalue(n) for n in (names if order == ORDERS[0] else names[::-1])}
    fake = values["patgate_fake"]
    _route_responses(values["mocked_responses"], fake, passthru)
    _check_fake_with_requests(fake)
    _check_user_with_requests(passthru)


def test_responses_assert_all_requests_are_fired_still_holds() -> None:
    """The fake's requests do not count as the user's: an unfired route still fails."""
    with Fake() as fake:
        mock = responses.RequestsMock()
        mock.start()
        mock.get(OTHER, body="pong")
        _check_fake_with_requests(fake)
        with pytest.raises(AssertionError, match="Not all requests have been executed"):
            mock.stop(allow_assert=True)
        mock.reset()


# -- respx ------------------------------------------------------------------------------


def _check_user_with_httpx() -> None:
    assert httpx.get(OTHER).text == "pong"

    async def from_async() -> str:
        async with httpx.AsyncClient() as client:
            return (await client.get(OTHER)).text

    assert asyncio.run(from_async()) == "pong"


@pytest.mark.parametrize("order", ORDERS)
def test_respx_mock_fixture(request: pytest.FixtureRequest, order: str) -> None:
    names = ["patgate_fake", "respx_mock"]
    values = {n: request.getfixturevalue(n) for n in (names if order == ORDERS[0] else names[::-1])}
    route = values["respx_mock"].get(OTHER).respond(text="pong")
    _check_fake_with_httpx(values["patgate_fake"])
    _check_user_with_httpx()
    assert route.call_count == 2  # respx saw the user's calls, and only them
    assert len(values["respx_mock"].calls) == 2


@pytest.mark.parametrize("order", ORDERS)
def test_respx_mock_decorator(order: str) -> None:
    @respx.mock
    def body(fake: Fake | None) -> None:
        respx.get(OTHER).respond(text="pong")
        if fake is None:
            with Fake() as started:
                _check_fake_with_httpx(started)
        else:
            _check_fake_with_httpx(fake)
        _check_user_with_httpx()
        assert respx.calls.call_count == 2

    if order == ORDERS[0]:
        with Fake() as fake:
            body(fake)
    else:
        body(None)


@pytest.mark.parametrize("order", ORDERS)
def test_respx_mock_context_manager(order: str) -> None:
    fake = Fake()
    router = respx.mock(assert_all_called=True)
    managers: list[AbstractContextManager[object]] = [fake, router]
    with ExitStack() as stack:
        for manager in managers if order == ORDERS[0] else managers[::-1]:
            stack.enter_context(manager)
        router.get(OTHER).respond(text="pong")
        _check_fake_with_httpx(fake)
        _check_user_with_httpx()
        assert router.calls.call_count == 2


def test_respx_assert_all_mocked_still_refuses_other_urls() -> None:
    with Fake() as fake, respx.mock() as router:
        router.get(OTHER).respond(text="pong")
        _check_fake_with_httpx(fake)
        with pytest.raises(respx.models.AllMockedAssertionError):
            httpx.get("https://unrouted.test/")
        _check_user_with_httpx()


# -- pytest-httpx -----------------------------------------------------------------------


@pytest.mark.parametrize("order", ORDERS)
def test_pytest_httpx_fixture(request: pytest.FixtureRequest, order: str) -> None:
    names = ["patgate_fake", "httpx_mock"]
    values = {n: request.getfixturevalue(n) for n in (names if order == ORDERS[0] else names[::-1])}
    httpx_mock = values["httpx_mock"]
    httpx_mock.add_response(url=OTHER, text="pong", is_reusable=True)
    _check_fake_with_httpx(values["patgate_fake"])
    _check_user_with_httpx()
    assert len(httpx_mock.get_requests()) == 2  # only the user's own


def test_pytest_httpx_still_refuses_unexpected_requests(httpx_mock: HTTPXMock) -> None:
    with Fake() as fake:
        _check_fake_with_httpx(fake)
        with pytest.raises(httpx.TimeoutException, match="No response can be found"):
            httpx.get("https://unrouted.test/")
    # The unexpected request is the only one pytest-httpx saw; forget it so that its own
    # end-of-test check (which would fail the test, as it should) passes here.
    assert [str(r.url) for r in httpx_mock.get_requests()] == ["https://unrouted.test/"]
    httpx_mock.reset()


# -- all of them at once ----------------------------------------------------------------


def test_every_library_at_once(
    respx_mock: respx.MockRouter,
    mocked_responses: responses.RequestsMock,
    patgate_fake: Fake,
    elsewhere: str,
) -> None:
    respx_mock.get(OTHER).respond(text="pong")
    _route_responses(mocked_responses, patgate_fake, elsewhere)
    _check_fake_with_httpx(patgate_fake)
    _check_fake_with_requests(patgate_fake)
    _check_user_with_httpx()
    _check_user_with_requests(elsewhere)


MATRIX: dict[str, Callable[..., None]] = {
    "responses decorator": test_responses_decorator,
    "responses context manager": test_responses_context_manager,
    "responses fixture": test_responses_fixture,
    "respx_mock fixture": test_respx_mock_fixture,
    "respx.mock decorator": test_respx_mock_decorator,
    "respx.mock context manager": test_respx_mock_context_manager,
    "pytest-httpx httpx_mock": test_pytest_httpx_fixture,
}
"""The fixture tutorial's table, one row per entry: each test runs in both orders."""


def test_the_readme_table_lists_every_combination() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs/tutorials/fixture.md").read_text("utf-8")
    table = readme.split("| your mock | fake started first | your mock started first |", 1)[1]
    rows = [line for line in table.split("\n\n", 1)[0].splitlines() if line.startswith("| ")]
    assert len(rows) == len(MATRIX)
    assert all(row.endswith("| yes | yes |") for row in rows)
