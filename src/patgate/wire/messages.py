"""The neutral HTTP messages every transport converts to and from.

No library types appear here: a transport turns an ``httpx.Request``, a
``requests.PreparedRequest`` or a socket's bytes into a :class:`WireRequest`, hands it to a
:data:`WireHandler` and turns the :class:`WireResponse` back into its own kind.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from patgate.basics.reasons import Reason

__all__ = ["Headers", "WireHandler", "WireRequest", "WireResponse", "json_response"]

Headers = tuple[tuple[str, str], ...]
"""Header fields in order, repeats kept (two ``Authorization`` lines stay two)."""


def _lower_names(headers: Iterable[tuple[str, str]]) -> Headers:
    return tuple([(name.lower(), value) for name, value in headers])


@dataclass(frozen=True)
class WireRequest:
    """One HTTP request. Header names are lower-cased on construction."""

    method: str
    url: str
    headers: Headers = ()
    body: bytes = b""

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", self.method.upper())
        object.__setattr__(self, "headers", _lower_names(self.headers))

    def header_values(self, name: str) -> list[str]:
        """Every value of the header ``name`` (case-insensitive), in order."""
        wanted = name.lower()
        return [value for key, value in self.headers if key == wanted]

    def header(self, name: str) -> str | None:
        """The first value of the header ``name``, or ``None``."""
        wanted = name.lower()
        for key, value in self.headers:
            if key == wanted:
                return value
        return None

    def __repr__(self) -> str:
        # Header values and the body may hold secrets; a repr never shows them.
        return f"WireRequest({self.method} {self.url}, {len(self.body)} bytes)"


@dataclass(frozen=True)
class WireResponse:
    """One HTTP response: a status, header fields in order, and the body bytes.

    ``headers`` may also be given as a mapping (``{"Retry-After": "5"}``), as a ``wrap_app``
    written by hand often does; it is stored as pairs.
    """

    status: int
    headers: Headers = field(default=())
    body: bytes = b""
    reason: Reason | None = field(default=None, compare=False, repr=False)
    """Why the fake refused, for the test author (never sent, unless ``serve --explain``)."""

    def __post_init__(self) -> None:
        headers = self.headers
        if type(headers) is not tuple and isinstance(headers, Mapping):
            object.__setattr__(self, "headers", tuple(headers.items()))

    def header(self, name: str) -> str | None:
        """The first value of the header ``name`` (case-insensitive), or ``None``."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None

    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"WireResponse({self.status}, {len(self.body)} bytes)"


WireHandler = Callable[[WireRequest], "WireResponse | None"]
"""Answers a request, or returns ``None`` when the URL is not one the fake serves."""


# The fallback encoder, shared: json.dumps with separators builds a new one per call.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))


def encode_json(body: object) -> bytes:
    """``body`` as compact UTF-8 JSON.

    orjson encodes a hubs page in ~1 us where the standard library takes ~20 us, the largest
    single cost of a fake response. It refuses what JSON cannot carry as such (a lone
    surrogate echoed from a request, say); the standard library escapes those instead.
    """
    orjson = _orjson()
    try:
        encoded: bytes = orjson.dumps(body)
        return encoded
    except orjson.JSONEncodeError:
        return _COMPACT_JSON.encode(body).encode("utf-8")


@functools.cache
def _orjson() -> Any:
    import orjson  # on first use: a module that only builds messages does not load it

    return orjson


def json_response(
    status: int,
    body: object,
    headers: Iterable[tuple[str, str]] = (),
    content_type: str = "application/json",
) -> WireResponse:
    """A response whose body is ``body`` encoded as compact JSON."""
    encoded = encode_json(body)
    return WireResponse(status, (("Content-Type", content_type), *headers), encoded)
