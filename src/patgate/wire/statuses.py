"""The one table from domain errors to wire answers, and the wire layer's own refusals.

Domain errors carry no HTTP: the fake's ``Deployment`` raises ``Forbidden`` and this table
says that is a 403, ``FORBIDDEN`` in a GraphQL error's ``extensions.code`` and
``invalid_request`` in an OAuth error body. Each endpoint family then shapes the body (OAuth
``{"error": ...}`` for the token endpoint, ``{"errors": [...]}`` for the content and GraphQL
APIs). GraphQL requests that did not execute get their codes from :data:`FAILURE_CODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from patgate.errors import (
    DomainError,
    Forbidden,
    InvalidClient,
    InvalidRequest,
    NotFound,
    PatgateError,
    TokenLimitReached,
    Unauthenticated,
    UnsupportedGrantType,
)
from patgate.wire.messages import Headers

__all__ = [
    "ANSWER_BY_ERROR",
    "STATUS_BY_ERROR",
    "ErrorAnswer",
    "HttpRefusal",
    "answer_of",
    "status_of",
]


@dataclass(frozen=True)
class ErrorAnswer:
    """How one kind of domain error appears on the wire."""

    status: int
    """The HTTP status of a REST answer (and of a GraphQL request refused before executing)."""
    code: str
    """The machine-readable code: GraphQL's ``extensions.code``, the content API's code."""
    oauth: str
    """The OAuth 2.0 ``error`` on the token endpoint (RFC 6749 5.2)."""


ANSWER_BY_ERROR: Mapping[type[DomainError], ErrorAnswer] = MappingProxyType(
    {
        InvalidRequest: ErrorAnswer(400, "BAD_USER_INPUT", "invalid_request"),
        UnsupportedGrantType: ErrorAnswer(400, "BAD_USER_INPUT", "unsupported_grant_type"),
        # The spec documents 400 for bad client credentials (RFC 6749 would say 401 for Basic).
        InvalidClient: ErrorAnswer(400, "UNAUTHENTICATED", "invalid_client"),
        Unauthenticated: ErrorAnswer(401, "UNAUTHENTICATED", "invalid_request"),
        Forbidden: ErrorAnswer(403, "FORBIDDEN", "invalid_request"),
        NotFound: ErrorAnswer(404, "NOT_FOUND", "invalid_request"),
        TokenLimitReached: ErrorAnswer(409, "LIMIT_REACHED", "invalid_request"),
    }
)
"""Every domain error class the fake raises, and how its answer looks on the wire."""

STATUS_BY_ERROR: Mapping[type[DomainError], int] = MappingProxyType(
    {error: answer.status for error, answer in ANSWER_BY_ERROR.items()}
)
"""The status column of :data:`ANSWER_BY_ERROR`."""

_FALLBACK = ErrorAnswer(400, "BAD_REQUEST", "invalid_request")


def answer_of(error: DomainError) -> ErrorAnswer:
    """The answer for ``error``: its class's row, else its nearest listed base, else a 400."""
    for cls in type(error).__mro__:
        answer = ANSWER_BY_ERROR.get(cls)
        if answer is not None:
            return answer
    return _FALLBACK


def status_of(error: DomainError) -> int:
    """The HTTP status for ``error`` (see :func:`answer_of`)."""
    return answer_of(error).status


class HttpRefusal(PatgateError):
    """A request the wire layer refuses before any domain call: bad method, body, headers.

    ``code`` is machine-readable (``invalid_request``, ``METHOD_NOT_ALLOWED``, ...); the
    message names the problem and never echoes what the client sent.
    """

    def __init__(self, status: int, message: str, *, code: str, headers: Headers = ()) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers

    @property
    def message(self) -> str:
        """The text for the error body."""
        return str(self)
