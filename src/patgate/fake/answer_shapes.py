"""The shapes of answers: the recorder, the renderer and the differ, in one place.

A **shape** records what an answer looks like and never its values (``docs/profile.md``,
"Shapes"): the status, the media type, the names of the meaningful headers, and the body as
a NODE::

    {"type": "object", "keys": {"token_type": {"type": "string", "form": "text"}}}

:func:`shape_of` records a JSON value's NODE (a string's ``form``: ``text``, ``uri``,
``uri-template``, ``jwt`` or ``date-time/<seconds|milliseconds|microseconds>/<Z|+00:00>``);
:func:`answer_shape_of` records a whole answer. :func:`shape_differences` names each
difference between two answer shapes by a dotted path (``body.keys.token_type: absent``),
the names ``patgate compare`` reports and a profile's ``accepted`` list quotes.
:func:`render` writes a value through a NODE: a key the shape lacks is omitted, a key only
the shape has is served with its ``sample``, a date string is written in the shape's form.

Standard library only: the fake's wire layer renders through it on every shaped answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from patgate.basics.token_grammar import JWT_SHAPE

__all__ = [
    "ABSENT",
    "DATE_OFFSETS",
    "DATE_PRECISIONS",
    "MEANINGFUL_HEADERS",
    "ShapeDifference",
    "answer_shape_of",
    "date_form",
    "form_of",
    "format_date",
    "render",
    "renderer",
    "shape_differences",
    "shape_of",
]

DATE_PRECISIONS = ("seconds", "milliseconds", "microseconds")
"""The precisions a date-time form names, by fractional digits: 0, 3, 6."""
DATE_OFFSETS = ("Z", "+00:00")
"""How a date-time form names UTC."""
MEANINGFUL_HEADERS = ("ratelimit", "ratelimit-policy", "retry-after", "www-authenticate", "link")
"""Headers a shape records (lower case); others (dates, lengths, ids) are transport noise.
Any header named ``RateLimit-*`` or ``X-RateLimit-*`` counts too."""

_DIGITS_PRECISION = {0: "seconds", 3: "milliseconds", 6: "microseconds"}
_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$", re.ASCII
)
ABSENT = "absent"
"""A shape difference's detail when the actual answer lacks what the expected one has."""
_URI = re.compile(r"^[a-z][a-z0-9+.-]*:[^\s]+$", re.ASCII | re.IGNORECASE)
"""An absolute URI (RFC 3986: a scheme, a colon, no white space): ``https://...``,
``about:blank``, ``urn:...``."""
_TEMPLATE_EXPRESSION = re.compile(r"\{[+#./;?&]?[A-Za-z0-9_.,*:%]+\}", re.ASCII)


def date_form(precision: str, offset: str) -> str:
    """The form of a date-time string: ``date-time/<precision>/<offset>``."""
    return f"date-time/{precision}/{offset}"


def form_of(text: str) -> str:
    """A string's form: a date-time in UTC with 0, 3 or 6 fractional digits, a JWT, an
    http(s) URI or URI template, else ``text`` (any other date-time is text too)."""
    date = _DATE_TIME.match(text)
    if date is not None:
        precision = _DIGITS_PRECISION.get(len(date.group(1) or ""))
        offset = date.group(2)
        if precision is not None and offset in DATE_OFFSETS:
            return date_form(precision, offset)
        return "text"
    if JWT_SHAPE.fullmatch(text):
        return "jwt"
    if _URI.match(text):
        return "uri-template" if _TEMPLATE_EXPRESSION.search(text) else "uri"
    return "text"


def shape_of(value: Any) -> dict[str, Any]:
    """The NODE of a JSON value: its type, an object's keys, an array's items, a string's
    form; never a value. An array's items merge into one NODE (an object's keys are the
    union; a ``null`` item yields to a typed one), an empty array has no ``items``."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string", "form": form_of(value)}
    if isinstance(value, Mapping):
        return {"type": "object", "keys": {str(key): shape_of(item) for key, item in value.items()}}
    if isinstance(value, (list, tuple)):
        node: dict[str, Any] = {"type": "array"}
        items = [shape_of(item) for item in value]
        if items:
            merged = items[0]
            for other in items[1:]:
                merged = _merged(merged, other)
            node["items"] = merged
        return node
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    if first["type"] == "null":
        return second
    if second["type"] != first["type"]:
        return first
    if first["type"] == "object":
        keys = dict(first["keys"])
        for name, node in second["keys"].items():
            keys[name] = _merged(keys[name], node) if name in keys else node
        return {"type": "object", "keys": keys}
    if first["type"] == "array" and "items" in second:
        items = _merged(first["items"], second["items"]) if "items" in first else second["items"]
        return {"type": "array", "items": items}
    return first


def _meaningful(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in MEANINGFUL_HEADERS
        or lowered.startswith("ratelimit-")
        or lowered.startswith("x-ratelimit-")
    )


def answer_shape_of(
    status: int, content_type: str | None, header_names: Iterable[str], body: Any
) -> dict[str, Any]:
    """The shape of one answer: status, media type (parameters dropped), the meaningful
    headers' names (:data:`MEANINGFUL_HEADERS`, in the order given, once each), the body's
    NODE (a body that is not JSON: pass ``None`` and no ``body`` is recorded)."""
    shape: dict[str, Any] = {"status": status}
    if content_type:
        shape["content_type"] = content_type.split(";", 1)[0].strip().lower()
    names: dict[str, str] = {}
    for name in header_names:
        if _meaningful(name):
            names.setdefault(name.lower(), name)
    shape["headers"] = list(names.values())
    if body is not None:
        shape["body"] = shape_of(body)
    return shape


@dataclass(frozen=True)
class ShapeDifference:
    """One difference between an expected and an actual shape."""

    path: str
    """Dotted, from the answer's top: ``body.keys.token_type``, ``status``,
    ``headers.RateLimit``."""
    detail: str
    """``absent``, ``extra (string)``, ``extra``, or ``<expected> -> <actual>``."""

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def shape_differences(
    expected: Mapping[str, Any], actual: Mapping[str, Any]
) -> list[ShapeDifference]:
    """Each difference between two answer shapes, by dotted path, in a stable order: status,
    content_type, headers (case-insensitive names), then the body's NODEs. A part one side
    does not record (no ``status``, an array without ``items``) is not compared."""
    found: list[ShapeDifference] = []
    for part in ("status", "content_type"):
        if part in expected and part in actual and expected[part] != actual[part]:
            found.append(ShapeDifference(part, f"{expected[part]} -> {actual[part]}"))
    if "headers" in expected and "headers" in actual:
        wanted = {name.lower(): name for name in expected["headers"]}
        present = {name.lower(): name for name in actual["headers"]}
        found.extend(
            ShapeDifference(f"headers.{name}", ABSENT)
            for lowered, name in wanted.items()
            if lowered not in present
        )
        found.extend(
            ShapeDifference(f"headers.{name}", "extra")
            for lowered, name in present.items()
            if lowered not in wanted
        )
    if "body" in expected and "body" in actual:
        found.extend(node_differences(expected["body"], actual["body"], "body"))
    return found


def node_differences(
    expected: Mapping[str, Any], actual: Mapping[str, Any], path: str
) -> list[ShapeDifference]:
    """Each difference between two NODEs below ``path``."""
    if expected.get("type") != actual.get("type"):
        return [ShapeDifference(f"{path}.type", f"{expected.get('type')} -> {actual.get('type')}")]
    found: list[ShapeDifference] = []
    if "form" in expected and "form" in actual and expected["form"] != actual["form"]:
        found.append(ShapeDifference(f"{path}.form", f"{expected['form']} -> {actual['form']}"))
    wanted, present = expected.get("keys"), actual.get("keys")
    if wanted is not None and present is not None:
        for name, node in wanted.items():
            where = f"{path}.keys.{name}"
            if name not in present:
                found.append(ShapeDifference(where, ABSENT))
            else:
                found.extend(node_differences(node, present[name], where))
        found.extend(
            ShapeDifference(f"{path}.keys.{name}", f"extra ({node.get('type')})")
            for name, node in present.items()
            if name not in wanted
        )
    if "items" in expected and "items" in actual:
        found.extend(node_differences(expected["items"], actual["items"], f"{path}.items"))
    return found


def format_date(moment: datetime, precision: str, offset: str) -> str:
    """``moment`` in UTC, ISO 8601, with ``precision``'s fractional digits and ``offset``
    (``Z`` or ``+00:00``)."""
    if moment.tzinfo is not timezone.utc:
        moment = moment.astimezone(timezone.utc)
    return moment.replace(tzinfo=None).isoformat(timespec=precision) + offset


def _parsed_date(text: str) -> datetime | None:
    if _DATE_TIME.match(text) is None:
        return None
    # fromisoformat reads a trailing Z only from Python 3.11; 3 or 6 digits only before.
    head, _, tail = text.partition(".")
    if tail:
        digits = re.match(r"\d+", tail)
        fraction = digits.group(0) if digits else ""
        text = f"{head}.{(fraction + '000000')[:6]}{tail[len(fraction) :]}"
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def render(value: Any, node: Mapping[str, Any]) -> Any:
    """``value`` written through ``node``: an object keeps the keys the NODE lists (in the
    value's order), then each key only the NODE has and gives a ``sample`` for; an array's
    items go through ``items``; a date-time string takes the NODE's form. A NODE without
    ``keys`` or ``items`` leaves that part as it is; a value of another type than the
    NODE's is served as it is (the fake does not invent values)."""
    return renderer(node)(value)


Render = Callable[[Any], Any]

_MAX_RENDERERS = 256
_renderers: dict[int, tuple[Mapping[str, Any], Render]] = {}
"""NODE (by identity, kept alive beside its renderer) -> its compiled renderer: a profile's
shapes are compiled once, so an answer costs one call per key it has to change."""


def _same(value: Any) -> Any:
    return value


def renderer(node: Mapping[str, Any]) -> Render:
    """The compiled :func:`render` of ``node`` (kept while ``node`` is)."""
    kept = _renderers.get(id(node))
    if kept is not None and kept[0] is node:
        return kept[1]
    compiled = _compile(node)
    if len(_renderers) >= _MAX_RENDERERS:
        _renderers.clear()
    _renderers[id(node)] = (node, compiled)
    return compiled


def _compile(node: Mapping[str, Any]) -> Render:
    kind = node.get("type")
    if kind == "object" and node.get("keys") is not None:
        return _object_renderer(node["keys"])
    if kind == "array" and node.get("items") is not None:
        each = _compile(node["items"])
        if each is _same:
            return _same
        return lambda value: [each(item) for item in value] if isinstance(value, list) else value
    form = node.get("form", "")
    if kind == "string" and form.startswith("date-time/"):
        _, precision, offset = form.split("/", 2)

        def date(value: Any) -> Any:
            return _rewritten(value, precision, offset) if isinstance(value, str) else value

        return date
    return _same


def _object_renderer(keys: Mapping[str, Any]) -> Render:
    children = {name: _compile(child) for name, child in keys.items()}
    changed = {name: child for name, child in children.items() if child is not _same}
    samples = tuple((name, child["sample"]) for name, child in keys.items() if "sample" in child)
    names = frozenset(keys)
    if not changed and not samples:

        def kept(value: Any) -> Any:
            # Nothing below to rewrite or add: only keys to leave out, if any.
            if type(value) is not dict or value.keys() <= names:
                return value
            return {name: item for name, item in value.items() if name in names}

        return kept

    def shown(value: Any) -> Any:
        if type(value) is not dict:
            return value
        out = {}
        for name, item in value.items():
            if name in names:
                child = changed.get(name)
                out[name] = item if child is None else child(item)
        for name, sample in samples:
            if name not in value:
                out[name] = sample
        return out

    return shown


@functools.lru_cache(maxsize=4096)
def _rewritten(text: str, precision: str, offset: str) -> str:
    """A date-time string in another form (a string that is no date-time: as it is)."""
    moment = _parsed_date(text)
    return text if moment is None else format_date(moment, precision, offset)
