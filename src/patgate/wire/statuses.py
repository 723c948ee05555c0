"""The one table from domain errors to wire answers, and the wire layer's own refusals.

Domain errors carry no HTTP: the fake's ``Deployment`` raises ``Forbidden`` and this table
says, with the deployment's profile (``refusals.forbidden``), that is a 403, ``FORBIDDEN``
in a GraphQL error's ``extensions.code`` and ``invalid_request`` in an OAuth error body.
Each endpoint family then shapes the body (OAuth ``{"error": ...}`` for the token
endpoint, ``{"errors": [...]}`` for the content and GraphQL APIs). GraphQL requests that
did not execute get their codes from :data:`FAILURE_CODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from patgate.basics.reasons import Reason
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
from patgate.fake.profile import Profile, default_profile
from patgate.wire.messages import Headers

# Also ANSWER_BY_ERROR and STATUS_BY_ERROR: the default profile's table, read on first use.
__all__ = [
    "ErrorAnswer",
    "HttpRefusal",
    "answer_of",
    "answer_table",
    "status_of",
]


@dataclass(frozen=True)
class ErrorAnswer:
    """How one kind of domain error appears on the wire."""

    status: int
    """The HTTP status of a REST answer (and of a GraphQL request refused before executing)."""
    code: str | None
    """GraphQL's ``extensions.code`` (``None``: no ``extensions``)."""
    oauth: str
    """The OAuth 2.0 ``error`` on the token endpoint (RFC 6749 5.2)."""
    message: str | None = None
    """The profile's message for every refusal of this kind; ``None``: the error's own."""
    kind: str | None = None
    """The profile's refusal kind (``not_found``...): its ``refusal_messages`` and shapes."""


@dataclass(frozen=True)
class _Row:
    kind: str | None
    """The profile's refusal kind that shapes the answer; ``None``: a documented answer."""
    oauth: str
    fixed: ErrorAnswer | None = None


_ROWS: Mapping[type[DomainError], _Row] = MappingProxyType(
    {
        InvalidRequest: _Row("invalid_input", "invalid_request"),
        UnsupportedGrantType: _Row(
            None,
            "unsupported_grant_type",
            ErrorAnswer(400, "BAD_USER_INPUT", "unsupported_grant_type", kind="invalid_input"),
        ),
        # Documented: 400 for bad client credentials (RFC 6749 would say 401 for Basic).
        InvalidClient: _Row(
            None,
            "invalid_client",
            ErrorAnswer(400, "UNAUTHENTICATED", "invalid_client", kind="unauthenticated"),
        ),
        Unauthenticated: _Row("unauthenticated", "invalid_request"),
        Forbidden: _Row("forbidden", "invalid_request"),
        NotFound: _Row("not_found", "invalid_request"),
        TokenLimitReached: _Row("token_limit", "invalid_request"),
    }
)
"""The one table: every domain error class the fake raises, the profile's refusal kind
that gives its status, code and message (``specs/profile.schema.json``, ``refusals``), and
its OAuth ``error``. The token endpoint's documented answers are fixed rows."""

_FALLBACK = ErrorAnswer(400, "BAD_REQUEST", "invalid_request")


_answers: dict[tuple[type[DomainError], Profile], ErrorAnswer] = {}


def _answer(cls: type[DomainError], profile: Profile) -> ErrorAnswer:
    answer = _answers.get((cls, profile))
    if answer is None:
        answer = _answer_of_class(cls, profile)
        if len(_answers) > 1024:  # profiles come and go with fakes; classes are few
            _answers.clear()
        _answers[(cls, profile)] = answer
    return answer


def _answer_of_class(cls: type[DomainError], profile: Profile) -> ErrorAnswer:
    for base in cls.__mro__:
        row = _ROWS.get(base)
        if row is None:
            continue
        if row.fixed is not None:
            return row.fixed
        assert row.kind is not None, "a row without a fixed answer names a kind"
        refusal = profile.refusals[row.kind]
        return ErrorAnswer(refusal.status, refusal.code, row.oauth, refusal.message, row.kind)
    return _FALLBACK


def answer_table(profile: Profile | None = None) -> Mapping[type[DomainError], ErrorAnswer]:
    """Every listed domain error class and its answer under ``profile`` (default: the
    shipped default profile)."""
    chosen = profile if profile is not None else default_profile()
    return MappingProxyType({cls: _answer(cls, chosen) for cls in _ROWS})


def answer_of(error: DomainError, profile: Profile | None = None) -> ErrorAnswer:
    """The answer for ``error`` under ``profile``: its class's row, else its nearest listed
    base, else a 400."""
    return _answer(type(error), profile if profile is not None else default_profile())


def status_of(error: DomainError, profile: Profile | None = None) -> int:
    """The HTTP status for ``error`` (see :func:`answer_of`)."""
    return answer_of(error, profile).status


def __getattr__(name: str) -> Any:
    # The default profile's table, read on first use (the profile is a file).
    if name == "ANSWER_BY_ERROR":
        return answer_table()
    if name == "STATUS_BY_ERROR":
        return MappingProxyType({cls: answer.status for cls, answer in answer_table().items()})
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class HttpRefusal(PatgateError):
    """A request the wire layer refuses before any domain call: bad method, body, headers.

    ``code`` is machine-readable (``invalid_request``, ``METHOD_NOT_ALLOWED``, ...); the
    message names the problem and never echoes what the client sent.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str,
        headers: Headers = (),
        reason: Reason | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers
        self.reason = reason
        """Why, with the facts, when they say more than ``message``."""

    @property
    def message(self) -> str:
        """The text for the error body."""
        return str(self)
