"""What the fake was asked, for tests to read: method, URL, headers, body, status, never a
credential.

Every entry is redacted before anyone reads it, so printing the log, an entry, or a failing
assertion that shows them cannot leak a token or a secret. Redaction goes through the one
redaction engine, :class:`patgate.guards.redaction.Redactor`, by value and by shape: every
credential the fake knows (its API clients' secrets, the world's PATs, the control token:
:meth:`RequestLog.know`) in every form it may take on the wire (URL-encoded, JSON-escaped,
base64, inside a ``Basic`` credential), wherever it appears (the URL's path and query, any
header, the body), and anything shaped like a PAT or a client token (a JWT), with matchers
linear in the text. :mod:`patgate.wire.logged_request` says what an entry keeps and how
long fields are cut.

The log is a ring buffer bounded twice: by ``capacity`` entries (``patgate serve
--log-size``) and by ``max_bytes`` (``--log-bytes``, default :data:`DEFAULT_LOG_BYTES`), an
upper estimate of the memory the entries hold. The oldest entry goes first, so memory stays
flat however long a fake serves and whatever it is sent.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload
from urllib.parse import urlsplit

from patgate.basics.token_grammar import DEFAULT_PAT_PREFIX
from patgate.guards.redaction import REDACTED, Redactor
from patgate.wire.logged_request import (
    DROPPED,
    MAX_BODY_BYTES,
    MAX_HEADER_TEXT,
    MAX_URL_TEXT,
    TRUNCATED,
    LoggedRequest,
    PackedRequest,
    SentRequest,
    redacted_entry,
    unread_size,
)
from patgate.wire.messages import WireRequest, WireResponse

__all__ = [
    "DEFAULT_LOG_BYTES",
    "DEFAULT_LOG_SIZE",
    "DROPPED",
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
_SHORTEST_KNOWN = 8


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
        self._entries: deque[LoggedRequest | PackedRequest] = deque()
        """Oldest first; the newest :attr:`_unread` are still as sent, packed (see
        :class:`SentRequest`), the others redacted."""
        self._sizes: deque[int] = deque()
        """What each of :attr:`_entries` costs (:attr:`nbytes`), in the same order."""
        self._unread = 0
        self._bytes = 0
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._prefix = pat_prefix
        self._untold: list[str | tuple[str, str]] = []
        """Credentials to redact (a value, or a client id and secret for ``Basic``) not yet
        registered with the redactor: they are when an entry is next read (most logs are
        never read)."""
        self._redactor: Redactor | None = None

    # -- what the log redacts --------------------------------------------------------------

    def know(self, *values: str | None) -> None:
        """Redact each of ``values`` (a credential the fake handed out) wherever it appears,
        in every form (:func:`patgate.guards.redaction.derived_forms`).

        Values shorter than 8 characters are ignored: they would hide ordinary text.
        """
        with self._lock:
            self._untold += [v for v in values if v and len(v) >= _SHORTEST_KNOWN]

    def know_basic(self, client_id: str, secret: str) -> None:
        """Redact ``secret`` and the HTTP ``Basic`` credential of ``client_id`` with it (what
        :meth:`patgate.guards.redaction.Redactor.register_basic` registers)."""
        if secret and len(secret) >= _SHORTEST_KNOWN:
            with self._lock:
                self._untold.append((client_id, secret))

    def _redactor_now(self) -> Redactor:
        """Under the lock: the redactor, told every value known by now."""
        redactor = self._redactor
        if redactor is None:
            redactor = self._redactor = Redactor(self._prefix)
        if self._untold:
            for value in self._untold:
                if isinstance(value, tuple):
                    redactor.register_basic(*value)
                else:
                    redactor.register(value)
            self._untold = []
        return redactor

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
        sent = SentRequest.of(
            request, response, principal=principal, duration=duration, via=via, fault=fault
        )
        with self._lock:
            return self._keep_redacted(sent)

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
        size = unread_size(request, response)
        with self._lock:
            if size is None:
                sent = SentRequest.of(
                    request, response, principal=principal, duration=duration, via=via,
                    fault=fault,
                )  # fmt: skip
                self._keep_redacted(sent)
            else:
                packed = SentRequest.pack(
                    request, response, number=next(self._numbers), principal=principal,
                    duration=duration, via=via, fault=fault,
                )  # fmt: skip
                self._unread += 1  # first: _fit counts it among the unread ones
                self._keep(packed, size)

    def _keep_redacted(self, sent: SentRequest) -> LoggedRequest:
        """Under the lock: redact ``sent`` now, after every entry still unread (so the
        unread ones stay the newest), and keep it."""
        self._read_all()
        entry, size = self._redacted(sent.packed())
        self._keep(entry, size)
        return entry

    def _keep(self, item: LoggedRequest | PackedRequest, size: int) -> None:
        """Append under the lock, then let the oldest entries go until the log fits."""
        self._entries.append(item)
        self._sizes.append(size)
        self._bytes += size
        self._fit()

    def _fit(self) -> None:
        while len(self._entries) > self.capacity or (
            self._bytes > self.max_bytes and len(self._entries) > 1
        ):
            if self._unread == len(self._entries):  # the oldest is unread too
                self._unread -= 1
            self._entries.popleft()
            self._bytes -= self._sizes.popleft()

    def _read_all(self) -> None:
        """Redact every entry still as sent, under the lock. They are the newest ones (an
        entry redacted at once first redacts those before it), so only they are visited.

        Should redaction raise (a bug), the reader gets the error, as a bug while answering
        reaches the test, and the entries not yet redacted stay unread, still the newest,
        so nothing is lost and a later read tries them again.
        """
        count = self._unread
        if not count:
            return
        waiting = [(self._entries.pop(), self._sizes.pop()) for _ in range(count)][::-1]
        for done, (packed, cost) in enumerate(waiting):
            try:
                if isinstance(packed, LoggedRequest):  # no assert: it would show the entry
                    raise RuntimeError("request log: a read entry stood among the unread ones")
                entry, size = self._redacted(packed)
            except BaseException:
                self._unread = count - done
                for left, left_cost in waiting[done:]:
                    self._entries.append(left)
                    self._sizes.append(left_cost)
                raise
            self._entries.append(entry)
            self._sizes.append(size)
            self._bytes += size - cost
        self._unread = 0
        self._fit()  # redacted entries cost less or more than as sent

    def _redacted(self, packed: PackedRequest) -> tuple[LoggedRequest, int]:
        """The entry every reader sees for one packed request, and what it costs."""
        sent = SentRequest.unpacked(packed)
        if not sent.number:
            sent = sent._replace(number=next(self._numbers))
        return redacted_entry(sent, self._redactor_now())

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

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._sizes.clear()
            self._bytes = 0
            self._unread = 0

    def _all_read(self) -> list[LoggedRequest]:
        """Under the lock: every entry, redacted."""
        self._read_all()
        entries = [entry for entry in self._entries if isinstance(entry, LoggedRequest)]
        if len(entries) != len(self._entries):  # pragma: no cover - _read_all read them all
            raise RuntimeError("request log: an entry stayed unread")
        return entries

    def entries(self) -> list[LoggedRequest]:
        """A snapshot of the entries."""
        with self._lock:
            return self._all_read()

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
            entry = self._entries[index]
        if not isinstance(entry, LoggedRequest):  # pragma: no cover - _read_all read it
            raise RuntimeError("request log: an entry stayed unread")
        return entry

    def __repr__(self) -> str:
        lines = [f"  {e.method} {e.url} -> {e.status}" for e in self.entries()]
        return "RequestLog([\n" + "\n".join(lines) + "\n])" if lines else "RequestLog([])"


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
