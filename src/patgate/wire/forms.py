"""Strict ``application/x-www-form-urlencoded`` decoding (bodies, query strings, Basic parts).

Python's ``parse_qsl`` is lenient: it keeps ``%zz`` as text, replaces invalid UTF-8 and lets
a parameter repeat. The token endpoint must refuse all of these (RFC 6749 3.2: parameters
MUST NOT repeat), so this decoder raises :class:`~patgate.errors.InvalidRequest` instead.
An empty-valued parameter is dropped, as if omitted (RFC 6749 3.1).
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, unquote_to_bytes

from patgate.errors import InvalidRequest

__all__ = ["MAX_PARAMETERS", "decode_component", "parameter_names", "parse_form"]

MAX_PARAMETERS = 64
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _refuse(message: str) -> InvalidRequest:
    return InvalidRequest(message, rule_id="TOKEN-ERROR-BODY")


def decode_component(text: str, what: str = "the form") -> str:
    """One form-encoded name or value, decoded; ``+`` is a space."""
    if "%" not in text and "+" not in text:
        if "\x00" in text:
            raise _refuse(f"{what} holds a NUL character")
        return text
    if _BAD_ESCAPE.search(text):
        raise _refuse(f"{what} holds a malformed percent-escape")
    try:
        decoded = unquote_to_bytes(text.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(f"{what} is not valid UTF-8") from None
    if "\x00" in decoded:
        raise _refuse(f"{what} holds a NUL character")
    return decoded


def parse_form(
    data: bytes | str, what: str = "the form", *, keep_blank: bool = False
) -> dict[str, str]:
    """Decode a form into ``{name: value}``; empty values are dropped as omitted, or kept
    as ``""`` with ``keep_blank`` (a query whose ``page=`` must be judged, not ignored).

    Raises ``InvalidRequest`` for invalid UTF-8, a bad escape, a NUL, more than
    ``MAX_PARAMETERS`` fields, or a name given twice (even once empty).
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse(f"{what} is not valid UTF-8") from None
    else:
        text = data
    fields = [part for part in text.split("&") if part]
    if len(fields) > MAX_PARAMETERS:
        raise _refuse(f"{what} has more than {MAX_PARAMETERS} parameters")
    seen: set[str] = set()
    result: dict[str, str] = {}
    for part in fields:
        raw_name, _, raw_value = part.partition("=")
        name = decode_component(raw_name, what)
        if name in seen:
            raise _refuse(f"a parameter of {what} is given more than once")
        seen.add(name)
        value = decode_component(raw_value, what)
        if value or keep_blank:
            result[name] = value
    return result


_NO_NAMES: frozenset[str] = frozenset()


def parameter_names(query: str) -> frozenset[str]:
    """The decoded names of a query string's parameters, read leniently (nothing is refused).

    For spotting a credential sent in the URL: ``access%5Ftoken`` is ``access_token`` too.
    """
    if not query:
        return _NO_NAMES
    return frozenset(unquote_plus(part.partition("=")[0]) for part in query.split("&") if part)
