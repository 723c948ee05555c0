"""What the fake was asked, for tests to read: method, URL, status, never a credential.

Every entry is redacted when it is recorded, so printing the log, an entry, or a failing
assertion that shows them cannot leak a token or a secret. The log is a ring buffer of
``capacity`` entries (``patgate serve --log-size``): the oldest entry goes when a new one
comes, so memory stays flat however long a fake serves.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from patgate.redaction import REDACTED
from patgate.token_grammar import DEFAULT_PAT_PREFIX, JWT_SHAPE, pat_start
from patgate.wire.messages import WireRequest, WireResponse

__all__ = ["DEFAULT_LOG_SIZE", "REDACTED", "LoggedRequest", "RequestLog", "RequestPage"]

DEFAULT_LOG_SIZE = 1000
"""Entries a log keeps unless told otherwise: about 1 MB at most."""
DROPPED = 0
"""The ``status`` of an entry whose connection a fault rule dropped without an answer."""
_MAX_HEADER_TEXT = 256
# Headers whose whole value is a credential; Authorization keeps its scheme only.
_SECRET_HEADERS = frozenset(
    {"cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token", "x-patgate-control-token"}
)
_AUTHORIZATION = frozenset({"authorization", "proxy-authorization"})
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
    number: int = 0
    """1 for the first request the fake answered, and so on (gaps: entries dropped)."""
    principal: str | None = None
    """The user id the bearer spoke for, when it was valid."""
    duration_ms: float = 0.0
    """How long the fake took to answer, in milliseconds."""
    headers: tuple[tuple[str, str], ...] = ()
    """The request's header fields, lower-cased, with credentials redacted."""
    at: float = 0.0
    """When the request came, in seconds since the epoch (the machine's clock, not the
    fake's)."""
    operation: str | None = None
    """The GraphQL operation name the body named, if any."""
    via: str | None = None
    """``"pat"`` or ``"client"``: what kind of credential :attr:`principal` used."""
    fault: str | None = None
    """The id of the fault rule that answered (``"rate-limit"`` for the rate limit)."""

    def to_json(self) -> dict[str, object]:
        """The entry as the control API shows it."""
        return {
            "number": self.number,
            "method": self.method,
            "url": self.url,
            "status": self.status,
            "principal": self.principal,
            "duration_ms": round(self.duration_ms, 3),
            "auth_scheme": self.auth_scheme,
            "headers": [list(pair) for pair in self.headers],
            "at": round(self.at, 3),
            "operation": self.operation,
            "via": self.via,
            "fault": self.fault,
        }


@dataclass(frozen=True)
class RequestPage:
    """One page of the log, newest first, and how many entries matched the filters."""

    entries: tuple[LoggedRequest, ...]
    page: int
    size: int
    total: int


class RequestLog:
    """The latest requests one fake answered, oldest first. Safe to share between threads."""

    def __init__(
        self, pat_prefix: str = DEFAULT_PAT_PREFIX, capacity: int = DEFAULT_LOG_SIZE
    ) -> None:
        if capacity < 1:
            raise ValueError("a request log keeps at least 1 entry")
        self.capacity = capacity
        self._entries: deque[LoggedRequest] = deque(maxlen=capacity)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._secret_shape = re.compile(f"{JWT_SHAPE.pattern}|{pat_start(pat_prefix).pattern}")

    def record(
        self,
        request: WireRequest,
        response: WireResponse | None,
        *,
        principal: str | None = None,
        duration: float = 0.0,
        via: str | None = None,
        fault: str | None = None,
    ) -> LoggedRequest:
        """Add a redacted entry for an answered request (``response=None``: dropped).

        ``duration`` is in seconds; ``via`` and ``fault`` as :class:`LoggedRequest` says.
        """
        operation = _operation_name(request.body) if request.body else None
        scheme = _auth_scheme(request.header("authorization"))
        url = self.redact_url(request.url)
        headers = tuple(self._redact_header(name, value) for name, value in request.headers)
        status = response.status if response is not None else DROPPED
        with self._lock:
            entry = LoggedRequest(
                request.method,
                url,
                status,
                scheme,
                next(self._numbers),
                principal,
                duration * 1000.0,
                headers,
                time.time() - duration,
                operation,
                via,
                fault,
            )
            self._entries.append(entry)
        return entry

    def _redact_header(self, name: str, value: str) -> tuple[str, str]:
        if name in _AUTHORIZATION:
            scheme = _auth_scheme(value)
            return name, REDACTED if scheme in (None, REDACTED) else f"{scheme} {REDACTED}"
        if name in _SECRET_HEADERS:
            return name, REDACTED
        return name, self._secret_shape.sub(REDACTED, value[:_MAX_HEADER_TEXT])

    def page(
        self,
        page: int = 0,
        size: int = 50,
        *,
        status: int | str | None = None,
        path: str | None = None,
    ) -> RequestPage:
        """Entries newest first, ``size`` per page, filtered by status and path.

        ``status`` is a code (``429``) or a class (``"4xx"``); ``path`` keeps the entries
        whose URL path contains it.
        """
        wanted = _status_filter(status)
        with self._lock:
            newest_first = list(reversed(self._entries))
        matching = [
            e
            for e in newest_first
            if wanted(e.status) and (not path or path in urlsplit(e.url).path)
        ]
        start = page * size
        return RequestPage(tuple(matching[start : start + size]), page, size, len(matching))

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
        """The entries, oldest first."""
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> LoggedRequest:
        with self._lock:
            return self._entries[index]

    def __repr__(self) -> str:
        lines = [f"  {e.method} {e.url} -> {e.status}" for e in self.entries()]
        return "RequestLog([\n" + "\n".join(lines) + "\n])" if lines else "RequestLog([])"


_OPERATION_NAME = re.compile(rb'"operationName"\s*:\s*"([_A-Za-z][_0-9A-Za-z]{0,99})"')
_OPERATION = re.compile(rb"\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]{0,99})")
_OPERATION_SCAN = 4096
"""Bytes of a body searched for an operation name: a look, not a parse."""


def _operation_name(body: bytes) -> str | None:
    head = body[:_OPERATION_SCAN]
    named = _OPERATION_NAME.search(head) or _OPERATION.search(head)
    return named.group(1).decode("ascii") if named else None


def _status_filter(status: int | str | None) -> Callable[[int], bool]:
    if status is None or status == "":
        return lambda _status: True
    text = str(status).lower()
    if re.fullmatch(r"[1-5]xx", text):
        first = int(text[0])
        return lambda code: code // 100 == first
    if re.fullmatch(r"\d{1,3}", text):
        code = int(text)
        return lambda actual: actual == code
    raise ValueError(f"status must be a code such as 429 or a class such as 4xx, not {status!r}")
