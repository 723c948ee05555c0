r"""Keeping secrets out of everything patgate prints or writes.

Two tools. :class:`Secret` holds a credential so that no ``repr``, ``str``, f-string,
assertion diff or traceback local ever shows it (a plain ``str`` token was measured leaking
into pytest's JUnit XML ten times in one failing test; a ``str`` subclass still leaks
through the diff, so ``Secret`` is deliberately not one). :class:`Redactor` is the run's
registry of secret values: every client secret, access token and PAT is registered the
moment it is read, and every output passes through :meth:`Redactor.redact`, which replaces
the values themselves (not only values under suspicious key names) plus anything shaped like
a PAT (under the configured prefix or any other ``<word>_pat_``; under the configured one,
a piece of a PAT too: the prefix and what follows it up to the dot) or a JWT.

A value is also replaced in the forms an answer or a log may carry it: URL-encoded, JSON-
escaped (``\/``, ``\uXXXX``), in base64 (alone, or inside a longer base64 text such as a
``Basic`` header's ``id:secret``, at any of the three byte alignments). A value of any length
is registered: a short secret from a target file is still a secret. A token shape hidden
behind escapes (``\u0061mp_pat_...``, ``%61mp_pat_...``) is found in the unescaped text,
which is then what the redacted text shows.

It is the one redaction engine: the runner's output, the reports, calibrate and the fake's
request log (``patgate.wire.request_log``) all redact through a :class:`Redactor`. For a
request's parts it also redacts a URL (user info dropped, the query's fields decoded:
:meth:`Redactor.redact_url`), a form (:meth:`Redactor.redact_form`) and bytes
(:meth:`Redactor.redact_bytes`); the log's own rules (which headers are only a credential,
where long fields are cut) are in ``patgate.wire.logged_request``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote_plus, unquote_plus, urlsplit, urlunsplit

from patgate.basics.token_grammar import (
    ANY_PAT_SCAN,
    DEFAULT_PAT_PREFIX,
    JWT_SCAN,
    pat_piece_scan,
    pat_scan,
)
from patgate.guards.redaction_forms import (
    DECODING_ERRORS,
    ENCODING_ERRORS,
    ESCAPE_HINTS,
    derived_forms,
    escaped_pattern,
    unescaped_forms,
    utf8,
)

__all__ = [
    "LONG_VALUE",
    "REDACTED",
    "SENSITIVE_FIELDS",
    "LogScrub",
    "Redactor",
    "Secret",
    "derived_forms",
]

REDACTED = "[REDACTED]"
LONG_VALUE = 256
"""A registered value longer than this (and its derived forms) is replaced by plain search,
not through the compiled patterns: compiling a long literal costs time in proportion to it
(a 1 MB access token took 8 s, and the escaped-forms pattern far more), and a hostile
answer may register one. Such a value is not matched with escapes mixed into it."""
_PLAIN_WORK = 1 << 21
"""A text is searched for each registered form in turn (no pattern to compile) while its
length times the number of forms stays under this: a run registers a secret with nearly
every create, and recompiling one pattern of all their forms for each short message cost
more than the run's requests (about 20 ms a time, 11 times in a run of the built-in
scenarios). Longer texts go through the compiled pattern, one pass whatever the count."""
SENSITIVE_FIELDS = frozenset(
    {"access_token", "client_secret", "token", "secret", "password", "refresh_token"}
    | {"id_token", "code", "api_key", "apikey", "key"}
)
"""Names of query or form fields whose value is a credential, whatever it holds."""
_CACHED_TEXT = 1024
"""Texts up to this long are remembered with their redaction (:meth:`Redactor.redact`)."""
_CACHED_TEXTS = 256
"""At most this many: then the memory starts afresh (a few hundred kilobytes at most)."""


def _plain_query(query: str) -> bool:
    """Whether a query holds no escape and no field named as a credential: redacting it as
    text then does what :meth:`Redactor.redact_form` would."""
    if "%" in query or "+" in query:
        return False
    return not any(
        field.partition("=")[0].lower() in SENSITIVE_FIELDS for field in query.split("&")
    )


class Secret:
    """An opaque credential: masked in every textual form, compared in constant time.

    ``reveal()`` is the one way to get the value, so each place that sends it on the wire
    is easy to find.
    """

    __slots__ = ("_value",)
    _value: str

    def __init__(self, value: str | Secret) -> None:
        if isinstance(value, Secret):
            value = value.reveal()
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds a str, not {type(value).__name__}")
        object.__setattr__(self, "_value", value)

    def reveal(self) -> str:
        """The value itself, for the one place that sends it."""
        return self._value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Secret is immutable")

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(utf8(self.reveal()), utf8(other.reveal()))

    def __hash__(self) -> int:
        return hash(hashlib.sha256(utf8(self.reveal())).digest())

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a Secret cannot be pickled")


class Redactor:
    """The run-scoped registry of secret values, and the one place output is scrubbed."""

    def __init__(self, pat_prefix: str = DEFAULT_PAT_PREFIX) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._raw: set[str] = set()
        self._long: tuple[str, ...] = ()
        """The forms of values over :data:`LONG_VALUE`, longest first."""
        self._pattern: re.Pattern[str] | None = None
        self._ordered: tuple[str, ...] | None = None
        """The forms of ``_values``, longest first (``None``: to sort again)."""
        self._escaped: re.Pattern[str] | None = None
        self._escaped_of: dict[tuple[str, ...], re.Pattern[str]] = {}
        """The escaped-forms pattern of a few values, by the values (cleared on a change)."""
        self._exotic = False
        """Whether a value holds a character that decoding a text may not give back as it
        was (``%``, ``+``, ``\\``): then every value is looked for escaped, not only those
        the decoded text holds."""
        self._cache: dict[str, str] = {}
        """Short texts redacted since the values last changed, and their redaction."""
        self._pat_scan = pat_scan(pat_prefix)
        self._pat_piece_scan = pat_piece_scan(pat_prefix)

    def register(self, value: str | Secret | None) -> None:
        """Remember a secret value, of any length, and its :func:`derived_forms` for every
        later redaction."""
        if value is None:
            return
        raw = value.reveal() if isinstance(value, Secret) else value
        if not raw:
            return
        forms = derived_forms(raw)
        if len(raw) > LONG_VALUE:
            with self._lock:
                merged = set(self._long) | forms
                self._long = tuple(sorted(merged, key=len, reverse=True))
                self._cache = {}
            return
        with self._lock:
            before = len(self._values)
            self._values.update(forms)
            self._raw.add(raw)
            self._exotic = self._exotic or any(hint in raw for hint in ESCAPE_HINTS)
            if len(self._values) != before:
                self._pattern = self._escaped = None
                self._ordered = None
                self._escaped_of = {}
                self._cache = {}

    def register_basic(self, user: str | None, password: str | Secret | None) -> None:
        """Remember the ``Basic`` credentials ``user:password`` (and their base64), besides
        ``password`` itself; also each URL-encoded first, as RFC 6749 (2.3.1) has a client
        do before encoding them."""
        if not password:
            return
        self.register(password)
        secret = password.reveal() if isinstance(password, Secret) else password
        if user:
            self.register(f"{user}:{secret}")
            encoded = f"{quote_plus(user, errors=ENCODING_ERRORS)}:" + quote_plus(
                secret, errors=ENCODING_ERRORS
            )
            self.register(encoded)

    def register_all(self, values: Iterable[str | Secret | None]) -> None:
        """:meth:`register` each of ``values``."""
        for value in values:
            self.register(value)

    def _forms(self) -> tuple[str, ...]:
        ordered = self._ordered
        if ordered is not None:
            return ordered
        with self._lock:
            if self._ordered is None:
                self._ordered = tuple(sorted(self._values, key=len, reverse=True))
            return self._ordered

    def _compiled(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._pattern is None and self._values:
                # Longest first, so a value never survives as the tail of a shorter match.
                ordered = sorted(self._values, key=len, reverse=True)
                self._pattern = re.compile("|".join(re.escape(v) for v in ordered))
            return self._pattern

    def _compiled_escaped(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._escaped is None and self._raw:
                self._escaped = escaped_pattern(self._raw)
            return self._escaped

    def _escaped_for(self, text: str) -> re.Pattern[str] | None:
        """The pattern of the escaped forms of the values ``text`` holds once decoded:
        compiling it for every value costs milliseconds, and most texts hold none."""
        if self._exotic:
            return self._compiled_escaped()
        decoded = unescaped_forms(text)
        with self._lock:
            raw = tuple(sorted(self._raw))
        held = tuple(value for value in raw if any(value in form for form in decoded))
        if not held:
            return None
        pattern = self._escaped_of.get(held)
        if pattern is None:
            if len(self._escaped_of) >= _CACHED_TEXTS:
                self._escaped_of = {}
            pattern = self._escaped_of[held] = escaped_pattern(held)
        return pattern

    def _unescaped_shapes(self, text: str) -> str:
        """``text``, or its decoded form when only that shows a PAT or a JWT (a token
        written with escapes): then the decoded text is what gets redacted and shown."""
        if "\\u" not in text and "\\/" not in text and "%" not in text:
            return text
        for decoded in unescaped_forms(text):
            for scan in (self._pat_piece_scan, ANY_PAT_SCAN, JWT_SCAN):
                if scan.search(decoded) is not None and scan.search(text) is None:
                    return decoded
        return text

    def redact(self, text: str) -> str:
        """``text`` with every registered value and every PAT- or JWT-shaped string replaced."""
        if len(text) > _CACHED_TEXT:
            return self._redact(text)
        # The same short texts come again and again (a client's headers, a URL, a message):
        # each is redacted once per set of values.
        cache = self._cache
        redacted = cache.get(text)
        if redacted is None:
            redacted = self._redact(text)
            if len(cache) >= _CACHED_TEXTS:
                cache.clear()
            cache[text] = redacted
        return redacted

    def _redact(self, text: str) -> str:
        for form in self._long:
            if form in text:
                text = text.replace(form, REDACTED)
        forms = self._forms()
        if forms and len(text) * len(forms) <= _PLAIN_WORK:
            # Longest first, so a value never survives as the tail of a shorter match.
            for form in forms:
                if form in text:
                    text = text.replace(form, REDACTED)
        elif forms and (pattern := self._compiled()) is not None:
            text = pattern.sub(REDACTED, text)
        # Escapes mixed into a value (one "\u002d", one "%2F"): rarer and slower to match.
        if forms and ("\\" in text or "%" in text or "+" in text):
            escaped = self._escaped_for(text)
            if escaped is not None:
                text = escaped.sub(REDACTED, text)
        text = self._unescaped_shapes(text)
        text = self._pat_scan.sub(REDACTED, text)
        text = self._pat_piece_scan.sub(REDACTED, text)  # a PAT cut before its dot
        text = ANY_PAT_SCAN.sub(REDACTED, text)
        return JWT_SCAN.sub(REDACTED, text)

    def redact_bytes(self, data: bytes) -> bytes:
        """:meth:`redact` for bytes (a request's body): UTF-8 text redacted, any other byte
        kept as it was."""
        text = data.decode("utf-8", "surrogateescape")
        redacted = self.redact(text)
        return data if redacted == text else redacted.encode("utf-8", "surrogateescape")

    def redact_url(self, url: str) -> str:
        """``url`` without user info or fragment, its path redacted, and its query as
        :meth:`redact_form` leaves it (empty fields dropped)."""
        if "@" not in url and "#" not in url and _plain_query(url.partition("?")[2]):
            return self.redact(url)  # the common case: nothing to decode or drop
        parts = urlsplit(url)
        netloc = self.redact(parts.netloc.rpartition("@")[2])
        query = self.redact_form("&".join(field for field in parts.query.split("&") if field))
        return urlunsplit((parts.scheme, netloc, self.redact(parts.path), query, ""))

    def redact_form(self, form: str) -> str:
        """A URL-encoded query or form body with the value of each field named as a
        credential (:data:`SENSITIVE_FIELDS`), or holding one once decoded, redacted whole
        (a secret's escaped base64 shows no form of it until decoded)."""
        return "&".join(self._redact_field(field) for field in form.split("&"))

    def _redact_field(self, field: str) -> str:
        name, equals, value = field.partition("=")
        if unquote_plus(name, errors=DECODING_ERRORS).lower() in SENSITIVE_FIELDS:
            return f"{name}{equals}{REDACTED}"
        decoded = unquote_plus(value, errors=DECODING_ERRORS)
        if decoded != value and self.redact(decoded) != decoded:
            value = REDACTED
        return f"{self.redact(name)}{equals}{self.redact(value)}"

    def redact_data(self, data: Any) -> Any:
        """A copy of JSON-like ``data`` with every string (keys included) redacted."""
        if isinstance(data, str):
            return self.redact(data)
        if isinstance(data, Secret):
            return REDACTED
        if isinstance(data, dict):
            return {self.redact_data(k): self.redact_data(v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return type(data)(self.redact_data(item) for item in data)
        return data

    def contains_secret(self, text: str) -> bool:
        """Whether ``text`` holds any registered value (for artifact scans)."""
        if any(form in text for form in self._long):
            return True
        pattern = self._compiled()
        return pattern is not None and pattern.search(text) is not None


class LogScrub:
    """While installed, every log record of the named loggers (and their children, such as
    ``httpcore.http11``) carries its message already redacted, whatever handler prints it.

    A logger's own filters do not see records of its children, so this wraps the log
    record factory instead. :meth:`remove` puts the previous factory back when no one has
    replaced it since; otherwise this one stays in the chain and only passes records on.
    """

    def __init__(
        self, redactor: Redactor, names: Iterable[str] = ("httpx", "httpcore", "patgate")
    ) -> None:
        self.redactor = redactor
        self.names = tuple(names)
        self._children = tuple(f"{name}." for name in self.names)
        self._next: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()
        self._active = False
        self._chained = False

    def _make(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self._next(*args, **kwargs)
        if self._active and (record.name in self.names or record.name.startswith(self._children)):
            try:
                text = record.getMessage()
            except Exception:  # a malformed record must not break the caller
                text = str(record.msg)
            record.msg, record.args = self.redactor.redact(text), None
        return record

    def install(self) -> LogScrub:
        """Start redacting."""
        if not self._chained:
            self._next = logging.getLogRecordFactory()
            logging.setLogRecordFactory(self._make)
            self._chained = True
        self._active = True
        return self

    def remove(self) -> None:
        """Stop redacting."""
        self._active = False
        if logging.getLogRecordFactory() == self._make:
            logging.setLogRecordFactory(self._next)
            self._chained = False
