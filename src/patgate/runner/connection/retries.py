"""When to resend a request the deployment turned away with 429 or 503.

``Retry-After`` is honoured in both of its forms (delta-seconds and an HTTP-date, RFC 9110
section 10.2.3). No single wait may exceed ``max_wait`` and all waits of a run together may
not exceed ``budget``; past either, the answer stands. A small random extra (jitter) keeps
parallel runs from coming back at the same instant. Without ``Retry-After`` the waits grow
(0.5 s, 1 s, 2 s, ...). Whether a request may be resent at all is the caller's decision: a
create is never resent blindly (see :mod:`patgate.runner.custody.custodian`).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime

__all__ = ["RETRY_STATUSES", "RetryPolicy", "retry_after_seconds"]

RETRY_STATUSES = frozenset((429, 503))
_FIRST_BACKOFF = 0.5
_JITTER = 0.1
"""Up to this fraction of a wait is added at random (and at least up to 0.1 s)."""


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Seconds a ``Retry-After`` value asks for (``now`` is a Unix time), or ``None``."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():  # "²" and "٣" pass isdigit() alone
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


class RetryPolicy:
    """The run's retry budget, and how many times it was drawn on (:attr:`retries`)."""

    def __init__(
        self,
        *,
        budget: float = 60.0,
        max_wait: float = 30.0,
        attempts: int = 5,
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.budget = budget
        self.max_wait = max_wait
        self.attempts = attempts
        self._clock = clock
        self._jitter = jitter
        self._lock = threading.Lock()
        self._spent = 0.0
        self.retries = 0

    def delay(self, status: int, headers: Mapping[str, str], attempt: int) -> float | None:
        """Seconds to wait before resending after this answer (``attempt`` resends so far),
        or ``None`` when the answer stands. A returned delay is counted as a retry."""
        if status not in RETRY_STATUSES or attempt >= self.attempts:
            return None
        asked = retry_after_seconds(headers.get("retry-after"), self._clock())
        wanted = asked if asked is not None else _FIRST_BACKOFF * 2**attempt
        if wanted > self.max_wait:
            return None
        wait = wanted + max(wanted * _JITTER, 0.1) * self._jitter()
        wait = min(wait, self.max_wait)
        with self._lock:
            if self._spent + wait > self.budget:
                return None
            self._spent += wait
            self.retries += 1
        return wait
