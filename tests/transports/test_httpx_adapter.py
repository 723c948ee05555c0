from __future__ import annotations

import asyncio

import httpx
import pytest

from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.model import HubPage, Principal
from patgate.harness import Fake
from patgate.wire import UnmatchedRequest


class BrokenHubs(Deployment):
    """A deployment with a bug: the hubs listing crashes."""

    def list_hubs(self, principal: Principal, *, page: int = 0, size: int = 20) -> HubPage:
        raise RuntimeError("bug in list_hubs")


def _hubs(fake: Fake) -> str:
    return fake.world["base_url"] + "/v2/content/hubs"


def _auth(fake: Fake) -> dict[str, str]:
    return {"Authorization": f"Bearer {fake.world['admin_token']}"}


def test_an_async_client_is_intercepted() -> None:
    async def main(fake: Fake) -> int:
        async with httpx.AsyncClient() as client:
            response = await client.get(_hubs(fake), headers=_auth(fake))
            return response.status_code

    with Fake() as fake:
        assert asyncio.run(main(fake)) == 200


def test_other_hosts_reach_the_network_and_stopping_ends_interception(elsewhere: str) -> None:
    with Fake(urls={"base_url": elsewhere + "/api"}) as fake, httpx.Client() as client:
        assert client.get(elsewhere + "/other").text == "elsewhere"
        assert client.get(_hubs(fake), headers=_auth(fake)).status_code == 200
    with httpx.Client() as client:
        assert client.get(_hubs(fake)).text == "elsewhere"


def test_strict_mode_refuses_other_hosts_and_lists_what_it_serves(elsewhere: str) -> None:
    with (
        Fake(strict=True),
        httpx.Client() as client,
        pytest.raises(UnmatchedRequest, match="the fake serves") as raised,
    ):
        client.get(elsewhere + "/other?access_token=hidden")
    assert "POST https://auth.amplience.net/oauth/token" in str(raised.value)
    assert "hidden" not in str(raised.value)


def test_a_bug_in_the_fake_reaches_the_test_sync_and_async() -> None:
    async def main(fake: Fake) -> None:
        async with httpx.AsyncClient() as client:
            await client.get(_hubs(fake), headers=_auth(fake))

    with Fake(deployment=BrokenHubs()) as fake:
        with httpx.Client() as client, pytest.raises(RuntimeError, match="bug in list_hubs"):
            client.get(_hubs(fake), headers=_auth(fake))
        with pytest.raises(RuntimeError, match="bug in list_hubs"):
            asyncio.run(main(fake))


def test_the_transport_answers_without_starting_the_fake() -> None:
    fake = Fake()
    assert not fake.active
    with httpx.Client(transport=fake.httpx_transport()) as client:
        assert client.get(_hubs(fake), headers=_auth(fake)).status_code == 200
        with pytest.raises(httpx.ConnectError, match="does not serve") as raised:
            client.get("https://example.com/x")
        assert "GET https://api.amplience.net/v2/content/hubs" in str(raised.value)
    broken = Fake(deployment=BrokenHubs())
    with (
        httpx.Client(transport=broken.httpx_transport()) as client,
        pytest.raises(RuntimeError, match="bug"),
    ):
        client.get(_hubs(broken), headers=_auth(broken))


def test_the_transport_serves_async_clients() -> None:
    fake = Fake()
    transport = fake.httpx_transport()
    assert isinstance(transport, httpx.AsyncBaseTransport)

    async def main() -> int:
        async with httpx.AsyncClient(transport=transport) as client:
            return (await client.get(_hubs(fake), headers=_auth(fake))).status_code

    assert asyncio.run(main()) == 200


def test_repeated_headers_reach_the_fake() -> None:
    with Fake() as fake, httpx.Client() as client:
        headers = [("Authorization", "Bearer a"), ("Authorization", "Bearer b")]
        assert client.get(_hubs(fake), headers=headers).status_code == 400


def test_an_httpx_without_the_hook_gets_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx's private hook is checked before anything is patched: a release that drops it
    gets a message naming the hook and the httpx range patgate supports, and nothing is left
    half patched."""
    own = httpx.Client.__dict__["_transport_for_url"]
    monkeypatch.delattr(httpx.AsyncClient, "_transport_for_url")
    with pytest.raises(UsageError, match=r"AsyncClient\._transport_for_url.*httpx>=0\.27,<1"):
        Fake().start()
    assert httpx.Client.__dict__["_transport_for_url"] is own
    monkeypatch.undo()
    with Fake() as fake:
        assert httpx.get(_hubs(fake), headers=_auth(fake)).status_code == 200


@pytest.mark.parametrize(
    "value", ["plain ascii", "caf\u00e9".encode(), "caf\u00e9".encode("latin-1")]
)
def test_header_fields_reach_the_fake_as_httpx_reads_them(value: str | bytes) -> None:
    from patgate.transports.httpx_adapter import to_wire

    request = httpx.Request("GET", "https://api.test/x", headers={"X-Mixed-Case": value})
    sent = to_wire(request)
    assert sent.headers == tuple(request.headers.multi_items())
    assert sent.header("x-mixed-case") == request.headers["x-mixed-case"]
