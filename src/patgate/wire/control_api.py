"""The HTTP control API: every :class:`ControlService` operation under ``/__patgate/``.

Served on the fake's own origin (``{origin of base_url}/__patgate``) by the in-process fake
and by ``patgate serve``, and described by ``specs/control-openapi.yaml``. Every call needs
``Authorization: Bearer <control token>``; without it the answer is 401 and nothing changes.
Bodies are JSON objects; ids travel in bodies, never in paths, because the fake's ids are
base64 and may hold ``/``. Every answer is JSON; a bad call gets a 4xx naming the problem,
shaped ``{"error": {"code": ..., "message": ...}}``.

The same mistake gets the same status and code on every operation: a body that is not a
JSON object ``BAD_JSON``, a field the operation does not take ``UNKNOWN_FIELD``, a required
one missing ``MISSING_FIELD``, a value of the wrong type, ``null``, an empty string where an
id, a name or an email goes, or a value out of bounds ``BAD_FIELD`` (a rule of the service
refusing a value, too), a query parameter out of bounds ``BAD_PARAMETER``; then 403, 404,
409 with the service's own codes. ``GET`` and ``DELETE`` read no body.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from patgate.errors import DomainError, PatgateError
from patgate.wire.control_service import (
    ControlService,
    client_view,
    hub_view,
    token_view,
    user_view,
)
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.methods import with_implicit_methods
from patgate.wire.statuses import status_of
from patgate.wire.urls import CONTROL_PATH

__all__ = ["CONTROL_PREFIX", "MAX_CLOCK_MOVE", "MAX_LOG_PAGE", "MAX_LOG_PAGE_SIZE", "ControlApi"]

CONTROL_PREFIX = CONTROL_PATH
"""The reserved path under the fake's origin; no path of the real service starts with it."""

MAX_CLOCK_MOVE = 10 * 365 * 86400
"""The largest clock move one call makes, in seconds (ten years); the spec declares it."""
MAX_LOG_PAGE = 10**6
MAX_LOG_PAGE_SIZE = 1000
"""The request log's largest page number and page size; the spec declares both."""

_STATUS_FILTER = re.compile(r"[1-5]xx|[0-9]{1,3}")
"""The request log's ``status`` filter, as the spec's pattern says (ASCII digits only)."""

_HUB_STATUSES = ("ACTIVE", "ARCHIVED")
"""A hub's statuses, as the content API shows them."""

_Body = Mapping[str, Any]
_Query = Mapping[str, str]


class ControlRefusal(PatgateError):
    """A control call the API refuses before any operation runs."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def _error(
    status: int, code: str, message: str, headers: tuple[tuple[str, str], ...] = ()
) -> WireResponse:
    return json_response(status, {"error": {"code": code, "message": message}}, headers)


_NUMBER = (int, float)
_Kind = type | tuple[type, ...]
_WHAT: Mapping[_Kind, str] = {
    str: "a string",
    int: "a whole number",
    bool: "true or false",
    _NUMBER: "a number",
}


_ANY = object
"""A field that holds any JSON value, ``null`` included (a fault rule's ``body``)."""


def _fields(
    body: _Body,
    required: Mapping[str, _Kind],
    optional: Mapping[str, _Kind],
    *,
    texts: frozenset[str] = frozenset(),
) -> None:
    """Refuse unknown fields, missing ones, and values of the wrong type; ``null`` is a value
    of no declared type (leave a field out for its default). ``texts`` are strings that must
    not be empty (ids, names, emails)."""
    unknown = sorted(set(body) - set(required) - set(optional))
    if unknown:
        known = sorted({*required, *optional})
        raise ControlRefusal(400, "UNKNOWN_FIELD", f"unknown field(s) {unknown}; known: {known}")
    for name, kind in {**required, **optional}.items():
        if name not in body:
            if name in required:
                raise ControlRefusal(400, "MISSING_FIELD", f"{name} is required")
            continue
        value = body[name]
        if kind is _ANY or (kind is int and isinstance(value, float) and value.is_integer()):
            continue  # 471.0 is an integer to JSON Schema (the caller reads it with int())
        wrong_bool = isinstance(value, bool) and kind is not bool
        if wrong_bool or not isinstance(value, kind):
            raise ControlRefusal(400, "BAD_FIELD", f"{name} must be {_WHAT.get(kind, 'valid')}")
        if name in texts and not value:
            raise ControlRefusal(400, "BAD_FIELD", f"{name} must be a non-empty string")
        limit = MAX_DESCRIPTION if name == "description" else MAX_TEXT
        if isinstance(value, str) and len(value) > limit:
            raise ControlRefusal(400, "BAD_FIELD", f"{name} is longer than {limit} characters")


_IDS = frozenset({"user_id", "organization_id", "token_id", "approver_id", "id", "name", "email"})
"""Fields that name something: an empty string names nothing and is refused."""
MAX_TEXT = 1024
"""Characters a text field may hold (a hub's ``description``: :data:`MAX_DESCRIPTION`): well
inside what ``patgate serve --state`` loads again, so nothing accepted stops a restart."""
MAX_DESCRIPTION = 65536


def _whole(query: _Query, name: str, default: int, low: int, high: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    # ASCII digits only ("" is no number; int() would also read "٣" or " 3").
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or not low <= int(text) <= high:
        raise ControlRefusal(
            400, "BAD_PARAMETER", f"{name} must be a whole number from {low} to {high}"
        )
    return int(text)


@dataclass(frozen=True)
class _Route:
    method: str
    path: str
    run: Callable[[ControlService, _Body, _Query], tuple[int, Any]]


def _reset(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {}, {})
    s.reset()
    return 200, {"reset": True}


def _snapshot(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, s.snapshot()


def _world(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, s.world_ids()


def _users(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, {"users": [user_view(u) for u in s.users()]}


def _add_user(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"name": str}, {"email": str, "role": str, "organization_id": str}, texts=_IDS)
    user = s.add_user(
        body["name"],
        body.get("email"),
        role=_role(body.get("role", "member")),
        organization_id=body.get("organization_id"),
    )
    return 201, user_view(user)


def _role(value: Any) -> str:
    if value not in ("admin", "member", "restricted"):
        raise ControlRefusal(400, "BAD_FIELD", "role must be admin, member or restricted")
    return str(value)


def _remove_user(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"user_id": str}, {"organization_id": str}, texts=_IDS)
    s.remove_user(body["user_id"], body.get("organization_id"))
    return 200, user_view(s.deployment.user(body["user_id"]))


def _restore_user(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"user_id": str}, {"organization_id": str}, texts=_IDS)
    s.restore_user(body["user_id"], body.get("organization_id"))
    return 200, user_view(s.deployment.user(body["user_id"]))


def _set_role(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"user_id": str, "role": str}, {"organization_id": str}, texts=_IDS)
    s.set_role(body["user_id"], _role(body["role"]), body.get("organization_id"))
    return 200, user_view(s.deployment.user(body["user_id"]))


def _clients(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, {"clients": [client_view(c) for c in s.clients()]}


def _add_client(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"user_id": str}, {"organization_id": str}, texts=_IDS)
    client_id, secret = s.add_client(body["user_id"], body.get("organization_id"))
    return 201, {"client_id": client_id, "client_secret": secret}


def _hubs(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, {"hubs": [hub_view(h) for h in s.hubs()]}


def _add_hub(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(
        body,
        {"name": str},
        {"label": str, "description": str, "status": str, "organization_id": str},
        texts=_IDS,
    )
    if body.get("status", "ACTIVE") not in _HUB_STATUSES:
        raise ControlRefusal(400, "BAD_FIELD", "status must be ACTIVE or ARCHIVED")
    fields = {k: body[k] for k in ("label", "description", "status") if k in body}
    hub = s.add_hub(body["name"], organization_id=body.get("organization_id"), **fields)
    return 201, hub_view(hub)


def _request_token(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"user_id": str, "name": str}, {"organization_id": str}, texts=_IDS)
    created = s.request_token_via_ui(body["user_id"], body["name"], body.get("organization_id"))
    # The one time the full value is shown, as the management UI shows it once.
    return 201, {**token_view(created.record), "value": created.value}


def _pending(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    pending = s.pending_requests(query.get("organization_id") or None)
    return 200, {"pending": [token_view(t) for t in pending]}


def _approve(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"token_id": str}, {"approver_id": str}, texts=_IDS)
    return 200, token_view(s.approve_token_request(body["token_id"], body.get("approver_id")))


def _reject(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"token_id": str}, {}, texts=_IDS)
    s.reject_token_request(body["token_id"])
    return 200, {"rejected": body["token_id"]}


def _profile(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, s.profile_document()


def _clock(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    return 200, s.clock_view()


def _advance(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"seconds": _NUMBER}, {})
    seconds = float(body["seconds"])
    if not 0 <= seconds <= MAX_CLOCK_MOVE:
        raise ControlRefusal(
            400, "BAD_FIELD", f"seconds must be from 0 to {MAX_CLOCK_MOVE} (ten years)"
        )
    s.advance_clock(seconds)
    return 200, s.clock_view()


def _requests(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    page = _whole(query, "page", 0, 0, MAX_LOG_PAGE)
    size = _whole(query, "size", 50, 1, MAX_LOG_PAGE_SIZE)
    status = query.get("status")
    if status is not None and not _STATUS_FILTER.fullmatch(status):
        raise ControlRefusal(
            400, "BAD_PARAMETER", "status must be a code such as 429 or a class such as 4xx"
        )
    try:
        found = s.requests(page, size, status=status, path=query.get("path"))
    except ValueError as error:
        raise ControlRefusal(400, "BAD_PARAMETER", str(error)) from None
    return 200, {
        "page": page,
        "size": size,
        "total": found.total,
        "capacity": s.request_log.capacity,
        "requests": [entry.to_json() for entry in found.entries],
    }


def _clear_requests(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    s.clear_requests()
    return 200, {"cleared": True}


def _faults(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    rules = [rule.to_json() for rule in s.faults.rules()]
    return 200, {"faults": rules, "rate_limit": s.faults.rate_limit}


_FAULT_FIELDS: Mapping[str, _Kind] = {
    "endpoint": str,
    "operation": str,
    "principal": str,
    "count": int,
    "probability": _NUMBER,
    "status": int,
    "body": _ANY,
    "retry_after": int,
    "latency": _NUMBER,
    "drop": bool,
}


def _add_fault(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    # Field names and types here, as every operation; the rule's own checks (bounds, which
    # fields go together) in the fault model, answered with the same code.
    _fields(body, {}, _FAULT_FIELDS, texts=frozenset({"operation", "principal"}))
    spec = {
        name: int(value) if _FAULT_FIELDS[name] is int and isinstance(value, float) else value
        for name, value in body.items()
    }
    return 201, s.faults.add_from_json(spec).to_json()


def _remove_fault(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"id": str}, {}, texts=_IDS)
    s.remove_fault(body["id"])
    return 200, {"removed": body["id"]}


def _clear_faults(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    s.clear_faults()
    return 200, {"cleared": True}


def _rate_limit(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
    _fields(body, {"enabled": bool}, {})
    s.set_rate_limit(body["enabled"])
    return 200, {"rate_limit": s.faults.rate_limit}


ROUTES: tuple[_Route, ...] = (
    _Route("POST", "/reset", _reset),
    _Route("GET", "/snapshot", _snapshot),
    _Route("GET", "/world", _world),
    _Route("GET", "/users", _users),
    _Route("POST", "/users", _add_user),
    _Route("POST", "/users/remove", _remove_user),
    _Route("POST", "/users/restore", _restore_user),
    _Route("POST", "/users/role", _set_role),
    _Route("GET", "/clients", _clients),
    _Route("POST", "/clients", _add_client),
    _Route("GET", "/hubs", _hubs),
    _Route("POST", "/hubs", _add_hub),
    _Route("GET", "/token-requests", _pending),
    _Route("POST", "/token-requests", _request_token),
    _Route("POST", "/token-requests/approve", _approve),
    _Route("POST", "/token-requests/reject", _reject),
    _Route("GET", "/profile", _profile),
    _Route("GET", "/clock", _clock),
    _Route("POST", "/clock/advance", _advance),
    _Route("GET", "/requests", _requests),
    _Route("DELETE", "/requests", _clear_requests),
    _Route("GET", "/faults", _faults),
    _Route("POST", "/faults", _add_fault),
    _Route("POST", "/faults/remove", _remove_fault),
    _Route("DELETE", "/faults", _clear_faults),
    _Route("PUT", "/rate-limit", _rate_limit),
)
"""Every control operation: method, path under the prefix, and the call it makes."""


class ControlApi:
    """A wire handler for the control API; ``None`` for any URL outside the prefix."""

    def __init__(self, service: ControlService, token: str, origin: str) -> None:
        self.service = service
        self._token = token
        self.url = origin.rstrip("/") + CONTROL_PREFIX
        """The control API's base URL: the ``control_url`` of a target file."""
        self._routes: dict[str, dict[str, _Route]] = {}
        for route in ROUTES:
            self._routes.setdefault(route.path, {})[route.method] = route

    def __call__(self, request: WireRequest) -> WireResponse | None:
        if not request.url.startswith(self.url):
            return None  # the fast path for every API request: one string comparison
        # HEAD wherever GET is served, OPTIONS with Allow (wire/methods.py).
        return with_implicit_methods(self._answer, request)

    def _answer(self, request: WireRequest) -> WireResponse | None:
        parts = urlsplit(request.url)
        path = parts.path[len(urlsplit(self.url).path) :] or "/"
        if not self._authorized(request):
            return _error(
                401,
                "CONTROL_TOKEN_REQUIRED",
                "send the control token as 'Authorization: Bearer <control_token>'",
                (("WWW-Authenticate", 'Bearer realm="patgate-control"'),),
            )
        methods = self._routes.get(path.rstrip("/") or "/")
        if methods is None:
            known = ", ".join(f"{r.method} {CONTROL_PREFIX}{r.path}" for r in ROUTES)
            return _error(404, "NOT_FOUND", f"no control operation here; there are: {known}")
        route = methods.get(request.method)
        if route is None:
            allow = ", ".join(sorted(methods))
            return _error(
                405, "METHOD_NOT_ALLOWED", f"this answers {allow} only", (("Allow", allow),)
            )
        try:
            # GET and DELETE read no body; a query's empty value is kept, to be judged.
            body = _json_body(request) if route.method in ("POST", "PUT") else {}
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            status, answer = route.run(self.service, body, query)
        except ControlRefusal as refusal:
            return _error(refusal.status, refusal.code, str(refusal))
        except DomainError as error:
            status = status_of(error)
            # A rule refusing a value sent is the same mistake as a bad field, whichever
            # operation it came through; 403, 404 and 409 keep the service's codes.
            code = "BAD_FIELD" if status == 400 else error.code
            return _error(status, code, error.message)
        return json_response(status, answer)

    def _authorized(self, request: WireRequest) -> bool:
        values = request.header_values("authorization")
        if len(values) != 1:
            return False
        scheme, _, credential = values[0].strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            credential.strip().encode("utf-8", "surrogatepass"), self._token.encode("utf-8")
        )


def _json_body(request: WireRequest) -> _Body:
    if not request.body.strip():
        return {}
    try:
        body = json.loads(request.body)
    except (ValueError, RecursionError):
        raise ControlRefusal(400, "BAD_JSON", "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise ControlRefusal(400, "BAD_JSON", "the body must be a JSON object")
    return body
