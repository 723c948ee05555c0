"""What the fake was asked, for tests to read: method, URL, status, never a credential.

Every entry is redacted when it is recorded, so printing the log, an entry, or a failing
assertion that shows them cannot leak a token or a secret.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from patgate.redaction import REDACTED
from patgate.token_grammar import DEFAULT_PAT_PREFIX, JWT_SHAPE, pat_start
from patgate.wire.messages import WireRequest, WireResponse

__all__ = ["REDACTED", "LoggedRequest", "RequestLog"]

_SENSITIVE_NAMES = frozenset(
    {"access_token", "client_secret", "token", "secret", "password", "refresh_token"}
    | {"id_token", "code", "api_key", "apikey", "key"}
)
# The schemes of the IANA registry, and "Token". A first word outside it is logged as
# REDACTED: "Authorization: <secret>" without a scheme would otherwise log the secret's start.
_KNOWN_SCHEMES = frozenset(
    {"basic", "bearer", "concealed", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate"}
    | {"ntlm", "oauth", "privatetoken", "scram-sha-1", "scram-sha-256", "token", "vapid"}
)


def _auth_scheme(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme = authorization.strip().partition(" ")[0]
    return scheme if scheme.lower() in _KNOWN_SCHEMES else REDACTED


@dataclass(frozen=True)
class LoggedRequest:
    """One answered request, already redacted."""

    method: str
    url: str
    """The URL with user info dropped and secret-looking query values redacted."""
    status: int
    auth_scheme: str | None
    """``"Bearer"``, ``"Basic"``, another registered scheme (as sent, case kept), ``None``
    without (or with an empty) ``Authorization`` header, or :data:`REDACTED` for anything
    else: never the credential."""


class RequestLog:
    """The requests one fake answered, oldest first. Safe to share between threads."""

    def __init__(self, pat_prefix: str = DEFAULT_PAT_PREFIX) -> None:
        self._entries: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._secret_shape = re.compile(f"{JWT_SHAPE.pattern}|{pat_start(pat_prefix).pattern}")

    def record(self, request: WireRequest, response: WireResponse) -> LoggedRequest:
        """Append a redacted entry for an answered request."""
        scheme = _auth_scheme(request.header("authorization"))
        entry = LoggedRequest(request.method, self.redact_url(request.url), response.status, scheme)
        with self._lock:
            self._entries.append(entry)
        return entry

    def redact_url(self, url: str) -> str:
        """``url`` without user info, fragment, secret query values or token-shaped text."""
        plain = "?" not in url and "@" not in url and "#" not in url
        if plain and not self._secret_shape.search(url):
            return url  # the common case, and a third of the log's cost per request
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = "&".join(self._redact_field(field) for field in parts.query.split("&") if field)
        path = self._secret_shape.sub(REDACTED, parts.path)
        return urlunsplit((parts.scheme, netloc, path, query, ""))

    def _redact_field(self, field: str) -> str:
        name, equals, value = field.partition("=")
        if unquote_plus(name).lower() in _SENSITIVE_NAMES or self._secret_shape.search(value):
            return f"{name}{equals}{REDACTED}"
        return field

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def entries(self) -> list[LoggedRequest]:
        """A snapshot of the entries."""
        with self._lock:
            return list(self._entries)

    def __iter__(self) -> Iterator[LoggedRequest]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> LoggedRequest:
        with self._lock:
            return self._entries[index]

    def __repr__(self) -> str:
        lines = [f"  {e.method} {e.url} -> {e.status}" for e in self.entries()]
        return "RequestLog([\n" + "\n".join(lines) + "\n])" if lines else "RequestLog([])"
