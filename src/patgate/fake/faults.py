"""Faults on the wire and the published GraphQL rate limit: one model for every front door.

A :class:`Faults` book holds rules; the wire app asks it, for each request it is about to
answer, whether a rule fires (:meth:`Faults.decide`). ``patgate.Fake.faults`` is the book
of an in-process fake, and the control API's ``/__patgate/faults`` edits the same book of a
served one, so a rule means the same thing from Python and from any other language.

A rule matches by endpoint (``token``, ``hubs``, ``content`` for any content path,
``graphql``, or ``any``), optionally a GraphQL operation name and a principal (a user id),
and fires for its next ``count`` matching requests (every one when ``count`` is ``None``),
each with ``probability``. It answers a chosen ``status`` and JSON ``body`` with an optional
``Retry-After``, waits ``latency`` seconds first, or drops the connection (``drop``); a rule
with only a latency delays the real answer.

The rate limit is the vendor's published one for GraphQL (60 requests per minute per key,
docs/facts.md): a switch, off by default. Each key has its own window of a minute on the
fake's clock, opened by its first counted request; when it ends, the key's next request
opens the next one. So a burst of one request over the limit is refused whenever it starts
(a window aligned to the clock's minutes would split a burst that straddles one),
``Retry-After`` gives the whole seconds left in the key's window, and a test advances the
clock past that instead of waiting.
"""

from __future__ import annotations

import math
import os
import random
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import FrameType
from typing import Any

from patgate.errors import InvalidRequest, NotFound
from patgate.fake.clock import Clock

__all__ = [
    "ENDPOINTS",
    "RATE_LIMIT_PER_MINUTE",
    "RATE_LIMIT_WINDOW",
    "CallSite",
    "FaultAction",
    "FaultRule",
    "Faults",
]

ENDPOINTS = ("any", "token", "hubs", "content", "graphql")
"""What a rule's ``endpoint`` may name; ``content`` is every path of the content API."""
RATE_LIMIT_PER_MINUTE = 60
"""The vendor's published GraphQL limit per key."""
RATE_LIMIT_WINDOW = timedelta(seconds=60)
"""A key's window: the limit is per minute, counted from the key's first request."""
MAX_LATENCY = 60.0
"""The longest latency a rule may ask for, in seconds: a fault must not hang a test run."""

_MAX_KEYS = 4096
"""Keys whose windows are remembered at once; past it, ended windows go, then the oldest."""
_FIELDS = frozenset(
    {"endpoint", "operation", "principal", "count", "probability", "status", "body"}
    | {"retry_after", "latency", "drop"}
)


@dataclass(frozen=True)
class CallSite:
    """What the wire app knows about a request when it asks :meth:`Faults.decide`."""

    endpoints: tuple[str, ...]
    """Every endpoint name the request belongs to, e.g. ``("content", "hubs")``."""
    operation: str | None = None
    """The GraphQL operation name, when there is one."""
    principal: str | None = None
    """The caller's user id, when the bearer is valid."""
    key: str | None = None
    """What the rate limit counts by: one value per credential, never the credential."""


@dataclass(frozen=True)
class FaultAction:
    """What the wire app does instead of (or before) the real answer."""

    rule_id: str
    status: int | None
    body: Any
    retry_after: int | None
    latency: float
    drop: bool
    why: str = ""
    """Why it answered, for the request log: the rule and where the test added it, or the
    rate limit's count."""


@dataclass
class FaultRule:
    """One rule of the book; ``hits`` counts the requests it fired for."""

    id: str
    endpoint: str = "any"
    operation: str | None = None
    principal: str | None = None
    count: int | None = None
    probability: float = 1.0
    status: int | None = None
    body: Any = None
    retry_after: int | None = None
    latency: float = 0.0
    drop: bool = False
    hits: int = 0
    added_at: str = ""
    """Where the rule was added (``test_x.py:14``, ``the control API``), for a reason and
    for the report of rules that never answered."""

    def matches(self, call: CallSite) -> bool:
        """Whether ``call`` is one this rule is about (ignoring count and probability)."""
        if self.endpoint != "any" and self.endpoint not in call.endpoints:
            return False
        if self.operation is not None and self.operation != call.operation:
            return False
        return self.principal is None or self.principal == call.principal

    def to_json(self) -> dict[str, Any]:
        """The rule as the control API shows it."""
        return {
            "id": self.id,
            "endpoint": self.endpoint,
            "operation": self.operation,
            "principal": self.principal,
            "count": self.count,
            "probability": self.probability,
            "status": self.status,
            "body": self.body,
            "retry_after": self.retry_after,
            "latency": self.latency,
            "drop": self.drop,
            "hits": self.hits,
        }


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB = os.path.dirname(os.__file__) + os.sep


def caller_place() -> str:
    """``file.py:line`` of the first caller outside patgate and the standard library (a
    test adding a rule), or ``""`` when there is none (a server thread's request)."""
    # sys._getframe: a cheap walk; inspect.stack() would read every file of the stack.
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith((_PACKAGE, _STDLIB)):
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def _bad(message: str) -> InvalidRequest:
    return InvalidRequest(f"fault rule: {message}", rule_id="")


def _optional_text(spec: Mapping[str, Any], name: str) -> str | None:
    value = spec.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise _bad(f"{name} must be a non-empty string")
    return value


def _optional_int(spec: Mapping[str, Any], name: str, low: int, high: int) -> int | None:
    value = spec.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(f"{name} must be a whole number from {low} to {high}")
    return value


def _number(spec: Mapping[str, Any], name: str, default: float, high: float) -> float:
    value = spec.get(name, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= high
    ):
        raise _bad(f"{name} must be a number from 0 to {high:g}")
    return float(value)


def parse_rule(rule_id: str, spec: Mapping[str, Any]) -> FaultRule:
    """A rule from its JSON form; :class:`InvalidRequest` naming the first wrong field."""
    unknown = sorted(set(spec) - _FIELDS)
    if unknown:
        raise _bad(f"unknown field(s) {unknown}; known: {sorted(_FIELDS)}")
    endpoint = spec.get("endpoint", "any")
    if endpoint not in ENDPOINTS:
        raise _bad(f"endpoint must be one of {list(ENDPOINTS)}, not {endpoint!r}")
    drop = spec.get("drop", False)
    if not isinstance(drop, bool):
        raise _bad("drop must be true or false")
    rule = FaultRule(
        id=rule_id,
        endpoint=endpoint,
        operation=_optional_text(spec, "operation"),
        principal=_optional_text(spec, "principal"),
        count=_optional_int(spec, "count", 1, 10**9),
        probability=_number(spec, "probability", 1.0, 1.0),
        status=_optional_int(spec, "status", 200, 599),
        body=spec.get("body"),
        retry_after=_optional_int(spec, "retry_after", 0, 86400),
        latency=_number(spec, "latency", 0.0, MAX_LATENCY),
        drop=drop,
    )
    if rule.operation is not None and endpoint not in ("graphql", "any"):
        raise _bad("operation applies to the graphql endpoint only")
    if rule.status is None and not rule.drop and rule.latency == 0:
        raise _bad("give a status, a latency, or drop: true")
    if rule.drop and rule.status is not None:
        raise _bad("a dropped connection has no status")
    if rule.status is None and (rule.body is not None or rule.retry_after is not None):
        raise _bad("body and retry_after need a status")
    return rule


@dataclass
class _Window:
    """One key's window, opened at ``start`` on the fake's clock (datetimes, not floats:
    exact to the microsecond, so the seconds left come out whole when they are)."""

    start: datetime
    used: int = 0

    def holds(self, now: datetime) -> bool:
        """Whether ``now`` lies in this window (a clock put back lies before it)."""
        return self.start <= now < self.start + RATE_LIMIT_WINDOW


@dataclass
class Faults:
    """The fault rules and the rate-limit switch of one fake. Safe to share between threads."""

    clock: Clock
    seed: int = 0
    requests_per_minute: int | None = RATE_LIMIT_PER_MINUTE
    """The rate limit per key once switched on (the profile's); ``None``: no limit."""
    rate_limit_status: int = 429
    rate_limit_code: str | None = None
    """``extensions.code`` of the rate limit's answer; ``None``: none is invented."""
    rate_limit_message: str | None = None
    """The answer's message; ``None``: one naming the limit."""
    counts_announced: bool = False
    """Whether each key's GraphQL requests are counted while the limit is switched off (the
    profile announces its limit: a client reading ``RateLimit`` sees ``remaining`` move)."""
    _rules: list[FaultRule] = field(default_factory=list, init=False, repr=False)
    _windows: dict[str, _Window] = field(default_factory=dict, init=False, repr=False)
    _rate_limit: bool = field(default=False, init=False)
    _next_id: int = field(default=1, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        # Seeded when a rule with a probability first needs it: seeding costs more than the
        # rest of a fake's faults, and most fakes never roll.
        self._random: random.Random | None = None

    def _roll(self) -> float:
        if self._random is None:
            self._random = random.Random(self.seed)
        return self._random.random()

    def add(self, endpoint: str = "any", **spec: Any) -> FaultRule:
        """Add a rule (the fields of :class:`FaultRule`); it applies from the next request."""
        return self.add_from_json({"endpoint": endpoint, **spec}, added_at=caller_place())

    def add_from_json(self, spec: Mapping[str, Any], *, added_at: str | None = None) -> FaultRule:
        """Add a rule from its JSON form (as the control API receives it); ``added_at``
        says where (default: the first caller outside patgate, as ``file.py:line``)."""
        if not isinstance(spec, Mapping):
            raise _bad("a rule is a JSON object")
        with self._lock:
            rule = parse_rule(f"fault-{self._next_id}", spec)
            rule.added_at = added_at if added_at is not None else caller_place()
            self._next_id += 1
            self._rules.append(rule)
            return rule

    def unused(self) -> list[FaultRule]:
        """The rules still in the book that never answered a request (a rule whose
        ``count`` ran out answered, and has left the book)."""
        with self._lock:
            return [rule for rule in self._rules if rule.hits == 0]

    def remove(self, rule_id: str) -> None:
        """Remove one rule; :class:`NotFound` for an unknown id."""
        with self._lock:
            for index, rule in enumerate(self._rules):
                if rule.id == rule_id:
                    del self._rules[index]
                    return
        raise NotFound(f"no fault rule {rule_id!r}", rule_id="")

    def clear(self) -> None:
        """Remove every rule and switch the rate limit off."""
        with self._lock:
            self._rules.clear()
            self._windows.clear()
            self._rate_limit = False

    def rules(self) -> list[FaultRule]:
        """The rules, oldest first (copies: editing one changes nothing)."""
        with self._lock:
            return [FaultRule(**vars(rule)) for rule in self._rules]

    @property
    def rate_limit(self) -> bool:
        """Whether the GraphQL rate limit (:attr:`requests_per_minute` per key) is on."""
        return self._rate_limit

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit on or off; switching starts every key afresh."""
        if not isinstance(on, bool):
            raise _bad("the rate limit switch is true or false")
        with self._lock:
            self._rate_limit = on
            self._windows.clear()

    @property
    def rate_limit_windows(self) -> int:
        """How many keys' rate-limit windows are remembered (bounded by the limiter)."""
        with self._lock:
            return len(self._windows)

    def decide(self, call: CallSite) -> FaultAction | None:
        """The action for this request: the first rule that fires, then the rate limit."""
        with self._lock:
            for rule in self._rules:
                if not rule.matches(call):
                    continue
                if rule.probability < 1.0 and self._roll() >= rule.probability:
                    continue
                rule.hits += 1
                if rule.count is not None:
                    rule.count -= 1
                    if rule.count == 0:
                        self._rules.remove(rule)
                where = f" (added at {rule.added_at})" if rule.added_at else ""
                return FaultAction(
                    rule.id,
                    rule.status,
                    rule.body,
                    rule.retry_after,
                    rule.latency,
                    rule.drop,
                    f"fault rule {rule.id} answered{where}",
                )
            if (
                (self._rate_limit or self.counts_announced)
                and self.requests_per_minute is not None
                and "graphql" in call.endpoints
                and call.key is not None
            ):
                return self._count(call.key)
        return None

    def _count(self, key: str) -> FaultAction | None:
        limit = self.requests_per_minute
        assert limit is not None, "decide counts only under a limit"
        now = self.clock.now()
        window = self._windows.get(key)
        if window is None or not window.holds(now):
            self._windows.pop(key, None)  # re-inserted last: the dict stays oldest first
            self._make_room(now)
            window = self._windows[key] = _Window(now)
        window.used += 1
        if window.used <= limit or not self._rate_limit:  # counted for the announcement only
            return None
        left = window.start + RATE_LIMIT_WINDOW - now
        retry_after = max(1, math.ceil(left.total_seconds()))
        # The real body is not published; by default no extensions.code is invented for it.
        message = (
            self.rate_limit_message or f"rate limit exceeded: {limit} requests per minute per key"
        )
        error: dict[str, Any] = {"message": message}
        if self.rate_limit_code is not None:
            error["extensions"] = {"code": self.rate_limit_code}
        body = {"errors": [error]}
        why = (
            f"the GraphQL rate limit ({limit} a minute per key, switched on by the test) "
            f"refused request {window.used} of this key's minute; {retry_after} s left"
        )
        return FaultAction("rate-limit", self.rate_limit_status, body, retry_after, 0.0, False, why)

    def announced(self, key: str | None) -> tuple[tuple[str, str], ...]:
        """The ``RateLimit-Policy`` and ``RateLimit`` header fields for ``key``'s next
        answer (the profile's ``rate_limit.announce``): the limit, what is left of the key's
        window and its whole seconds to run (counted whether or not the limit is switched on);
        a key without a running window has the whole limit left and a minute. No limit: no
        fields."""
        limit = self.requests_per_minute
        if limit is None:
            return ()
        seconds = int(RATE_LIMIT_WINDOW.total_seconds())
        remaining, reset = limit, seconds
        now = self.clock.now()
        with self._lock:
            counting = self._rate_limit or self.counts_announced
            window = self._windows.get(key) if key is not None and counting else None
            if window is not None and window.holds(now):
                remaining = max(0, limit - window.used)
                left = window.start + RATE_LIMIT_WINDOW - now
                reset = max(0, math.ceil(left.total_seconds()))
        return (
            ("RateLimit-Policy", f"{limit};w={seconds}"),
            ("RateLimit", f"limit={limit}, remaining={remaining}, reset={reset}"),
        )

    def _make_room(self, now: datetime) -> None:
        """Keep fewer than :data:`_MAX_KEYS` windows: ended ones go first, then the oldest
        (whose key then starts afresh). Windows are held oldest first, so this stops at the
        first one it keeps."""
        while self._windows:
            oldest = next(iter(self._windows))
            if self._windows[oldest].holds(now) and len(self._windows) < _MAX_KEYS:
                return
            del self._windows[oldest]

    def __len__(self) -> int:
        return len(self._rules)
