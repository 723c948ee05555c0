"""httpx and the fake: message conversion, interception, a network-free transport.

Interception patches ``httpx.Client._transport_for_url`` (and the async client's): for a URL
an active fake serves, the client gets that fake's :class:`FakeTransport`; for any other URL
it gets its usual transport. That hook is private to httpx and no public one serves:
:mod:`patgate.guards.httpx_private` names it and checks that this httpx has it.

Users' own mocks patch the transports themselves (respx's default mocker patches httpcore's
connection pool, pytest-httpx ``HTTPTransport``), so they never see the fake's requests and
the fake never sees theirs, in whatever order they start. Nothing is recorded per call. An
exception raised while answering (a bug in the fake) propagates into the test.

In strict mode, opening a network connection (httpcore's ``create_connection``) raises
:class:`~patgate.wire.urls.UnmatchedRequest`: a request no fake and no user's mock answered.
"""

from __future__ import annotations

from typing import Any

import httpx

from patgate.guards.httpx_private import TRANSPORT_HOOK, hooked_clients
from patgate.transports.routing import Interception, InterceptionCore, answer
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls

__all__ = ["FakeTransport", "HttpxInterception", "from_wire", "to_wire"]


def to_wire(request: httpx.Request) -> WireRequest:
    """The wire form of a request whose body has been read."""
    try:
        # What multi_items() gives when every field is ASCII (names are lower-cased by
        # WireRequest), without httpx working out the fields' encoding first.
        fields = tuple(
            [(name.decode("ascii"), value.decode("ascii")) for name, value in request.headers.raw]
        )
    except UnicodeDecodeError:
        fields = tuple(request.headers.multi_items())
    return WireRequest(request.method, str(request.url), fields, request.content)


def from_wire(response: WireResponse, request: httpx.Request) -> httpx.Response:
    """An ``httpx.Response`` bound to ``request``."""
    return httpx.Response(
        response.status, headers=response.headers, content=response.body, request=request
    )


class FakeTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport that answers from the fake without any network or patching.

    A URL the fake does not serve raises ``httpx.ConnectError``, as a host with nothing
    listening would.
    """

    def __init__(self, handler: WireHandler, urls: FakeUrls) -> None:
        self._handler = handler
        self._urls = urls

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Answer a sync client's request."""
        request.read()
        return self._respond(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer an async client's request."""
        await request.aread()
        return self._respond(request)

    def _respond(self, request: httpx.Request) -> httpx.Response:
        response = answer(
            self._handler,
            to_wire(request),
            # What httpx raises when a server closes the connection without answering.
            dropped=lambda: httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            ),
            unserved=lambda: httpx.ConnectError(
                f"the patgate fake does not serve {request.url.scheme}://"
                f"{request.url.netloc.decode()}{request.url.path}; it serves:\n"
                f"{self._urls.describe()}",
                request=request,
            ),
        )
        return from_wire(response, request)


def _guarded() -> list[tuple[type, str]]:
    # Imports httpcore, which httpx itself imports only when a client is made: only strict
    # fakes pay for it.
    import httpcore

    return [
        (pool, "create_connection")
        for pool in (httpcore.ConnectionPool, httpcore.AsyncConnectionPool)
    ]


def _where(origin: Any) -> str:
    return f"a connection to {origin.scheme.decode()}://{origin.host.decode()}:{origin.port}"


_core: InterceptionCore[FakeTransport] = InterceptionCore(
    lambda: [(client, TRANSPORT_HOOK) for client in hooked_clients()],
    _guarded,
    _where,
    FakeTransport,
)


class HttpxInterception(Interception[FakeTransport]):
    """While started, every httpx client (sync or async) sends the fake's URLs to ``handler``
    (see :class:`~patgate.transports.routing.Interception`)."""

    core = _core
