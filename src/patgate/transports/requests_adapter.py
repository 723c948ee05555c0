"""requests and the fake: message conversion and interception.

Interception patches ``requests.Session.get_adapter``: for a URL an active fake serves, the
session gets that fake's adapter, whose ``send`` answers from the fake; for any other URL it
gets its usual adapter. ``responses`` patches ``HTTPAdapter.send``, which the fake's adapter
overrides, so a user's ``responses`` mock (with or without ``add_passthru``) never sees the
fake's requests and the fake never sees its, in whatever order they start. Nothing is
recorded per call. An exception raised while answering (a bug in the fake) propagates out of
``session.send`` into the test.

In strict mode, opening a connection (``HTTPAdapter.get_connection_with_tls_context``) raises
:class:`~patgate.wire.urls.UnmatchedRequest`: a request no fake and no user's mock answered.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3 import HTTPResponse
from urllib3._collections import HTTPHeaderDict

from patgate.transports.routing import Interception, InterceptionCore, answer
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls, canonical_url

__all__ = ["FakeAdapter", "RequestsInterception", "from_wire", "to_wire"]


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def _body_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if hasattr(body, "read"):
        return _body_bytes(body.read())
    if isinstance(body, Iterable):  # a generator of chunks: requests streams these
        return b"".join(_body_bytes(chunk) for chunk in body)
    raise TypeError(f"cannot read a request body of type {type(body).__name__}")


def to_wire(request: requests.PreparedRequest) -> WireRequest:
    """The wire form of a prepared request."""
    headers = tuple((_text(name), _text(value)) for name, value in request.headers.items())
    return WireRequest(
        request.method or "GET", request.url or "", headers, _body_bytes(request.body)
    )


def from_wire(response: WireResponse, method: str | None) -> HTTPResponse:
    """The urllib3 response requests' adapter builds a ``requests.Response`` from."""
    headers = HTTPHeaderDict()
    for name, value in response.headers:
        headers.add(name, value)
    if not (method == "HEAD" and "Content-Length" in headers):
        # A HEAD answer keeps the length its GET body has (RFC 9110 8.6).
        headers["Content-Length"] = str(len(response.body))
    try:
        reason = HTTPStatus(response.status).phrase
    except ValueError:
        reason = ""
    return HTTPResponse(
        body=io.BytesIO(response.body),
        headers=headers,
        status=response.status,
        reason=reason,
        preload_content=False,
        decode_content=False,
        request_method=method,
    )


class FakeAdapter(HTTPAdapter):
    """A transport adapter that answers from the fake (no network, no pool is ever used)."""

    def __init__(self, handler: WireHandler, urls: FakeUrls) -> None:
        super().__init__()
        self._handler = handler
        self._urls = urls

    def send(
        self, request: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Answer ``request`` from the fake."""
        response = answer(
            self._handler,
            to_wire(request),
            # What requests raises when a server closes the connection without answering.
            dropped=lambda: requests.exceptions.ConnectionError(
                "Connection aborted: the server closed the connection without a response",
                request=request,
            ),
            unserved=lambda: self._urls.unmatched(request.method or "GET", request.url or ""),
        )
        return self.build_response(request, from_wire(response, request.method))


def _connection_methods() -> tuple[str, ...]:
    # requests 2.32.2 renamed the method send calls; older releases call get_connection.
    if "get_connection_with_tls_context" in HTTPAdapter.__dict__:
        return ("get_connection_with_tls_context",)
    return ("get_connection",)


def _where(request: Any) -> str:
    url = request.url if hasattr(request, "url") else str(request)
    return f"{getattr(request, 'method', 'GET')} {canonical_url(url)}"


_core: InterceptionCore[FakeAdapter] = InterceptionCore(
    lambda: [(requests.Session, "get_adapter")],
    lambda: [(HTTPAdapter, name) for name in _connection_methods()],
    _where,
    FakeAdapter,
)


class RequestsInterception(Interception[FakeAdapter]):
    """While started, every requests session sends the fake's URLs to ``handler`` (see
    :class:`~patgate.transports.routing.Interception`)."""

    core = _core
