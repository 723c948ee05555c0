"""Reading a probe's answers: plain functions over parsed bodies, and the refusal recorders.

A timestamp's precision and UTC offset, a masked token's parts, the order a listing shows,
a bounded search, and how a refusal is recorded: its status, its code, its wording per
operation (``refusal_messages.<operation>.<kind>``) and, for the content API, its format.
Values are never recorded here except a refusal's own wording (redacted by the recorder).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from patgate.calibration.fields import CREATE, DELETE, HUBS, TOKEN_REQUEST, VIEWER
from patgate.runner.model import Observed

if TYPE_CHECKING:
    from patgate.calibration.probing import Probing

__all__ = [
    "CREATE",
    "DELETE",
    "HUBS",
    "TOKEN_REQUEST",
    "VIEWER",
    "at",
    "bounded_search",
    "content_message",
    "describe_order",
    "first_error",
    "mask",
    "offset",
    "precision",
    "record_content_refusal",
    "record_refusal",
]


SEARCH_STEPS = 12
"""Requests (or creates) a bounded search may spend."""
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(Z|[+-]00:?00)$")
_PRECISION = {0: "seconds", 3: "milliseconds", 6: "microseconds"}
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
PROBLEM_JSON = "application/problem+json"


def at(body: Any, *path: str) -> Any:
    """``body[path[0]][path[1]]...``, or ``None`` where a step is not an object's key."""
    for step in path:
        if not isinstance(body, dict):
            return None
        body = body.get(step)
    return body


def first_error(observed: Observed) -> dict[str, Any] | None:
    """A GraphQL answer's first error object, if it has one."""
    errors = at(observed.body, "errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return errors[0]
    return None


def precision(value: Any) -> str | None:
    """``milliseconds``/``seconds``/... of an ISO 8601 UTC timestamp, ``None`` if not one."""
    if not isinstance(value, str):
        return None
    match = _TIMESTAMP.match(value)
    if match is None:
        return None
    digits = len(match.group(1) or "")
    return _PRECISION.get(digits, f"{digits} fractional digits")


def offset(value: Any) -> str | None:
    """How an ISO 8601 UTC timestamp names UTC (``Z``, ``+00:00``, ...), ``None`` if not one."""
    if not isinstance(value, str):
        return None
    match = _TIMESTAMP.match(value)
    return match.group(2) if match is not None else None


def mask(token: str, prefix: str) -> tuple[int, str, int] | None:
    """``(visible characters, mask character, mask width)`` of a masked token, or ``None``
    when ``token`` ends in no run of a character tokens never hold (it is not masked)."""
    if not token.startswith(prefix):
        return None
    rest = token[len(prefix) :]
    end = len(rest)
    if not end or rest[-1] in _TOKEN_CHARS:
        return None
    char = rest[-1]
    start = end
    while start and rest[start - 1] == char:
        start -= 1
    return start, char, end - start


def describe_order(tokens: Sequence[Mapping[str, Any]], made: Sequence[str]) -> str | None:
    """The listing order ``tokens`` show for the ids ``made`` (in creation order); the
    probe names them so that name order is neither creation order nor its reverse."""
    positions = {t.get("id"): i for i, t in enumerate(tokens)}
    if any(i not in positions for i in made):
        return None
    shown = sorted(made, key=lambda i: positions[i])
    names = {t.get("id"): str(t.get("name")) for t in tokens}
    if shown == list(made):
        return "created_ascending"
    if shown == list(reversed(made)):
        return "created_descending"
    if shown == sorted(made, key=lambda i: names[i]):
        return "name_ascending"
    if shown == sorted(made, key=lambda i: names[i], reverse=True):
        return "name_descending"
    return "other"


def bounded_search(
    accepts: Callable[[int], bool | None], good: int, bad: int, steps: int = SEARCH_STEPS
) -> int | None:
    """The largest value ``accepts`` takes, between ``good`` (taken) and ``bad`` (refused),
    in at most ``steps`` calls; ``None`` when an answer said neither."""
    for _ in range(steps):
        if bad - good <= 1:
            return good
        middle = (good + bad) // 2
        verdict = accepts(middle)
        if verdict is None:
            return None
        if verdict:
            good = middle
        else:
            bad = middle
    return good if bad - good <= 1 else None


def record_refusal(
    probing: Probing, kind: str, observed: Observed, request: str, operation: str
) -> None:
    """Record a GraphQL refusal of ``kind`` met by ``operation``: its HTTP status, its code
    (``refusals.<kind>.code``, the first error's ``extensions.code``) and its wording
    (``refusal_messages.<operation>.<kind>``: per operation, so one operation's wording never
    stands for another's). The status of a refusal inside an executed request is
    ``graphql_refusal_status.<kind>`` (200 on a deployment that answers errors in a 200)."""
    prefix = f"refusals.{kind}"
    message_field = f"refusal_messages.{operation}.{kind}"
    if kind != "unauthenticated":
        probing.found(f"graphql_refusal_status.{kind}", observed.status, request)
    else:
        probing.found(f"{prefix}.status", observed.status, request)
    error = first_error(observed)
    if error is None:
        probing.missed((f"{prefix}.code", message_field), "the answer held no error")
        return
    code = at(error, "extensions", "code")
    probing.found(f"{prefix}.code", code if isinstance(code, str) else None, request)
    message = error.get("message")
    if isinstance(message, str):
        probing.found(message_field, message, request)
    else:
        probing.missed((message_field,), "the error carries no message")


def content_message(observed: Observed) -> str | None:
    """A content API refusal's wording: ``detail`` of a problem document, else the first
    error's ``message`` (``None`` when it carries neither)."""
    body = observed.body
    if content_format(observed) == "problem+json":
        detail = at(body, "detail")
        return detail if isinstance(detail, str) else None
    errors = at(body, "errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        message = errors[0].get("message")
        return message if isinstance(message, str) else None
    message = at(body, "message")
    return message if isinstance(message, str) else None


def content_format(observed: Observed) -> str:
    """``problem+json`` for an ``application/problem+json`` answer, else ``json``."""
    media = observed.headers.get("content-type", "").split(";")[0].strip().lower()
    return "problem+json" if media == PROBLEM_JSON else "json"


def record_content_refusal(
    probing: Probing,
    kind: str,
    observed: Observed,
    request: str,
    operation: str,
    *,
    records_status: bool = True,
) -> bool:
    """Record a content API refusal (a 4xx) of ``kind``, met by ``operation`` (``hubs`` or
    ``hub``): ``refusals.<kind>.status``, the refusal's format (``content_errors.format``)
    and its wording (``refusal_messages.<operation>.<kind>``). ``False`` when the answer
    was no refusal (each field is then missed, with the status it got)."""
    fields = (f"refusals.{kind}.status", f"refusal_messages.{operation}.{kind}")
    if not 400 <= observed.status < 500:
        probing.missed(fields, f"{request} was answered HTTP {observed.status}")
        return False
    if records_status:  # the GraphQL refusal of this kind holds the status otherwise
        probing.found(fields[0], observed.status, request)
    probing.found("content_errors.format", content_format(observed), request)
    message = content_message(observed)
    if message is None:
        probing.missed(fields[1:], "the refusal carries no message")
    else:
        probing.found(fields[1], message, request)
    return True
