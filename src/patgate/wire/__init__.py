"""The fake's HTTP layer: neutral messages, one app, the status table, the request log.

Transports convert library objects to :class:`WireRequest` and from :class:`WireResponse`;
everything about HTTP semantics (routes, parsing, statuses, bodies) lives here, and the
domain (``patgate.fake``) knows nothing of it.

:class:`WireApp` is imported on first use: it pulls in the GraphQL executor, and importing
this package for its messages or URLs must stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.request_log import LoggedRequest, RequestLog
from patgate.wire.statuses import HttpRefusal, status_of
from patgate.wire.urls import FakeUrls, UnmatchedRequest

if TYPE_CHECKING:
    from patgate.wire.app import MAX_BODY_BYTES, WireApp
    from patgate.wire.statuses import ANSWER_BY_ERROR, STATUS_BY_ERROR

__all__ = [
    "ANSWER_BY_ERROR",
    "MAX_BODY_BYTES",
    "STATUS_BY_ERROR",
    "FakeUrls",
    "HttpRefusal",
    "LoggedRequest",
    "RequestLog",
    "UnmatchedRequest",
    "WireApp",
    "WireHandler",
    "WireRequest",
    "WireResponse",
    "status_of",
]

_LAZY = frozenset({"MAX_BODY_BYTES", "WireApp"})


def __getattr__(name: str) -> Any:
    if name in ("ANSWER_BY_ERROR", "STATUS_BY_ERROR"):
        from patgate.wire import statuses

        return getattr(statuses, name)
    if name in _LAZY:
        from patgate.wire import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
