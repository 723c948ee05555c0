"""A cache bounded by the bytes it holds, shared fairly between the owners of its entries.

``functools.lru_cache`` bounds a count of entries, whatever their size: keyed by a whole
URL or a whole GraphQL document, 512 entries of 1 MB each pin half a gigabyte for anyone who
can send them. Here each entry has a cost in bytes (its caller's estimate of what it pins),
an entry above ``max_entry_bytes`` is never kept (it is computed every time), the total stays
within ``max_bytes``, and no owner (a principal, say) holds more than ``max_owner_bytes``:
past its share, an owner's own least recently used entries go first, and when the whole
cache is full the owner holding the most gives way, so one caller cannot push out everyone
else's entries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """Least recently used entries go first, within a byte budget (module docs)."""

    def __init__(
        self,
        max_bytes: int,
        *,
        max_entry_bytes: int,
        max_owner_bytes: int | None = None,
        touch: bool = True,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self.max_owner_bytes = max_owner_bytes if max_owner_bytes is not None else max_bytes
        self._entries: OrderedDict[K, tuple[V, int, Hashable]] = OrderedDict()
        self._owned: dict[Hashable, OrderedDict[K, None]] = {}
        self._owner_bytes: dict[Hashable, int] = {}
        self.bytes = 0
        """The cost of the entries held now."""
        self._lock = threading.Lock()
        self._touch = touch

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value kept for ``key`` (now the most recently used, unless the cache was made
        with ``touch=False``: then entries leave in the order they came), or ``default``."""
        found = self._entries.get(key)  # one C call: safe without the lock
        if found is None:
            return default
        value, _, owner = found
        if self._touch:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self._owned[owner].move_to_end(key)
        return value

    def admits(self, cost: int) -> bool:
        """Whether an entry of ``cost`` bytes would be kept at all."""
        return cost <= self.max_entry_bytes

    def put(self, key: K, value: V, cost: int, owner: Hashable = None) -> None:
        """Keep ``value`` for ``key`` at ``cost`` bytes on ``owner``'s share, if it fits."""
        if not self.admits(cost):
            return
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = (value, cost, owner)
            self._owned.setdefault(owner, OrderedDict())[key] = None
            self._owner_bytes[owner] = self._owner_bytes.get(owner, 0) + cost
            self.bytes += cost
            while self._owner_bytes.get(owner, 0) > self.max_owner_bytes:
                self._drop(next(iter(self._owned[owner])))
            while self.bytes > self.max_bytes:
                heaviest = max(self._owner_bytes, key=self._owner_bytes.__getitem__)
                self._drop(next(iter(self._owned[heaviest])))

    def _drop(self, key: K) -> None:
        _, cost, owner = self._entries.pop(key)
        owned = self._owned[owner]
        del owned[key]
        self._owner_bytes[owner] -= cost
        if not owned:
            del self._owned[owner]
            del self._owner_bytes[owner]
        self.bytes -= cost

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def owner_bytes(self, owner: Hashable) -> int:
        """The cost of ``owner``'s entries."""
        with self._lock:
            return self._owner_bytes.get(owner, 0)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._owned.clear()
            self._owner_bytes.clear()
            self.bytes = 0
