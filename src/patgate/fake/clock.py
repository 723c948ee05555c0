"""The fake's sense of time, which tests move forward instead of sleeping."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from patgate.errors import InvalidRequest

__all__ = ["EARLIEST", "LATEST", "Clock", "SystemClock", "format_timestamp"]

EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""The clock never shows an instant before this one (POSIX time 0)."""
LATEST = datetime(9998, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
"""Nor one after this: a year short of the end of year 9999, where dates stop, so real time
passing on a clock moved this far still finds every date, timestamp and token expiry valid."""
_RANGE = "years 1970 to 9998"


class Clock:
    """Wall-clock time plus an offset that tests advance.

    With ``start`` the clock is frozen at that instant and moves only by ``advance``, which
    makes dates in assertions exact. Without it, it follows real time so that client tokens
    decoded by a user's own code carry plausible ``iat`` and ``exp`` values.
    """

    def __init__(self, start: datetime | None = None) -> None:
        if start is not None and start.tzinfo is None:
            raise ValueError("Clock start must be timezone-aware (UTC)")
        if start is not None and not EARLIEST <= start <= LATEST:
            raise InvalidRequest(f"the clock's start must lie in the {_RANGE}", rule_id="")
        self._frozen = start
        self._offset = timedelta()
        self._lock = threading.Lock()
        self.on_change: Callable[[], None] | None = None
        """Called after each move (the journal of ``patgate serve --state`` listens)."""

    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        with self._lock:
            base = self._frozen if self._frozen is not None else datetime.now(timezone.utc)
            try:
                return (base + self._offset).astimezone(timezone.utc)
            except OverflowError:  # centuries of real time after a move to the limit
                return datetime.max.replace(tzinfo=timezone.utc)

    def timestamp(self) -> float:
        """The current instant as POSIX seconds."""
        return self.now().timestamp()

    def advance(self, seconds: float) -> None:
        """Move time forward (client tokens expire; PATs do not).

        A move that would take the clock past :data:`LATEST` raises
        :class:`~patgate.errors.InvalidRequest` (a ``ValueError``) and leaves it where it is.
        """
        if not (isinstance(seconds, (int, float)) and math.isfinite(seconds)) or seconds < 0:
            raise InvalidRequest("the clock only moves forward, by a finite time", rule_id="")
        with self._lock:
            self._offset = self._checked(self._offset.total_seconds() + seconds)
        if self.on_change is not None:
            self.on_change()

    def check_offset(self, seconds: float) -> None:
        """Raise :class:`~patgate.errors.InvalidRequest` unless ``seconds`` of advance keep
        the clock in range (a state file's offset is checked before it is loaded)."""
        self._checked(seconds)

    def _checked(self, seconds: float) -> timedelta:
        """``seconds`` of advance as an offset, if the clock stays in range with it."""
        base = self._frozen if self._frozen is not None else datetime.now(timezone.utc)
        room = (LATEST - base).total_seconds()
        if not math.isfinite(seconds) or seconds < 0 or seconds > room:
            shown = "beyond" if seconds > room else "outside"
            raise InvalidRequest(
                f"the clock would move {shown} the {_RANGE}: it may be advanced at most "
                f"{max(0, int(room)):,} s from its start",
                rule_id="",
            )
        return timedelta(seconds=seconds)

    @property
    def offset(self) -> float:
        """Seconds the clock has been advanced in all (kept by ``patgate serve --state``)."""
        with self._lock:
            return self._offset.total_seconds()

    def set_offset(self, seconds: float) -> None:
        """Put the clock back at ``seconds`` of advance (a reset, or a restored state)."""
        with self._lock:
            self._offset = self._checked(seconds)
        if self.on_change is not None:
            self.on_change()


class SystemClock(Clock):
    """The machine's time, read from ``time.time()`` on every call, with no offset of its own.

    ``Fake(clock="system")`` and ``@pytest.mark.patgate(clock="system")`` use it, so that
    time-machine and freezegun, which move ``time.time()``, move the fake too: the code under
    test and the fake agree about when a client token expires. Moving this clock with
    :meth:`advance` raises :class:`~patgate.errors.InvalidRequest`: time belongs to the
    time-travel library.
    """

    def __init__(self) -> None:
        super().__init__()

    def now(self) -> datetime:
        """``time.time()`` as a timezone-aware instant in UTC."""
        return datetime.fromtimestamp(time.time(), timezone.utc)

    def timestamp(self) -> float:
        """``time.time()``."""
        return time.time()

    def advance(self, seconds: float) -> None:
        """Refused: this clock follows the system's time (move that instead)."""
        raise InvalidRequest(
            "this fake reads the system clock (clock='system'): move time with time-machine "
            "or freezegun, not with advance_clock (or give the fake its own clock: "
            "clock='fake', the default)",
            rule_id="",
        )

    @property
    def offset(self) -> float:
        """Always 0: the system clock is never advanced."""
        return 0.0

    def set_offset(self, seconds: float) -> None:
        """Only 0 is accepted (a reset); any other offset is refused like :meth:`advance`."""
        if seconds != 0:
            self.advance(seconds)


def format_timestamp(moment: datetime, timespec: str = "milliseconds") -> str:
    """ISO 8601 in UTC with milliseconds (or ``timespec="seconds"``, whole seconds) and a
    trailing ``Z``, as the real service writes."""
    # isoformat, not strftime: a third of the cost, on every date of every token listed.
    if moment.tzinfo is not timezone.utc:  # the clock's instants are in UTC already
        moment = moment.astimezone(timezone.utc)
    return moment.replace(tzinfo=None).isoformat(timespec=timespec) + "Z"
