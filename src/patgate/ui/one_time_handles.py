"""What the page shows once: a token's value after its create, a notice after an action.

A form post never answers with a page; it redirects (post, redirect, get), so a reload or the
back button never repeats it. What the answer has to say travels as a short-lived,
unguessable handle in the address of the redirect:

- a **reveal** holds a new token's value until the page that shows it is loaded once; the
  value is then forgotten, and loading the same address again says it was shown;
- a **notice** ("The token “ci” was deleted.") is shown by the first load and gone on reload.

Both belong to the user who acted (another user's handle is an unknown one), expire after
:data:`LIFETIME` seconds, and at most :data:`CAPACITY` are kept (the oldest go first).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from patgate.fake.model import PatRecord

__all__ = ["CAPACITY", "LIFETIME", "Notice", "OneTimeStore", "Reveal"]

LIFETIME = 600.0
"""Seconds a handle stays valid."""
CAPACITY = 500
"""Handles kept at most; a new one pushes out the oldest."""


@dataclass(frozen=True)
class Reveal:
    """A created token, and its value until the reveal page was loaded."""

    record: PatRecord
    value: str | None
    """``None`` once shown."""


@dataclass(frozen=True)
class Notice:
    """A message about the last action; ``kind`` is ``success``, ``info`` or ``error``."""

    text: str
    kind: str = "success"


@dataclass
class _Entry:
    owner: str
    item: Reveal | Notice
    expires: float


class OneTimeStore:
    """Handles to reveals and notices, for one page. Safe to share between threads."""

    def __init__(self, lifetime: float = LIFETIME, capacity: int = CAPACITY) -> None:
        self.lifetime = lifetime
        self.capacity = capacity
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, owner: str, item: Reveal | Notice) -> str:
        """Keep ``item`` for ``owner``; returns its handle."""
        handle = secrets.token_urlsafe(18)
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            self._entries[handle] = _Entry(owner, item, now + self.lifetime)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return handle

    def take_notice(self, owner: str, handle: str) -> Notice | None:
        """The notice behind ``handle``, once; ``None`` when unknown, expired or taken."""
        with self._lock:
            self._expire(time.monotonic())
            entry = self._entries.get(handle)
            if entry is None or entry.owner != owner or not isinstance(entry.item, Notice):
                return None
            del self._entries[handle]
            return entry.item

    def take_reveal(self, owner: str, handle: str) -> Reveal | None:
        """The reveal behind ``handle``: with its value the first time, without it after.

        ``None`` when the handle is unknown, expired, or another user's.
        """
        with self._lock:
            self._expire(time.monotonic())
            entry = self._entries.get(handle)
            if entry is None or entry.owner != owner or not isinstance(entry.item, Reveal):
                return None
            shown = entry.item
            if shown.value is not None:
                entry.item = Reveal(shown.record, None)
            return shown

    def _expire(self, now: float) -> None:
        while self._entries:
            handle, entry = next(iter(self._entries.items()))
            if entry.expires > now:
                return
            del self._entries[handle]
