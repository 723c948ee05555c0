"""What the example clients share: the API's documents, result types, errors and answer reading.

No HTTP library is imported here: ``content_client`` (httpx, sync and async) and
``content_client_requests`` (requests) send the requests and hand the answers to these
functions. Nothing in the example knows about patgate; it is written against the vendor's
documentation, as an application would be.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CREATE_PAT",
    "DEFAULT_AUTH_URL",
    "DEFAULT_BASE_URL",
    "DELETE_PAT",
    "LIST_PATS",
    "REFRESH_MARGIN",
    "AccessRevoked",
    "AuthenticationFailed",
    "ContentApiError",
    "Hub",
    "HubsPage",
    "Pat",
    "PatNotFound",
    "TokenCache",
    "TokenLimitReached",
    "graphql_field",
    "hubs_page",
    "pat_from",
    "token_answer",
]

DEFAULT_AUTH_URL = "https://auth.amplience.net"
DEFAULT_BASE_URL = "https://api.amplience.net"
REFRESH_MARGIN = 30.0
"""Seconds before ``expires_in`` runs out at which a cached token is renewed (as the SDK does)."""

_PAT_FIELDS = "id name token createdDate lastUsedDate"
CREATE_PAT = (
    "mutation CreatePat($input: CreatePersonalAccessTokenInput!) {"
    f" createPersonalAccessToken(input: $input) {{ {_PAT_FIELDS} }} }}"
)
LIST_PATS = f"query ListPats {{ viewer {{ personalAccessTokens {{ {_PAT_FIELDS} }} }} }}"
# The result type of the delete is not published, so it is selected as a bare field.
DELETE_PAT = (
    "mutation DeletePat($input: DeletePersonalAccessTokenInput!) {"
    " deletePersonalAccessToken(input: $input) }"
)


class ContentApiError(Exception):
    """The API refused a request, or answered in a shape this client does not understand."""

    def __init__(self, message: str, *, status: int, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class AuthenticationFailed(ContentApiError):
    """Bad client credentials, or a bearer token that is unknown, expired or deleted."""


class AccessRevoked(ContentApiError):
    """The credential is known but its user may no longer do this (removed, or no permission)."""


class TokenLimitReached(ContentApiError):
    """The user already holds the most personal access tokens allowed (5)."""


class PatNotFound(ContentApiError, LookupError):
    """No personal access token with that id belongs to the caller."""


@dataclass(frozen=True)
class Hub:
    """The fields of a hub this application uses."""

    id: str
    name: str
    label: str
    status: str


@dataclass(frozen=True)
class HubsPage:
    """One page of the hubs listing."""

    hubs: list[Hub]
    number: int
    total_pages: int

    @property
    def is_last(self) -> bool:
        """Whether no page follows this one."""
        return self.number + 1 >= self.total_pages


@dataclass(frozen=True)
class Pat:
    """A personal access token; ``token`` is the full value only right after creation."""

    id: str
    name: str
    token: str
    created_date: str
    last_used_date: str | None


@dataclass
class TokenCache:
    """A client-credential token and the moment (on ``clock``) it must be renewed."""

    clock: Callable[[], float]
    token: str | None = None
    renew_at: float = 0.0

    def current(self) -> str | None:
        """The cached token, or ``None`` when there is none or it is due for renewal."""
        return self.token if self.token is not None and self.clock() < self.renew_at else None

    def store(self, token: str, expires_in: float) -> str:
        """Keep ``token`` until ``REFRESH_MARGIN`` seconds before it expires."""
        self.token = token
        self.renew_at = self.clock() + expires_in - REFRESH_MARGIN
        return token


def _body(status: int, content: bytes) -> dict[str, Any]:
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ContentApiError("Unexpected response format", status=status)
    return body


def _message(body: dict[str, Any], default: str) -> str:
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return str(errors[0].get("message", default))
    return str(body.get("error_description") or body.get("error") or default)


def _refusal(status: int, body: dict[str, Any]) -> ContentApiError:
    message = _message(body, f"HTTP {status}")
    if status == 401:
        return AuthenticationFailed(message, status=status)
    if status == 403:
        return AccessRevoked(message, status=status)
    return ContentApiError(message, status=status)


def token_answer(status: int, content: bytes) -> tuple[str, float]:
    """``(access_token, expires_in)`` from the token endpoint's answer."""
    body = _body(status, content)
    if status == 400:
        raise AuthenticationFailed(_message(body, "invalid client"), status=status)
    if status != 200:
        raise _refusal(status, body)
    token, expires_in = body.get("access_token"), body.get("expires_in")
    if not isinstance(token, str) or not isinstance(expires_in, int):
        raise ContentApiError("Unexpected response format", status=status)
    return token, float(expires_in)


def hubs_page(status: int, content: bytes) -> HubsPage:
    """One page of ``GET /v2/content/hubs`` (HAL: ``_embedded.hubs`` and ``page``)."""
    body = _body(status, content)
    if status != 200:
        raise _refusal(status, body)
    page = body.get("page", {})
    hubs = [
        Hub(item["id"], item["name"], item.get("label", ""), item.get("status", ""))
        for item in body.get("_embedded", {}).get("hubs", [])
    ]
    return HubsPage(hubs, int(page.get("number", 0)), int(page.get("totalPages", 1)))


_ERROR_BY_CODE: dict[str, type[ContentApiError]] = {
    "UNAUTHENTICATED": AuthenticationFailed,
    "FORBIDDEN": AccessRevoked,
    "LIMIT_REACHED": TokenLimitReached,
    "NOT_FOUND": PatNotFound,
}


def graphql_field(status: int, content: bytes, field: str) -> Any:
    """``data[field]`` of a GraphQL answer; its first error raised as this client's exception."""
    body = _body(status, content)
    if status in (401, 403):
        raise _refusal(status, body)
    errors = body.get("errors") or []
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {}
        code = (first.get("extensions") or {}).get("code")
        code = code if isinstance(code, str) else None
        error_class = _ERROR_BY_CODE.get(code or "", ContentApiError)
        raise error_class(str(first.get("message", "GraphQL error")), status=status, code=code)
    if status != 200 or not isinstance(body.get("data"), dict):
        raise ContentApiError("Unexpected response format", status=status)
    return body["data"][field]


def pat_from(item: dict[str, Any]) -> Pat:
    """A :class:`Pat` from a GraphQL ``PersonalAccessToken`` object."""
    return Pat(item["id"], item["name"], item["token"], item["createdDate"], item["lastUsedDate"])
