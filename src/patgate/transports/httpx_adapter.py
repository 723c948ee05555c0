"""httpx and the fake: message conversion, interception through respx, a network-free transport.

Interception uses respx's ``httpx`` mocker (it patches the client's choice of transport)
with a single catch-all route: the fake decides which URLs are its own, so adding
hosts costs nothing per request. The route answers in ``resolve`` rather than through a
``side_effect``, because respx inspects a side effect's signature on every call (about 10 %
of a hubs request). An exception raised while answering (a bug in the fake) propagates
through respx unchanged, into the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from patgate.wire.fault_answers import DroppedConnection
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls

__all__ = ["FakeTransport", "HttpxInterception", "from_wire", "to_wire"]


def to_wire(request: httpx.Request) -> WireRequest:
    """The wire form of a request whose body has been read."""
    return WireRequest(
        request.method, str(request.url), tuple(request.headers.multi_items()), request.content
    )


def from_wire(response: WireResponse, request: httpx.Request) -> httpx.Response:
    """An ``httpx.Response`` bound to ``request`` (bound, so respx need not clone it)."""
    return httpx.Response(
        response.status, headers=list(response.headers), content=response.body, request=request
    )


_Answer = Callable[[httpx.Request], "httpx.Response | httpx.Request"]


def _handle(handler: WireHandler, request: httpx.Request) -> WireResponse | None:
    try:
        return handler(to_wire(request))
    except DroppedConnection:
        # What httpx raises when a server closes the connection without answering.
        raise httpx.RemoteProtocolError(
            "Server disconnected without sending a response.", request=request
        ) from None


def _catch_all_route(answer: _Answer) -> Any:
    """A respx route matching every request and answering with ``answer``.

    ``answer`` returns the request itself to pass it through to the network (respx's own
    convention for side effects).
    """
    import respx

    class CatchAllRoute(respx.Route):
        def resolve(self, request: httpx.Request, **kwargs: Any) -> Any:
            return answer(request)

    return CatchAllRoute()


class HttpxInterception:
    """While started, every httpx client (sync or async) sends the fake's URLs to ``handler``.

    Other URLs go to the network, or raise :class:`~patgate.wire.urls.UnmatchedRequest`
    when ``strict``.
    """

    def __init__(self, handler: WireHandler, urls: FakeUrls, *, strict: bool = False) -> None:
        self._handler = handler
        self._urls = urls
        self._strict = strict
        self._router: Any = None

    def start(self) -> None:
        """Begin intercepting."""
        import respx

        router = respx.MockRouter(assert_all_called=False, assert_all_mocked=False, using="httpx")
        router.add(_catch_all_route(self._answer))
        router.start()
        self._router = router

    def stop(self) -> None:
        """Stop intercepting (safe to call twice)."""
        router, self._router = self._router, None
        if router is not None:
            router.stop(quiet=True)

    def _answer(self, request: httpx.Request) -> httpx.Response | httpx.Request:
        response = _handle(self._handler, request)
        if response is None:
            if self._strict:
                raise self._urls.unmatched(request.method, str(request.url))
            return request  # respx's signal to pass the request through to the network
        return from_wire(response, request)


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
        response = _handle(self._handler, request)
        if response is None:
            raise httpx.ConnectError(
                f"the patgate fake does not serve {request.url.scheme}://{request.url.netloc.decode()}"
                f"{request.url.path}; it serves:\n{self._urls.describe()}",
                request=request,
            )
        return from_wire(response, request)
