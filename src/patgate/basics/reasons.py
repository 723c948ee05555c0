"""Why the fake refused a request: a stable code and one sentence naming the facts it saw.

The HTTP answer keeps the deployment's wording (the profile's); the reason is for the test
author and shows in the request log, the control API's request log, the inspector page,
``patgate serve``'s log (and, with ``serve --explain``, an answer header) and pytest's
report of a failed test. A reason names ids, names, dates and counts, never a secret or a
token's value.

:data:`REASON_CODES` is the one table of codes, each with what it means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

__all__ = ["REASON_CODES", "Reason", "clock_time"]

REASON_CODES: Mapping[str, str] = MappingProxyType(
    {
        # The token endpoint.
        "token-request-not-form": "a token request whose body is not form-encoded",
        "credentials-in-url": "client credentials sent in the URL's query",
        "credentials-twice": "client credentials sent both as HTTP Basic and in the form",
        "form-malformed": "a token request's form with a repeated or unreadable field",
        "grant-type-missing": "a token request without grant_type",
        "grant-type-unsupported": "a grant_type other than client_credentials",
        "client-unknown": "a client id no API client of the fake has",
        "client-secret-mismatch": "the client secret does not match the client id's",
        # Bearer tokens.
        "bearer-missing": "no bearer token: no Authorization header",
        "bearer-scheme": "an Authorization header whose scheme is not Bearer",
        "bearer-not-issued": "a bearer token this fake never issued",
        "client-token-expired": "a client-credential token past its expiry",
        "client-token-not-yet-valid": "a client-credential token before its nbf",
        "pat-revoked": "a PAT that was deleted",
        "pat-secret-mismatch": "a PAT whose id this fake issued but whose secret differs",
        "pat-pending": "a PAT still waiting for an admin's approval",
        "owner-removed": "the token's user is no longer a member of its organization",
        "no-content-permission": "the user has no permission to read content",
        # Rules of the PAT operations.
        "not-admin": "creating a PAT needs organization admin permission",
        "client-credential-creation": "the profile refuses a PAT created with a client token",
        "foreign-organization": "the organization named is not the caller's",
        "token-cap": "the user already holds the most PATs allowed",
        "name-invalid": "a PAT name that breaks the documented limits",
        "token-not-found": "no such PAT among the caller's own",
        "request-not-found": "no such pending token request",
        "argument-invalid": "an argument outside what the API takes",
        # Routing and the content API.
        "no-route": "no route of the service answers this path",
        "method-not-allowed": "the path exists, not for this method",
        "not-found": "no such record visible to the caller",
        # The fake's own faults and limits.
        "fault": "a fault rule the test added answered instead of the service",
        "rate-limited": "the GraphQL rate limit, switched on by the test, was reached",
        "request-invalid": "a request the service cannot read (body, header, document)",
        "refused": "a documented rule refused the request (no more facts were kept)",
    }
)
"""Every reason code -> what it means."""


@dataclass(frozen=True, slots=True)
class Reason:
    """Why one request was refused: ``code`` (one of :data:`REASON_CODES`) and ``text``, a
    sentence naming the facts (ids, names, dates and counts; never a secret)."""

    code: str
    text: str

    def __post_init__(self) -> None:
        if self.code not in REASON_CODES:
            raise ValueError(f"unknown reason code {self.code!r}")

    def __str__(self) -> str:
        return f"{self.code}: {self.text}"


def clock_time(moment: datetime) -> str:
    """A moment of the fake's clock as a reason shows it (``2026-11-28 10:05:12``)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S")
