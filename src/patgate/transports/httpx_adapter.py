"""httpx and the fake: message conversion, interception, a network-free transport.

Interception patches ``httpx.Client._transport_for_url`` (and the async client's): for a URL
an active fake serves, the client gets that fake's :class:`FakeTransport`; for any other URL
it gets its usual transport. That hook is private to httpx and no public one serves:
:mod:`patgate.httpx_private` names it and checks that this httpx has it.

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

from patgate.httpx_private import TRANSPORT_HOOK, hooked_clients
from patgate.transports.routing import ClassPatches, Interception, Route, RoutingTable
from patgate.wire.fault_answers import DroppedConnection
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
        try:
            response = self._handler(to_wire(request))
        except DroppedConnection:
            # What httpx raises when a server closes the connection without answering.
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            ) from None
        if response is None:
            raise httpx.ConnectError(
                f"the patgate fake does not serve {request.url.scheme}://{request.url.netloc.decode()}"
                f"{request.url.path}; it serves:\n{self._urls.describe()}",
                request=request,
            )
        return from_wire(response, request)


_patches = ClassPatches()


def _install() -> None:
    for client in hooked_clients():
        _patches.patch(client, TRANSPORT_HOOK, _routing)


def _guard_network() -> None:
    """Refuse network connections while a strict fake is active. This imports httpcore, which
    httpx itself imports only when a client is made: only strict fakes pay for it."""
    import httpcore

    for pool in (httpcore.ConnectionPool, httpcore.AsyncConnectionPool):
        _patches.patch(pool, "create_connection", _guard)


_table: RoutingTable[FakeTransport] = RoutingTable(_install, _patches.restore_all)


def _routing(original: Any) -> Any:
    def _transport_for_url(client: Any, url: httpx.URL) -> Any:
        transport = _table.find(str(url))
        return transport if transport is not None else original(client, url)

    return _transport_for_url


def _guard(original: Any) -> Any:
    def create_connection(pool: Any, origin: Any) -> Any:
        if _table.strict:
            where = f"{origin.scheme.decode()}://{origin.host.decode()}:{origin.port}"
            raise _table.refuse(f"a connection to {where}")
        return original(pool, origin)

    return create_connection


class HttpxInterception(Interception[FakeTransport]):
    """While started, every httpx client (sync or async) sends the fake's URLs to ``handler``.

    Other URLs go to the client's usual transport (a user's mock, or the network); in
    ``strict`` mode a request that would reach the network raises
    :class:`~patgate.wire.urls.UnmatchedRequest`. Starting a second interception whose URLs
    overlap an active one's raises :class:`~patgate.errors.UsageError`.
    """

    def __init__(self, handler: WireHandler, urls: FakeUrls, *, strict: bool = False) -> None:
        route = Route(urls, FakeTransport(handler, urls), strict)
        super().__init__(_table, route, _guard_network)
