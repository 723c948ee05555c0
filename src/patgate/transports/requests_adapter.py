"""requests and the fake: message conversion and interception through responses.

One registered response object claims every URL the fake serves (every URL at all in strict
mode); other URLs pass through to the network. An exception raised while answering (a bug
in the fake) propagates out of ``session.send`` into the test.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

import requests
from responses import BaseResponse, RequestsMock
from urllib3 import HTTPResponse
from urllib3._collections import HTTPHeaderDict

from patgate.wire.fault_answers import DroppedConnection
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls

__all__ = ["RequestsInterception", "from_wire", "to_wire"]


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


class _FakeRoute(BaseResponse):
    """The one response object responses consults: it answers for the whole fake."""

    def __init__(self, handler: WireHandler, urls: FakeUrls, strict: bool) -> None:
        super().__init__(method="*", url=urls.base_url)
        self._handler = handler
        self._urls = urls
        self._strict = strict

    def matches(self, request: requests.PreparedRequest) -> tuple[bool, str]:
        if self._strict or self._urls.serves(request.url or ""):
            return True, ""
        return False, "not a URL of the patgate fake"

    def get_response(self, request: requests.PreparedRequest) -> HTTPResponse:
        try:
            response = self._handler(to_wire(request))
        except DroppedConnection:
            # What requests raises when a server closes the connection without answering.
            raise requests.exceptions.ConnectionError(
                "Connection aborted: the server closed the connection without a response",
                request=request,
            ) from None
        if response is None:
            raise self._urls.unmatched(request.method or "GET", request.url or "")
        return from_wire(response, request.method)


class RequestsInterception:
    """While started, every requests session sends the fake's URLs to ``handler``.

    Other URLs go to the network, or raise :class:`~patgate.wire.urls.UnmatchedRequest`
    when ``strict``.
    """

    def __init__(self, handler: WireHandler, urls: FakeUrls, *, strict: bool = False) -> None:
        self._handler = handler
        self._urls = urls
        self._strict = strict
        self._mock: RequestsMock | None = None

    def start(self) -> None:
        """Begin intercepting."""
        mock = RequestsMock(
            assert_all_requests_are_fired=False,
            passthru_prefixes=() if self._strict else ("http://", "https://"),
        )
        mock.add(_FakeRoute(self._handler, self._urls, self._strict))
        mock.start()
        self._mock = mock

    def stop(self) -> None:
        """Stop intercepting (safe to call twice)."""
        mock, self._mock = self._mock, None
        if mock is not None:
            mock.stop(allow_assert=False)
            mock.reset()
