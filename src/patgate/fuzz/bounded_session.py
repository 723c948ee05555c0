"""The fuzzer's requests session, reading every answer within the run's size cap.

urllib3 decodes a whole read through every listed content coding before requests sees it,
and requests then holds the whole body: a small ``gzip, gzip`` answer would become
gigabytes. The session's adapter reads the raw bytes instead, through
:func:`patgate.guards.bounded_body.decoded_within` (one coding at most, the cap counted on the
decoded bytes as they come); a refused answer is an :class:`AnswerUnread`, which the fuzzer
records as a failure naming why. Only the codings read here are asked for.
"""

from __future__ import annotations

import io
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter

from patgate.errors import PatgateError
from patgate.guards.bounded_body import (
    STEP,
    BodyRefused,
    accepted_codings,
    announced_within,
    content_codings,
    decoded_within,
)

__all__ = ["AnswerUnread", "bounded_session"]


class AnswerUnread(PatgateError, requests.RequestException):
    """An answer came but was not read: larger than the cap, or compressed in a way that is
    refused (its message says which)."""


def bounded_session(session: requests.Session, cap: int) -> requests.Session:
    """``session`` with each answer over http(s) read within ``cap`` bytes."""
    adapter = _BoundedAdapter(cap)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["Accept-Encoding"] = accepted_codings()
    return session


class _BoundedAdapter(HTTPAdapter):
    def __init__(self, cap: int) -> None:
        super().__init__()
        self._cap = cap

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        """The answer, its body already read and decoded within the cap (requests' documented
        point for an adapter to shape the response)."""
        response = super().build_response(req, resp)
        try:
            announced_within(resp.headers.get("content-length", ""), self._cap)
            codings = content_codings(resp.headers.getlist("content-encoding"))
            body = decoded_within(resp.stream(STEP, decode_content=False), codings, self._cap)
        except BodyRefused as refused:
            resp.close()
            raise AnswerUnread(str(refused), request=req, response=response) from None
        except urllib3.exceptions.HTTPError as error:
            resp.close()
            raise requests.ConnectionError(error, request=req) from None
        resp.release_conn()
        response.raw = _Decoded(resp, body)
        return response


class _Decoded:
    """The urllib3 answer (headers, version, ...) with its body replaced by the decoded one,
    which requests reads as is."""

    def __init__(self, raw: Any, body: bytes) -> None:
        self._raw = raw
        self._body = io.BytesIO(body)

    def stream(self, amt: int | None = STEP, decode_content: bool | None = None) -> Any:
        """The decoded body in pieces of ``amt`` bytes (already decoded: ``decode_content``
        changes nothing)."""
        del decode_content
        while piece := self._body.read(amt or STEP):
            yield piece

    def read(self, amt: int | None = None, *args: Any, **kwargs: Any) -> bytes:
        """Up to ``amt`` bytes of the decoded body (all that is left for ``None``)."""
        del args, kwargs
        return self._body.read(amt)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)
