"""What changed in a deployment since it was last written down: for ``patgate serve --state``.

A :class:`Changes` attached to a :class:`~patgate.fake.deployment.Deployment` (its
``changes`` attribute, ``None`` by default, which costs nothing) is told the key of every
record an operation adds, alters or removes, and whether the clock moved or the id generator
advanced. :meth:`Changes.take` hands them over and starts afresh; the journal
(:mod:`patgate.commands.serve_state`) writes the records' current values.

Two kinds of change: *durable* ones (a create, a delete, an approval, a removal, a role, the
clock, a reset) must be on disk before the answer that acknowledges them is sent; a PAT's
``lastUsedDate`` is *lazy*: it is written with the next durable change, or a few seconds
later, never waited for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["STORES", "Changes", "Taken"]

STORES = ("organizations", "users", "clients", "hubs", "tokens")
"""The keyed stores of a deployment's state, as :mod:`patgate.fake.state` names them."""


@dataclass
class Taken:
    """The changes handed over by one :meth:`Changes.take`."""

    keys: dict[str, set[str]] = field(default_factory=lambda: {store: set() for store in STORES})
    clock: bool = False
    ids: bool = False
    full: bool = False
    durable: bool = False


class Changes:
    """Keys changed since the last :meth:`take`, guarded by their own lock.

    ``on_durable`` and ``on_lazy`` are called (outside the lock) when the first change of
    their kind arrives after a take: the journal's writer wakes on them, and sleeps otherwise.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = Taken()
        self.count = 0
        """Durable changes seen so far."""
        self.written = 0
        """``count`` as of the last take whose entry is in the journal (the journal sets it
        once the entry is appended): when the two are equal, every change is in an entry."""
        self.on_lazy: Callable[[], None] | None = None

    def mark(self, store: str, key: str, *, ids: bool = False) -> None:
        """A record of ``store`` was added, altered or removed (durable)."""
        with self._lock:
            self._taken.keys[store].add(key)
            self._taken.ids |= ids
            self._taken.durable = True
            self.count += 1

    def mark_clock(self) -> None:
        """The clock's offset changed (durable)."""
        with self._lock:
            self._taken.clock = True
            self._taken.durable = True
            self.count += 1

    def mark_full(self) -> None:
        """The whole state was replaced (a reset): the next entry holds all of it."""
        with self._lock:
            self._taken.full = True
            self._taken.durable = True
            self.count += 1

    def mark_used(self, token_id: str) -> None:
        """A PAT was used: its ``lastUsedDate`` moved (lazy)."""
        with self._lock:
            tokens = self._taken.keys["tokens"]
            first = not tokens and not self._taken.durable
            tokens.add(token_id)
        if first and self.on_lazy is not None:
            self.on_lazy()

    def take(self) -> tuple[Taken, int]:
        """Everything changed since the last take, and ``count`` at the take; the next one
        starts empty."""
        with self._lock:
            taken, self._taken = self._taken, Taken()
            return taken, self.count

    @property
    def pending(self) -> bool:
        """Whether anything, lazy changes included, waits to be taken."""
        with self._lock:
            t = self._taken
            return t.durable or any(t.keys.values())
