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

from patgate.control.operations import (
    MAX_CLOCK_MOVE,
    MAX_DESCRIPTION,
    MAX_LOG_PAGE,
    MAX_LOG_PAGE_SIZE,
    MAX_TEXT,
    OPERATIONS,
    Operation,
    Parameter,
)
from patgate.errors import DomainError, PatgateError
from patgate.fake.views import control_view
from patgate.wire.control_service import ControlService
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.methods import with_implicit_methods
from patgate.wire.statuses import status_of
from patgate.wire.urls import CONTROL_PATH

__all__ = ["CONTROL_PREFIX", "MAX_CLOCK_MOVE", "MAX_LOG_PAGE", "MAX_LOG_PAGE_SIZE", "ControlApi"]

CONTROL_PREFIX = CONTROL_PATH
"""The reserved path under the fake's origin; no path of the real service starts with it."""

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


def _kind(parameter: Parameter) -> _Kind:
    schema = parameter.schema
    if parameter.choices or "$ref" in schema:
        return str
    return _KINDS.get(schema.get("type", ""), _ANY)


_KINDS: Mapping[str, _Kind] = {"string": str, "integer": int, "number": _NUMBER, "boolean": bool}


def _one_of(choices: tuple[str, ...]) -> str:
    return ", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else choices[0]


def _body_arguments(operation: Operation, body: _Body) -> dict[str, Any]:
    """The body checked against the operation's parameters: the call's keyword arguments."""
    taken = [p for p in operation.wire_parameters() if not p.query]
    required = {p.on_wire: _kind(p) for p in taken if p.required_on_wire or p.required}
    optional = {p.on_wire: _kind(p) for p in taken if p.on_wire not in required}
    texts = frozenset(p.on_wire for p in taken if p.text)
    _fields(body, required, optional, texts=texts)
    arguments: dict[str, Any] = {}
    for parameter in taken:
        if parameter.on_wire not in body:
            continue
        value = body[parameter.on_wire]
        if parameter.choices and value not in parameter.choices:
            message = f"{parameter.on_wire} must be {_one_of(parameter.choices)}"
            raise ControlRefusal(400, "BAD_FIELD", message)
        low, high = parameter.schema.get("minimum"), parameter.schema.get("maximum")
        if isinstance(value, float | int) and not isinstance(value, bool):
            if _kind(parameter) is int:
                value = int(value)  # 471.0 is an integer to JSON Schema
            if (low is not None and value < low) or (high is not None and value > high):
                message = parameter.refusal or f"{parameter.on_wire} must be from {low} to {high}"
                raise ControlRefusal(400, "BAD_FIELD", message)
        arguments[parameter.name] = value
    return arguments


def _query_arguments(operation: Operation, query: _Query) -> dict[str, Any]:
    """The query string's parameters of the operation, checked: keyword arguments."""
    arguments: dict[str, Any] = {}
    for parameter in operation.wire_parameters():
        if not parameter.query:
            continue
        schema = parameter.schema
        if schema.get("type") == "integer":
            default = int(schema.get("default", 0))
            low, high = int(schema["minimum"]), int(schema["maximum"])
            arguments[parameter.name] = _whole(query, parameter.on_wire, default, low, high)
            continue
        text = query.get(parameter.on_wire)
        if not text and parameter.default == "None" and "pattern" not in schema:
            continue  # an empty value asks for no filter
        if text is not None and "pattern" in schema and not re.fullmatch(schema["pattern"], text):
            message = parameter.refusal or f"{parameter.on_wire} does not fit its pattern"
            raise ControlRefusal(400, "BAD_PARAMETER", message)
        if text is not None:
            arguments[parameter.name] = text
    return arguments


def _user_named(s: ControlService, arguments: Mapping[str, Any], result: Any) -> Any:
    return control_view(s.deployment.user(arguments["user_id"]))


def _request_page(s: ControlService, arguments: Mapping[str, Any], result: Any) -> Any:
    page = {"page": arguments.get("page", 0), "size": arguments.get("size", 50)}
    return {
        **page,
        "total": result.total,
        "capacity": s.request_log.capacity,
        "requests": [entry.to_json() for entry in result.entries],
    }


_ANSWERS: Mapping[str, Callable[[ControlService, Mapping[str, Any], Any], Any]] = {
    "user": _user_named,
    "clock": lambda s, arguments, result: s.clock_view(),
    "rate_limit": lambda s, arguments, result: {"rate_limit": s.faults.rate_limit},
    "credentials": lambda s, arguments, result: dict(
        zip(("client_id", "client_secret"), result, strict=True)
    ),
    "request_page": _request_page,
}
"""The answers that are not the result's own JSON view, by the name an operation gives."""


def _call(operation: Operation, s: ControlService, arguments: dict[str, Any]) -> Any:
    made = getattr(s, operation.name)
    if not callable(made):
        return made  # a property: the fault book
    positional = [
        arguments.pop(p.name)
        for p in operation.parameters
        if not (p.keyword_only or p.extra) and p.name in arguments
    ]
    return made(*positional, **arguments)


def _route(operation: Operation) -> _Route:
    def run(s: ControlService, body: _Body, query: _Query) -> tuple[int, Any]:
        arguments = {**_body_arguments(operation, body), **_query_arguments(operation, query)}
        given = dict(arguments)
        try:
            result = _call(operation, s, arguments)
        except DomainError:
            raise
        except ValueError as error:  # a query the request log refuses
            raise ControlRefusal(400, "BAD_PARAMETER", str(error)) from None
        if operation.done is not None:
            return operation.status, {
                operation.done: given[operation.echo] if operation.echo else True
            }
        if operation.answer is not None:
            answer = _ANSWERS[operation.answer](s, given, result)
        else:
            answer = control_view(result)
        if operation.wrap is not None:
            answer = {operation.wrap: answer}
        return operation.status, answer

    return _Route(operation.method, operation.path, run)


ROUTES: tuple[_Route, ...] = tuple(_route(operation) for operation in OPERATIONS)
"""Every control operation: method, path under the prefix, and the call it makes, made from
the one declaration of each (:data:`patgate.control.operations.OPERATIONS`)."""


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
            error.answered()
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
