"""What a step of a run produces: an HTTP answer, a control action's result, or a wait.

Checks, captures, the custodian and the fuzzer read an :class:`Observed` HTTP answer. A
control action yields a :class:`ControlResult` and a wait a :class:`WaitResult`: neither is
an HTTP answer, and code tells them apart by type. A control result's values can be
captured (``request_token`` answers the id and the token) and checked through
:meth:`ControlResult.as_answer`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_INT_DIGITS",
    "NOT_JSON",
    "ControlResult",
    "Observed",
    "Sent",
    "StepResult",
    "WaitResult",
]

NOT_JSON: Any = type("NotJson", (), {"__repr__": lambda self: "<not JSON>"})()
"""The body of an :class:`Observed` response that is not JSON."""
MAX_INT_DIGITS = 40
"""The most digits an integer of an answer keeps as an ``int``."""


def _bounded_int(digits: str) -> int | float:
    return int(digits) if len(digits) <= MAX_INT_DIGITS else float(digits)


@dataclass(frozen=True)
class Sent:
    """The request behind an :class:`Observed` answer, as it went out (not yet redacted)."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""


@dataclass(frozen=True)
class Observed:
    """An HTTP answer as the runner sees it. Header names are lower-case; ``body`` is
    parsed JSON or :data:`NOT_JSON`. ``kind`` is the step kind that sent the request."""

    status: int
    text: str
    headers: Mapping[str, str] = field(default_factory=dict)
    kind: str = "http"
    sent: Sent | None = field(default=None, compare=False, repr=False)
    """The request that got this answer (for a failure's report), when known."""

    @functools.cached_property
    def body(self) -> Any:
        """The body parsed as JSON, or :data:`NOT_JSON`. An integer of more than
        :data:`MAX_INT_DIGITS` digits is read as a float (``inf`` when out of range): no
        answer of this API holds one, and turning thousands of digits into an ``int`` (and
        back into text for a message) costs time quadratic in their number."""
        try:
            return json.loads(self.text, parse_int=_bounded_int) if self.text else NOT_JSON
        except (ValueError, RecursionError):
            # RecursionError: nesting deeper than the parser's stack, which an answer can be.
            return NOT_JSON

    @classmethod
    def of_json(cls, status: int, body: Any, kind: str = "http") -> Observed:
        """An answer holding ``body`` as JSON (tests, and :meth:`ControlResult.as_answer`)."""
        return cls(status, json.dumps(body), {"content-type": "application/json"}, kind)

    def summary(self) -> str:
        """``HTTP 403: {"errors": ...}``. Not shortened: the runner redacts, then shortens."""
        return f"HTTP {self.status}: {self.text}"


@dataclass(frozen=True)
class ControlResult:
    """What a control action did: ``ok`` with the values it reports, or refused with why."""

    action: str
    ok: bool
    values: Mapping[str, Any] = field(default_factory=dict)
    """What the action reports (``request_token``: ``id``, ``name``, ``token``, ``status``)."""
    message: str = ""
    """Why it was refused."""
    code: str = ""
    """The refusal's machine-readable code, when the deployment gave one."""

    @property
    def body(self) -> Any:
        """The values, where captures look."""
        return dict(self.values) if self.ok else {"errors": [self._error()]}

    @property
    def text(self) -> str:
        """The result as JSON text (what a leak scan reads)."""
        return json.dumps(self.body)

    def _error(self) -> dict[str, str]:
        return {"message": self.message, **({"code": self.code} if self.code else {})}

    def summary(self) -> str:
        """The result for messages: its values, or the refusal."""
        return self.text

    def as_answer(self) -> Observed:
        """The result as checks see it: 200 with the values, or 400 with the refusal."""
        return Observed.of_json(200 if self.ok else 400, self.body, "control")


@dataclass(frozen=True)
class WaitResult:
    """A wait that was done (the fake's clock moved, or the run slept)."""

    seconds: float

    @property
    def body(self) -> Any:
        """What captures see: ``{"waited": seconds}``."""
        return {"waited": self.seconds}

    def summary(self) -> str:
        """``waited 5 s``."""
        return f"waited {self.seconds:g} s"

    def as_answer(self) -> Observed:
        """The wait as checks see it: a 200 with ``{"waited": seconds}``."""
        return Observed.of_json(200, self.body, "wait")


StepResult = Observed | ControlResult | WaitResult
"""What one step produced."""
