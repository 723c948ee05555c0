"""What the fake was asked, for tests to read: method, URL, headers, body, status, never a
credential.

Every entry is redacted when it is recorded, so printing the log, an entry, or a failing
assertion that shows them cannot leak a token or a secret. Redaction is by value and by
shape: every credential the fake knows (its API clients' secrets and the control token:
:meth:`RequestLog.know`) is replaced wherever it appears (the URL's path and query, any
header, the body), and so is anything shaped like a PAT under the fake's prefix or like a
client token (a JWT). Every matcher is a plain substring search or a single pass over the
text: its cost is linear in the text, whatever the text.

Long fields are cut (:data:`MAX_URL_TEXT`, :data:`MAX_HEADER_TEXT`, :data:`MAX_BODY_BYTES`)
after redaction: a field's start, up to a margin longer than any credential past its limit,
is redacted, then cut, so no piece of a secret survives and a hostile megabyte costs what
the limits cost. The log is a ring buffer bounded twice: by ``capacity`` entries
(``patgate serve --log-size``) and by ``max_bytes`` (``--log-bytes``, default
:data:`DEFAULT_LOG_BYTES`), an upper estimate of the memory the entries hold. The oldest
entry goes first, so memory stays flat however long a fake serves and whatever it is sent.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from patgate.redaction import REDACTED
from patgate.token_grammar import DEFAULT_PAT_PREFIX
from patgate.wire.messages import WireRequest, WireResponse

__all__ = [
    "DEFAULT_LOG_BYTES",
    "DEFAULT_LOG_SIZE",
    "MAX_BODY_BYTES",
    "MAX_HEADER_TEXT",
    "MAX_URL_TEXT",
    "REDACTED",
    "TRUNCATED",
    "LoggedRequest",
    "RequestLog",
    "RequestPage",
]

DEFAULT_LOG_SIZE = 1000
"""Entries a log keeps unless told otherwise."""
DEFAULT_LOG_BYTES = 8 * 1024 * 1024
"""The most memory (an upper estimate, in bytes) a log's entries hold unless told otherwise."""
DROPPED = 0
"""The ``status`` of an entry whose connection a fault rule dropped without an answer."""
MAX_URL_TEXT = 2048
"""Characters of a URL an entry keeps; a longer one is cut and ends with :data:`TRUNCATED`."""
MAX_HEADER_TEXT = 256
"""Characters of a header value an entry keeps."""
MAX_HEADER_NAME = 64
"""Characters of a header name an entry keeps."""
MAX_LOGGED_HEADERS = 100
"""Header fields an entry keeps (the first ones)."""
MAX_BODY_BYTES = 4096
"""Bytes of a request body an entry keeps."""
TRUNCATED = "...[truncated]"
"""The end of a field the log cut."""
_TRUNCATED_BYTES = TRUNCATED.encode("ascii")
_SHORTEST_KNOWN = 8
# A field is read up to its limit plus this margin, redacted, then cut at its limit: every
# credential (known values, PATs, a JWT's signature) is shorter than the margin, so none is
# seen in part, and a hostile megabyte costs no more than a field's limit.
_MARGIN = 4096
# Headers whose whole value is a credential; Authorization keeps its scheme only.
_SECRET_HEADERS = frozenset(
    {"cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token", "x-patgate-control-token"}
)
_AUTHORIZATION = frozenset({"authorization", "proxy-authorization"})
# Names most requests send: nothing to look for in them.
_COMMON_NAMES = frozenset(
    {"host", "accept", "accept-encoding", "accept-language", "connection", "content-length"}
    | {"content-type", "user-agent", "origin", "referer", "cache-control", "pragma"}
)
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
# One character class, no alternation or nesting: matching from a position costs the length
# of the run it consumes, and each run is consumed once.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_.\-]*")
_JWT_START = "eyJ"
# What an entry costs beyond its text: the object, its tuples, ints and string headers
# (measured with tracemalloc, rounded up, with room for what the interpreter's free lists of
# small tuples hold back; tests/wire/test_request_log_redaction.py checks the bound).
_ENTRY_COST = 1000
_FIELD_COST = 120
# A field kept as sent holds its name and value strings and two slots of the entry's
# tuple (see _Unread); rounded up.
_UNREAD_FIELD_COST = 180


_FEW_LITERALS = 12
"""Up to this many values to look for, a substring search each; beyond, one compiled
alternation (see :meth:`RequestLog._suspects`)."""

AnyStr = TypeVar("AnyStr", str, bytes)
_Suspect = Callable[[AnyStr], object]
"""Truthy when a text holds something to redact."""


class _Substrings(Generic[AnyStr]):
    """Whether a text holds any of a few literals: one substring search each, in C."""

    __slots__ = ("_literals",)

    def __init__(self, literals: tuple[AnyStr, ...]) -> None:
        self._literals: tuple[AnyStr, ...] = literals

    def __call__(self, text: AnyStr) -> bool:
        return any(map(text.__contains__, self._literals))


def _auth_scheme(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme = authorization.strip().partition(" ")[0]
    return scheme if scheme.lower() in _KNOWN_SCHEMES else REDACTED


def _is_form(content_type: str | None) -> bool:
    """Whether a request's ``Content-Type`` says its body is a URL-encoded form."""
    return content_type is not None and content_type.lower().startswith(
        "application/x-www-form-urlencoded"
    )


def _cut(text: str, limit: int, *, dropped: bool = False) -> str:
    """``text`` cut at ``limit``, marked when anything was left out (``dropped``: already)."""
    return text if len(text) <= limit and not dropped else text[:limit] + TRUNCATED


@dataclass(frozen=True)
class LoggedRequest:
    """One answered request, already redacted."""

    method: str
    url: str
    """The URL with user info dropped, every credential redacted, cut at
    :data:`MAX_URL_TEXT` characters."""
    status: int
    """The answer's status (:data:`DROPPED`, 0, when a fault rule dropped the connection)."""
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
    """The request's header fields, lower-cased, with credentials redacted (the first
    :data:`MAX_LOGGED_HEADERS`, each value cut at :data:`MAX_HEADER_TEXT` characters)."""
    at: float = 0.0
    """When the request came, in seconds since the epoch (the machine's clock, not the
    fake's)."""
    operation: str | None = None
    """The GraphQL operation name the body named, if any."""
    via: str | None = None
    """``"pat"`` or ``"client"``: what kind of credential :attr:`principal` used."""
    fault: str | None = None
    """The id of the fault rule that answered (``"rate-limit"`` for the rate limit)."""
    body: bytes = b""
    """The request's body as sent, with every credential redacted, cut at
    :data:`MAX_BODY_BYTES` bytes."""

    def to_json(self) -> dict[str, object]:
        """The entry as the control API shows it (the body as UTF-8 text)."""
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
            "body": self.body.decode("utf-8", "replace"),
        }


_new_entry = object.__new__


_Unread = tuple[Any, ...]
"""A request as sent, logged and not yet read (redacted when a reader first asks), as one
flat tuple: what it costs (:attr:`RequestLog.nbytes`), its number, method, URL, body,
status, principal, duration (s), via, fault, when (epoch s), then its header names and
values (name, value, name, ...). Strings and numbers in one plain tuple, on purpose: the
garbage collector stops tracking such a tuple in the first pass that sees it, so unread
entries never reach the older generations. An object per entry, or tuples nested in it,
would be visited by every full collection while the log holds it."""
_UNREAD_HEADERS_AT = 11
"""Where an unread entry's header names and values start."""


def _unread(
    size: int,
    number: int,
    request: WireRequest,
    response: WireResponse | None,
    principal: str | None,
    duration: float,
    via: str | None,
    fault: str | None,
) -> _Unread:
    status = response.status if response is not None else DROPPED
    return (
        size,
        number,
        request.method,
        request.url,
        request.body,
        status,
        principal,
        duration,
        via,
        fault,
        time.time() - duration,
        *itertools.chain.from_iterable(request.headers),
    )


_UNREAD_HEADER_TEXT = MAX_LOGGED_HEADERS * (MAX_HEADER_NAME + MAX_HEADER_TEXT)
"""The most header text (names and values) a request may hold to be kept as sent until
read; a request with more is redacted and cut at once."""


def _unread_size(request: WireRequest) -> int | None:
    """What a request kept as sent costs (:attr:`RequestLog.nbytes`), or ``None`` when a
    field is past the log's limits and the request must be redacted and cut at once."""
    url, body, fields = request.url, request.body, request.headers
    if len(url) > MAX_URL_TEXT or len(body) > MAX_BODY_BYTES or len(fields) > MAX_LOGGED_HEADERS:
        return None
    text = sum(map(len, itertools.chain.from_iterable(fields)))
    if text > _UNREAD_HEADER_TEXT:
        return None
    return _ENTRY_COST + len(url) + len(body) + text + _UNREAD_FIELD_COST * len(fields)


@dataclass(frozen=True)
class RequestPage:
    """One page of the log, newest first, and how many entries matched the filters."""

    entries: tuple[LoggedRequest, ...]
    page: int
    size: int
    total: int


class RequestLog(Sequence[LoggedRequest]):
    """The latest requests one fake answered, oldest first. Safe to share between threads.

    A sequence: ``len(log)``, ``log[0]``, ``log[-1]``, ``log[-3:]`` (a list), iteration.
    """

    def __init__(
        self,
        pat_prefix: str = DEFAULT_PAT_PREFIX,
        capacity: int = DEFAULT_LOG_SIZE,
        *,
        max_bytes: int = DEFAULT_LOG_BYTES,
    ) -> None:
        if capacity < 1:
            raise ValueError("a request log keeps at least 1 entry")
        if max_bytes < 1:
            raise ValueError("a request log's max_bytes must be at least 1")
        self.capacity = capacity
        self.max_bytes = max_bytes
        """The bound on :attr:`nbytes`: the oldest entries go until the log fits."""
        self._entries: deque[tuple[int, LoggedRequest] | _Unread] = deque()
        """Each entry, after what it costs: ``(size, entry)`` once read, an :data:`_Unread`
        before; the newest :attr:`_unread` are still as sent."""
        self._unread = 0
        self._bytes = 0
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._prefix = pat_prefix
        # Replaced whole under the lock, read without it: a request thread iterates a
        # snapshot while another thread adds a client.
        self._known: tuple[str, ...] = ()
        self._known_bytes: tuple[bytes, ...] = ()
        # Whether a known value holds a line break: header fields are then searched one by one.
        self._breaks_joins = False
        # The test for anything to redact, made for one tuple of known values: remade when
        # first needed after a change, so adding many clients costs one build, not one per
        # client.
        self._searches: tuple[tuple[str, ...], _Suspect[str], _Suspect[bytes]] | None = None

    # -- what the log redacts --------------------------------------------------------------

    def know(self, *values: str | None) -> None:
        """Redact each of ``values`` (a credential the fake handed out) wherever it appears.

        Values shorter than 8 characters are ignored: they would hide ordinary text.
        """
        new = [v for v in values if v and len(v) >= _SHORTEST_KNOWN]
        with self._lock:
            known = tuple(dict.fromkeys((*self._known, *new)))
            self._known_bytes = tuple(v.encode("utf-8", "surrogatepass") for v in known)
            self._breaks_joins = any("\n" in value for value in known)
            self._known = known

    def _suspects_now(self) -> tuple[_Suspect[str], _Suspect[bytes]]:
        searches = self._searches
        known = self._known
        if searches is None or searches[0] is not known:
            searches = (known, *self._suspects(known))
            self._searches = searches  # one assignment: readers see the old or the new
        return searches[1], searches[2]

    def _suspects(self, known: tuple[str, ...]) -> tuple[_Suspect[str], _Suspect[bytes]]:
        # Whether a text holds anything to redact: the common answer is no. A fake's own
        # few values (its client secret, control token and page key) are looked for one
        # substring search each, which costs what one regular-expression search costs and
        # nothing to build (compiling one takes longer than a test's request); many known
        # values (many clients) are looked for in one pass of a compiled alternation.
        # Literals only, no quantifier: linear in the text either way.
        literals = (*known, self._prefix, _JWT_START)
        data = tuple(literal.encode("utf-8", "surrogatepass") for literal in literals)
        if len(literals) <= _FEW_LITERALS:
            return _Substrings(literals), _Substrings(data)
        return (
            re.compile("|".join(re.escape(literal) for literal in literals)).search,
            re.compile(b"|".join(re.escape(literal) for literal in data)).search,
        )

    def redact_text(self, text: str) -> str:
        """``text`` with every known credential, PAT and client token replaced."""
        if not self._suspects_now()[0](text):
            return text
        for value in self._known:
            if value in text:
                text = text.replace(value, REDACTED)
        if self._prefix in text:
            text = _redact_runs(text, self._prefix)  # a PAT, or a piece of one
        if _JWT_START in text:
            # A compact JWT: header, payload and signature, joined by two dots.
            text = _redact_runs(text, _JWT_START, min_dots=2)
        return text

    def redact_body(self, body: bytes) -> bytes:
        """The body as sent, with every known credential, PAT and client token replaced."""
        if not self._suspects_now()[1](body):
            return body
        for value in self._known_bytes:
            if value in body:
                body = body.replace(value, REDACTED.encode("ascii"))
        prefix = self._prefix.encode("ascii", "replace")
        if prefix in body or _JWT_START.encode("ascii") in body:
            # latin-1 maps each byte to one character and back: other bytes stay as sent.
            body = self.redact_text(body.decode("latin-1")).encode("latin-1")
        return body

    # -- recording -------------------------------------------------------------------------

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
        """Add a redacted entry for an answered request (``response=None``: dropped), and
        return it.

        ``duration`` is in seconds; ``via`` and ``fault`` as :class:`LoggedRequest` says.
        """
        with self._lock:
            return self._keep_redacted(
                _unread(0, 0, request, response, principal, duration, via, fault)
            )

    def append(
        self,
        request: WireRequest,
        response: WireResponse | None,
        *,
        principal: str | None = None,
        duration: float = 0.0,
        via: str | None = None,
        fault: str | None = None,
    ) -> None:
        """What :meth:`record` does, with the redaction left until the entry is first read.

        A fake logs every request and most logs are never read, or only in part: an
        ordinary request is kept as sent, in a slot nothing outside this log can reach,
        and redacted (with every value known by then) when any reader first asks for it.
        A request with a field past the log's limits is redacted and cut at once, so the
        log never holds more of it than the limits keep.
        """
        size = _unread_size(request)
        with self._lock:
            if size is None:
                self._keep_redacted(
                    _unread(0, 0, request, response, principal, duration, via, fault)
                )
            else:
                number = next(self._numbers)
                self._keep(
                    _unread(size, number, request, response, principal, duration, via, fault)
                )
                self._unread += 1

    def _keep_redacted(self, unread: _Unread) -> LoggedRequest:
        """Under the lock: redact ``unread`` now, after every entry still unread (so the
        unread ones stay the newest), and keep it."""
        self._read_all()
        entry, size = self._redacted(unread)
        self._keep((size, entry))
        return entry

    def _keep(self, item: tuple[int, LoggedRequest] | _Unread) -> None:
        """Append under the lock, then let the oldest entries go until the log fits."""
        self._entries.append(item)
        self._bytes += item[0]
        self._fit()

    def _fit(self) -> None:
        while len(self._entries) > self.capacity or (
            self._bytes > self.max_bytes and len(self._entries) > 1
        ):
            gone = self._entries.popleft()
            self._bytes -= gone[0]
            if len(gone) > 2:
                self._unread -= 1

    def _read_all(self) -> None:
        """Redact every entry still as sent, under the lock. They are the newest ones (an
        entry redacted at once first redacts those before it), so only they are visited."""
        count = self._unread
        if not count:
            return
        waiting = [self._entries.pop() for _ in range(count)]
        waiting.reverse()
        self._unread = 0
        done = 0
        try:
            for unread in waiting:
                # The newest `count` entries are the unread ones. No assert: a failing one
                # would show the entry, secrets and all, in pytest's message.
                if len(unread) <= 2:
                    raise RuntimeError("request log: a read entry stood among the unread ones")
                entry, size = self._redacted(unread)
                self._entries.append((size, entry))
                self._bytes += size - unread[0]
                done += 1
        except BaseException:
            # A bug in redaction reaches the reader, as a bug while answering reaches the
            # test; the entries not yet redacted stay, unread and still the newest, so
            # nothing is lost and a later read tries them again.
            self._entries.extend(waiting[done:])
            self._unread = len(waiting) - done
            raise
        self._fit()

    def _redacted(self, unread: _Unread) -> tuple[LoggedRequest, int]:
        """The entry for one request, every credential redacted and every field cut, and
        what it costs (:attr:`nbytes`)."""
        _, number, method, raw_url, whole, status, principal, duration, via, fault, at = unread[
            :_UNREAD_HEADERS_AT
        ]
        flat = unread[_UNREAD_HEADERS_AT:]
        fields = tuple(zip(flat[::2], flat[1::2], strict=True))
        request = WireRequest(method, raw_url, fields, whole)
        suspect, suspect_bytes = self._suspects_now()
        operation = _operation_name(whole) if whole else None
        if operation is not None and suspect(operation):
            operation = REDACTED  # a credential sent as the operation's name
        if (
            len(raw_url) <= MAX_URL_TEXT
            and "?" not in raw_url
            and "@" not in raw_url
            and "#" not in raw_url
            and not suspect(raw_url)
        ):
            url = raw_url  # the common case: what redact_url and _cut leave as it is
        else:
            url = _cut(
                self.redact_url(raw_url[: MAX_URL_TEXT + _MARGIN]),
                MAX_URL_TEXT,
                dropped=len(raw_url) > MAX_URL_TEXT + _MARGIN,
            )
        logged: list[tuple[str, str]] = []
        size = _ENTRY_COST + len(url)
        fields = request.headers[:MAX_LOGGED_HEADERS]
        scheme: str | None = None
        content_type: str | None = None
        authorized = typed = False
        if self._clean(fields, suspect):
            for name, value in fields:
                # Nothing to look for in any name or value: only a credential's header,
                # or a field too long to keep whole, is redacted or cut.
                if name in _AUTHORIZATION:
                    found = _auth_scheme(value)
                    if not authorized and name == "authorization":
                        scheme, authorized = found, True
                    value = REDACTED if found in (None, REDACTED) else f"{found} {REDACTED}"
                elif name in _SECRET_HEADERS:
                    value = REDACTED
                else:
                    if not typed and name == "content-type":
                        content_type, typed = value, True
                    if len(name) > MAX_HEADER_NAME or len(value) > MAX_HEADER_TEXT:
                        name, value = self._redact_header(name, value)
                logged.append((name, value))
                size += len(name) + len(value) + _FIELD_COST
            fields = ()
        for name, value in fields:
            if name == "authorization" and not authorized:
                scheme, authorized = _auth_scheme(value), True
            elif name == "content-type" and not typed:
                content_type, typed = value, True
            if name == "authorization" and not suspect(name):
                # On every authenticated request: its scheme stays, nothing else (as
                # _redact_header would log it, without searching the value it drops).
                found = _auth_scheme(value)
                value = REDACTED if found in (None, REDACTED) else f"{found} {REDACTED}"
            elif (
                name in _AUTHORIZATION
                or name in _SECRET_HEADERS
                or len(name) > MAX_HEADER_NAME
                or len(value) > MAX_HEADER_TEXT
                or (name not in _COMMON_NAMES and suspect(name))
                or suspect(value)
            ):
                name, value = self._redact_header(name, value)
            logged.append((name, value))  # the common case: short, and nothing to redact
            size += len(name) + len(value) + _FIELD_COST
        headers = tuple(logged)
        if len(request.headers) > MAX_LOGGED_HEADERS:  # a field past those kept
            if not authorized:
                scheme = _auth_scheme(request.header("authorization"))
            if not typed:
                content_type = request.header("content-type")
        if not whole:
            body = b""
        elif (
            len(whole) <= MAX_BODY_BYTES and not suspect_bytes(whole) and not _is_form(content_type)
        ):
            body = whole  # the common case: what _logged_body leaves as it is
        else:
            body = self._logged_body(whole, content_type)
        size += len(body)
        # What LoggedRequest(...) makes, without the frozen dataclass's one
        # object.__setattr__ per field; every field is set (tests/wire/test_request_log.py
        # holds this list to the dataclass's).
        entry = _new_entry(LoggedRequest)
        vars(entry).update(
            method=method if len(method) <= 32 else _cut(method, 32),
            url=url,
            status=status,
            auth_scheme=scheme,
            number=number or next(self._numbers),
            principal=principal,
            duration_ms=duration * 1000.0,
            headers=headers,
            at=at,
            operation=operation,
            via=via,
            fault=fault,
            body=body,
        )
        return entry, size

    def _clean(self, fields: tuple[tuple[str, str], ...], suspect: _Suspect[str]) -> bool:
        """Whether no name and no value of ``fields`` holds anything to redact (the values
        of credentials' headers aside: they are dropped whole, unread), in one search.

        The fields are joined by a line break, which no value to look for holds (else the
        answer is ``False``): a match in the joined text is a match in one field.
        """
        if self._breaks_joins:
            return False
        return not suspect(
            "\n".join(
                [
                    f"{name}\n{value}"
                    if name not in _AUTHORIZATION and name not in _SECRET_HEADERS
                    else name
                    for name, value in fields
                ]
            )
        )

    def _logged_body(self, whole: bytes, content_type: str | None) -> bytes:
        body = self.redact_body(whole[: MAX_BODY_BYTES + _MARGIN])
        if _is_form(content_type):
            text = body.decode("latin-1")
            body = "&".join(self._redact_field(field) for field in text.split("&")).encode(
                "latin-1"
            )
        if len(body) > MAX_BODY_BYTES or len(whole) > MAX_BODY_BYTES + _MARGIN:
            body = body[:MAX_BODY_BYTES] + _TRUNCATED_BYTES
        return body

    def _redact_header(self, name: str, value: str) -> tuple[str, str]:
        name = _cut(
            self.redact_text(name[: MAX_HEADER_NAME + _MARGIN]),
            MAX_HEADER_NAME,
            dropped=len(name) > MAX_HEADER_NAME + _MARGIN,
        )
        if name in _AUTHORIZATION:
            scheme = _auth_scheme(value)
            return name, REDACTED if scheme in (None, REDACTED) else f"{scheme} {REDACTED}"
        if name in _SECRET_HEADERS:
            return name, REDACTED
        return name, _cut(
            self.redact_text(value[: MAX_HEADER_TEXT + _MARGIN]),
            MAX_HEADER_TEXT,
            dropped=len(value) > MAX_HEADER_TEXT + _MARGIN,
        )

    @property
    def nbytes(self) -> int:
        """The memory the entries hold, as the log estimates it (never above
        :attr:`max_bytes`, unless one entry alone is larger)."""
        with self._lock:
            return self._bytes

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
        newest_first = self.entries()[::-1]
        matching = [
            e
            for e in newest_first
            if wanted(e.status) and (not path or path in urlsplit(e.url).path)
        ]
        start = page * size
        return RequestPage(tuple(matching[start : start + size]), page, size, len(matching))

    def redact_url(self, url: str) -> str:
        """``url`` without user info or fragment, with secret query values and every
        credential in its path or query redacted."""
        plain = "?" not in url and "@" not in url and "#" not in url
        if plain:
            return self.redact_text(url)  # the common case
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = "&".join(self._redact_field(field) for field in parts.query.split("&") if field)
        path = self.redact_text(parts.path)
        return urlunsplit((parts.scheme, netloc, path, query, ""))

    def _redact_field(self, field: str) -> str:
        name, equals, value = field.partition("=")
        if unquote_plus(name).lower() in _SENSITIVE_NAMES:
            return f"{name}{equals}{REDACTED}"
        return f"{self.redact_text(name)}{equals}{self.redact_text(value)}"

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._unread = 0

    def entries(self) -> list[LoggedRequest]:
        """A snapshot of the entries."""
        with self._lock:
            self._read_all()
            return [entry for _size, entry in self._entries]

    def __iter__(self) -> Iterator[LoggedRequest]:
        """The entries, oldest first."""
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> LoggedRequest: ...

    @overload
    def __getitem__(self, index: slice) -> list[LoggedRequest]: ...

    def __getitem__(self, index: int | slice) -> LoggedRequest | list[LoggedRequest]:
        if isinstance(index, slice):
            return self.entries()[index]
        with self._lock:
            self._read_all()
            entry: LoggedRequest = self._entries[index][1]
            return entry

    def __repr__(self) -> str:
        lines = [f"  {e.method} {e.url} -> {e.status}" for e in self.entries()]
        return "RequestLog([\n" + "\n".join(lines) + "\n])" if lines else "RequestLog([])"


_OPERATION_NAME = re.compile(rb'"operationName"\s*:\s*"([_A-Za-z][_0-9A-Za-z]{0,99})"')
# A name followed by what may follow it in GraphQL (or a JSON string's escape or end), so the
# start of a longer word (a secret holding a "-") is never taken for a name.
_OPERATION = re.compile(
    rb'\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]{0,99})(?=[\s,({@\\"]|$)'
)
_OPERATION_SCAN = 4096
"""Bytes of a body searched for an operation name: a look, not a parse."""


def _operation_name(body: bytes) -> str | None:
    head = body[:_OPERATION_SCAN]
    named = _OPERATION_NAME.search(head) or _OPERATION.search(head)
    return named.group(1).decode("ascii") if named else None


def _redact_runs(text: str, marker: str, *, min_dots: int = 0) -> str:
    """``text`` with each run of token characters that starts at ``marker`` (and holds at
    least ``min_dots`` dots) replaced; linear: each character is looked at a bounded number
    of times, whatever the text."""
    pieces: list[str] = []
    done = 0
    found = text.find(marker)
    while found != -1:
        match = _TOKEN_RUN.match(text, found)
        end = match.end() if match is not None else found + len(marker)
        end = max(end, found + len(marker))
        if min_dots == 0 or text.count(".", found, end) >= min_dots:
            pieces.append(text[done:found])
            pieces.append(REDACTED)
            done = end
        found = text.find(marker, end)
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


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
