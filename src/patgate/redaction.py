"""Keeping secrets out of everything patgate prints or writes.

Two tools. :class:`Secret` holds a credential so that no ``repr``, ``str``, f-string,
assertion diff or traceback local ever shows it (a plain ``str`` token was measured leaking
into pytest's JUnit XML ten times in one failing test; a ``str`` subclass still leaks
through the diff, so ``Secret`` is deliberately not one). :class:`Redactor` is the run's
registry of secret values: every client secret, access token and PAT is registered the
moment it is read, and every output passes through :meth:`Redactor.redact`, which replaces
the values themselves (not only values under suspicious key names) plus anything shaped like
a PAT or a JWT.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from patgate.token_grammar import DEFAULT_PAT_PREFIX, JWT_SHAPE, pat_shape

__all__ = ["REDACTED", "LogScrub", "Redactor", "Secret"]

REDACTED = "[REDACTED]"
_MIN_LENGTH = 8
"""Shorter values are not registered: replacing them would shred ordinary text."""
# A value parsed from JSON may hold a lone surrogate ("\ud800"), which strict UTF-8 refuses.
_ENCODING_ERRORS = "surrogatepass"


def _utf8(value: str) -> bytes:
    return value.encode("utf-8", _ENCODING_ERRORS)


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
        return hmac.compare_digest(_utf8(self.reveal()), _utf8(other.reveal()))

    def __hash__(self) -> int:
        return hash(hashlib.sha256(_utf8(self.reveal())).digest())

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a Secret cannot be pickled")


class Redactor:
    """The run-scoped registry of secret values, and the one place output is scrubbed."""

    def __init__(self, pat_prefix: str = DEFAULT_PAT_PREFIX) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._pat_shape = pat_shape(pat_prefix)

    def register(self, value: str | Secret | None) -> None:
        """Remember a secret value (and its URL-encoded forms) for every later redaction."""
        if value is None:
            return
        raw = value.reveal() if isinstance(value, Secret) else value
        if len(raw) < _MIN_LENGTH:
            return
        with self._lock:
            before = len(self._values)
            encoded = (
                quote(raw, safe="", errors=_ENCODING_ERRORS),
                quote_plus(raw, errors=_ENCODING_ERRORS),
            )
            self._values.update({raw, *encoded})
            if len(self._values) != before:
                self._pattern = None

    def register_all(self, values: Iterable[str | Secret | None]) -> None:
        """:meth:`register` each of ``values``."""
        for value in values:
            self.register(value)

    def _compiled(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._pattern is None and self._values:
                # Longest first, so a value never survives as the tail of a shorter match.
                ordered = sorted(self._values, key=len, reverse=True)
                self._pattern = re.compile("|".join(re.escape(v) for v in ordered))
            return self._pattern

    def redact(self, text: str) -> str:
        """``text`` with every registered value and every PAT- or JWT-shaped string replaced."""
        pattern = self._compiled()
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        text = self._pat_shape.sub(REDACTED, text)
        return JWT_SHAPE.sub(REDACTED, text)

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
