"""One entry of the request log: a request as sent (:class:`SentRequest`), and the same
request as every reader sees it (:class:`LoggedRequest`), every credential redacted by the
one redaction engine (:class:`patgate.guards.redaction.Redactor`) and every field cut.

What this module adds to the engine is what a request's structure says: a credential's
header (``Authorization``, ``X-Forwarded-Authorization``, ``Cookie``...) keeps its scheme at
most, the URL loses its user info and fragment, a form's secret fields are redacted by name,
and long fields are cut after redaction. A field's start, up to a margin longer than any
credential past its limit, is redacted, then cut, so no piece of a secret survives and a
hostile megabyte costs what the limits cost.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from patgate.guards.redaction import REDACTED, Redactor
from patgate.wire.messages import WireRequest, WireResponse

__all__ = [
    "DROPPED",
    "MAX_BODY_BYTES",
    "MAX_HEADER_TEXT",
    "MAX_URL_TEXT",
    "TRUNCATED",
    "LoggedRequest",
    "SentRequest",
    "redacted_entry",
]

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
MAX_METHOD = 32
"""Characters of a method an entry keeps."""
TRUNCATED = "...[truncated]"
"""The end of a field the log cut."""
_TRUNCATED_BYTES = TRUNCATED.encode("ascii")
# A field is read up to its limit plus this margin, redacted, then cut at its limit: every
# credential (known values, PATs, a JWT's signature) is shorter than the margin, so none is
# seen in part, and a hostile megabyte costs no more than a field's limit.
_MARGIN = 4096
# Headers whose whole value is a credential.
_SECRET_HEADERS = frozenset(
    {"cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token", "x-patgate-control-token"}
)
# Headers named *authorization (Authorization, Proxy-, X-Forwarded-...) keep their scheme only.
_AUTHORIZATION_SUFFIX = "authorization"
# The names of credentials' headers most requests send: nothing to redact in the name.
_CREDENTIAL_NAMES = _SECRET_HEADERS | {"authorization", "proxy-authorization"}
# The schemes of the IANA registry, and "Token". A first word outside it is logged as
# REDACTED: "Authorization: <secret>" without a scheme would otherwise log the secret's start.
_KNOWN_SCHEMES = frozenset(
    {"basic", "bearer", "concealed", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate"}
    | {"ntlm", "oauth", "privatetoken", "scram-sha-1", "scram-sha-256", "token", "vapid"}
)
# What an entry costs beyond its text: the object, its tuples, ints and string headers
# (measured with tracemalloc, rounded up, with room for what the interpreter's free lists of
# small tuples hold back; tests/wire/test_request_log_redaction.py checks the bound).
_ENTRY_COST = 1000
_FIELD_COST = 120
# A field kept as sent holds its name and value strings and two slots of the packed tuple
# (see SentRequest.packed); rounded up.
_UNREAD_FIELD_COST = 180
_UNREAD_HEADER_TEXT = MAX_LOGGED_HEADERS * (MAX_HEADER_NAME + MAX_HEADER_TEXT)
"""The most header text (names and values) a request may hold to be kept as sent until
read; a request with more is redacted and cut at once."""


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
    reason_code: str | None = None
    """Why the fake refused, as a stable code (:data:`patgate.basics.reasons.REASON_CODES`);
    ``None`` for a request it did not refuse."""
    reason: str | None = None
    """Why the fake refused, in one sentence naming the facts it looked at (ids, names,
    dates, counts; never a secret)."""
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
            "reason_code": self.reason_code,
            "reason": self.reason,
            "body": self.body.decode("utf-8", "replace"),
        }


PackedRequest = tuple[object, ...]
"""A :class:`SentRequest` laid flat (:meth:`SentRequest.packed`): what the log holds until
an entry is first read."""


class SentRequest(NamedTuple):
    """A request as sent, logged and not yet read (redacted when a reader first asks).

    The log holds it packed (:meth:`packed`): its fields, then its header names and values
    laid end to end, in one plain tuple of strings and numbers. On purpose: the garbage
    collector stops tracking such a tuple in the first collection that sees it (it never
    does for an object, or for a named tuple, which is a tuple's subclass), so a full log
    adds nothing to any collection (docs/performance.md, "The PAT cycle").
    """

    number: int
    """Its number, or 0 to be numbered when redacted (:meth:`RequestLog.record`)."""
    method: str
    url: str
    body: bytes
    status: int
    principal: str | None
    duration: float
    """Seconds."""
    via: str | None
    fault: str | None
    reason_code: str | None
    reason: str | None
    at: float
    """Seconds since the epoch."""
    headers: tuple[tuple[str, str], ...]

    @classmethod
    def of(
        cls,
        request: WireRequest,
        response: WireResponse | None,
        *,
        number: int = 0,
        principal: str | None = None,
        duration: float = 0.0,
        via: str | None = None,
        fault: str | None = None,
    ) -> SentRequest:
        """The record of ``request`` answered by ``response`` (``None``: dropped)."""
        packed = cls.pack(
            request, response, number=number, principal=principal, duration=duration,
            via=via, fault=fault,
        )  # fmt: skip
        return cls.unpacked(packed)

    @staticmethod
    def pack(
        request: WireRequest,
        response: WireResponse | None,
        *,
        number: int = 0,
        principal: str | None = None,
        duration: float = 0.0,
        via: str | None = None,
        fault: str | None = None,
    ) -> PackedRequest:
        """The record of ``request`` answered by ``response`` (``None``: dropped), packed
        (see the class): the fields in their order, then the header names and values.

        Built at once, without the record itself: a fake packs every request it answers
        (``tests/wire/test_request_log_unread.py`` holds the order to the fields').
        """
        status = response.status if response is not None else DROPPED
        why = response.reason if response is not None else None
        at = time.time() - duration
        return (
            number, request.method, request.url, request.body, status, principal, duration,
            via, fault, why.code if why else None, why.text if why else None, at,
            *itertools.chain.from_iterable(request.headers),
        )  # fmt: skip

    def packed(self) -> PackedRequest:
        """This record as one flat tuple of strings and numbers (see the class)."""
        return (*self[:_HEADERS_AT], *itertools.chain.from_iterable(self.headers))

    @classmethod
    def unpacked(cls, packed: PackedRequest) -> SentRequest:
        """The record :meth:`packed` laid flat."""
        flat = packed[_HEADERS_AT:]
        headers = tuple(zip(flat[::2], flat[1::2], strict=True))
        return cls._make((*packed[:_HEADERS_AT], headers))


_HEADERS_AT = len(SentRequest._fields) - 1
"""Where a packed record's header names and values start: after every other field
(``headers`` is the last)."""


def unread_size(request: WireRequest, response: WireResponse | None = None) -> int | None:
    """What a request kept as sent costs (:attr:`RequestLog.nbytes`), or ``None`` when a
    field is past the log's limits and the request must be redacted and cut at once."""
    url, body, fields = request.url, request.body, request.headers
    why = response.reason if response is not None else None
    reason = len(why.code) + len(why.text) if why is not None else 0
    if len(url) > MAX_URL_TEXT or len(body) > MAX_BODY_BYTES or len(fields) > MAX_LOGGED_HEADERS:
        return None
    text = sum(map(len, itertools.chain.from_iterable(fields)))
    if text > _UNREAD_HEADER_TEXT:
        return None
    return _ENTRY_COST + len(url) + len(body) + text + reason + _UNREAD_FIELD_COST * len(fields)


def redacted_entry(sent: SentRequest, redactor: Redactor) -> tuple[LoggedRequest, int]:
    """The entry every reader sees for ``sent``, every credential redacted through
    ``redactor`` and every field cut, and what it costs (:attr:`RequestLog.nbytes`)."""
    first = dict(reversed(sent.headers))  # each name's first value, in one pass
    scheme = _auth_scheme(first.get("authorization"))
    content_type = first.get("content-type")
    url = _logged_url(sent.url, redactor)
    headers = _logged_headers(sent.headers[:MAX_LOGGED_HEADERS], redactor)
    body = _logged_body(sent.body, content_type, redactor)
    operation = _operation_name(sent.body) if sent.body else None
    if operation is not None and redactor.redact(operation) != operation:
        operation = REDACTED  # a credential sent as the operation's name
    entry = LoggedRequest(
        method=_cut(sent.method, MAX_METHOD),
        url=url,
        status=sent.status,
        auth_scheme=scheme,
        number=sent.number,
        principal=sent.principal,
        duration_ms=sent.duration * 1000.0,
        headers=headers,
        at=sent.at,
        operation=operation,
        via=sent.via,
        fault=sent.fault,
        reason_code=sent.reason_code,
        reason=_cut(redactor.redact(sent.reason), MAX_URL_TEXT) if sent.reason else None,
        body=body,
    )
    text = sum(map(len, itertools.chain.from_iterable(headers)))
    text += len(entry.reason or "") + len(entry.reason_code or "")
    return entry, _ENTRY_COST + len(url) + len(body) + text + _FIELD_COST * len(headers)


def _auth_scheme(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme = authorization.strip().partition(" ")[0]
    return scheme if scheme.lower() in _KNOWN_SCHEMES else REDACTED


def _cut(text: str, limit: int, *, dropped: bool = False) -> str:
    """``text`` cut at ``limit``, marked when anything was left out (``dropped``: already)."""
    return text if len(text) <= limit and not dropped else text[:limit] + TRUNCATED


def _redacted_cut(text: str, limit: int, redact: Callable[[str], str]) -> str:
    """``text`` read up to ``limit`` and the margin, redacted by ``redact``, then cut."""
    return _cut(redact(text[: limit + _MARGIN]), limit, dropped=len(text) > limit + _MARGIN)


def _logged_url(url: str, redactor: Redactor) -> str:
    return _redacted_cut(url, MAX_URL_TEXT, redactor.redact_url)


def _logged_headers(
    fields: tuple[tuple[str, str], ...], redactor: Redactor
) -> tuple[tuple[str, str], ...]:
    """``fields`` as logged: a credential's header keeps its scheme at most, every other
    name and value redacted and cut.

    The common case costs one redaction: the fields whose value is kept are joined by line
    breaks, and when the engine finds nothing in the whole, it finds nothing in any part (a
    match in a part is a match in the whole), so only the long ones are cut.
    """
    whole = [
        len(name) <= MAX_HEADER_NAME
        and len(value) <= MAX_HEADER_TEXT
        and name not in _SECRET_HEADERS
        and not name.endswith(_AUTHORIZATION_SUFFIX)
        for name, value in fields
    ]  # each field short and no credential's header: kept as sent when nothing is found
    joined = "\n".join(
        [f"{name}\n{value}" for (name, value), kept in zip(fields, whole, strict=True) if kept]
    )
    if redactor.redact(joined) == joined:
        if all(whole):
            return fields
        return tuple(
            [
                field if kept else _logged_header(*field, redactor)
                for field, kept in zip(fields, whole, strict=True)
            ]
        )
    return tuple([_logged_header(name, value, redactor) for name, value in fields])


def _logged_header(name: str, value: str, redactor: Redactor) -> tuple[str, str]:
    """One field as logged, redacted and cut."""
    if name not in _CREDENTIAL_NAMES:
        name = _redacted_cut(name, MAX_HEADER_NAME, redactor.redact)
    if name.endswith(_AUTHORIZATION_SUFFIX):
        scheme = _auth_scheme(value)
        return name, REDACTED if scheme in (None, REDACTED) else f"{scheme} {REDACTED}"
    if name in _SECRET_HEADERS:
        return name, REDACTED
    return name, _redacted_cut(value, MAX_HEADER_TEXT, redactor.redact)


def _logged_body(whole: bytes, content_type: str | None, redactor: Redactor) -> bytes:
    if not whole:
        return b""
    head = whole[: MAX_BODY_BYTES + _MARGIN]
    if _is_form(content_type):
        text = head.decode("utf-8", "surrogateescape")
        body = redactor.redact_form(redactor.redact(text)).encode("utf-8", "surrogateescape")
    else:
        body = redactor.redact_bytes(head)
    if len(body) > MAX_BODY_BYTES or len(whole) > MAX_BODY_BYTES + _MARGIN:
        body = body[:MAX_BODY_BYTES] + _TRUNCATED_BYTES
    return body


def _is_form(content_type: str | None) -> bool:
    """Whether a request's ``Content-Type`` says its body is a URL-encoded form."""
    return content_type is not None and content_type.lower().startswith(
        "application/x-www-form-urlencoded"
    )


_OPERATION_NAME = re.compile(rb'"operationName"\s*:\s*"([_A-Za-z][_0-9A-Za-z]{0,99})"')
# A name followed by what may follow it in GraphQL (or a JSON string's escape or end), so the
# start of a longer word (a secret holding a "-") is never taken for a name.
_OPERATION = re.compile(
    rb'\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]{0,99})(?=[\s,({@\\"]|$)'
)
_OPERATION_SCAN = 4096
"""Bytes of a body searched for an operation name: a look, not a parse."""


def _operation_name(body: bytes) -> str | None:
    """The operation's name, or for an anonymous document its root fields
    (``createPersonalAccessToken``), as the log shows it."""
    head = body[:_OPERATION_SCAN]
    named = _OPERATION_NAME.search(head) or _OPERATION.search(head)
    if named:
        return named.group(1).decode("ascii")
    return _root_fields(head)


_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]{0,99}")


def _root_fields(head: bytes) -> str | None:
    """The root fields of the first operation of a JSON body's ``query`` (aliases read as
    the field they name): a plain walk over braces, parentheses and strings, no parse."""
    import json

    try:
        query = json.loads(head).get("query")
    except (ValueError, AttributeError):
        return None
    if not isinstance(query, str):
        return None
    fields: list[str] = []
    depth = parens = 0
    position, end = 0, min(len(query), _OPERATION_SCAN)
    while position < end and len(fields) < 5:
        char = query[position]
        if char == '"':
            closing = query.find('"', position + 1)
            position = end if closing < 0 else closing + 1
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        parens += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and fields):
            break  # the first operation's selection is over
        found = _NAME.match(query, position) if depth == 1 and not parens else None
        if found is None:
            position += 1
            continue
        position = found.end()
        rest = query[position:end].lstrip()
        if not rest.startswith(":"):  # an alias names the field that follows it
            fields.append(found.group())
    return ", ".join(fields) or None
