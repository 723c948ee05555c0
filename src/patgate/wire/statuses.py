"""The one table from domain errors to HTTP statuses, and the wire layer's own refusals.

Domain errors carry no HTTP: the fake's ``Deployment`` raises ``Forbidden`` and this table
says that is a 403. Each endpoint family then shapes the body (OAuth ``{"error": ...}`` for
the token endpoint, ``{"errors": [...]}`` for the content and GraphQL APIs).
"""

from __future__ import annotations

from collections.abc import Mapping
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

__all__ = ["STATUS_BY_ERROR", "HttpRefusal", "status_of"]

STATUS_BY_ERROR: Mapping[type[DomainError], int] = MappingProxyType(
    {
        InvalidRequest: 400,
        UnsupportedGrantType: 400,
        # The spec documents 400 for bad client credentials (RFC 6749 would say 401 for Basic).
        InvalidClient: 400,
        Unauthenticated: 401,
        Forbidden: 403,
        NotFound: 404,
        TokenLimitReached: 409,
    }
)
"""Every domain error class the fake raises, and the status its HTTP answer carries."""

_FALLBACK_STATUS = 400


def status_of(error: DomainError) -> int:
    """The status for ``error``: its class's entry, else its nearest listed base, else 400."""
    for cls in type(error).__mro__:
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            return status
    return _FALLBACK_STATUS


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
