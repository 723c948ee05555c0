r"""The forms a secret value takes on the wire and in JSON, and the forms a text reads as
once decoded: what :class:`patgate.guards.redaction.Redactor` looks for besides the value itself.

Every function here is linear in its input (a pattern built for values is compiled once per
set of values by the redactor).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote, unquote_plus

__all__ = [
    "DECODING_ERRORS",
    "ENCODING_ERRORS",
    "ESCAPE_HINTS",
    "derived_forms",
    "escaped_pattern",
    "unescaped_forms",
    "utf8",
]

_MIN_BASE64_CORE = 8
"""A value's base64 inside longer base64 text is matched by its middle characters only when
there are at least this many (fewer would match ordinary text)."""
ENCODING_ERRORS = "surrogatepass"
"""How a value is encoded: one parsed from JSON may hold a lone surrogate (``"\ud800"``),
which strict UTF-8 refuses."""
DECODING_ERRORS = "surrogateescape"
"""How a text's escapes are decoded: a hostile one (``%ff``) must not raise, and each byte
that is no UTF-8 stays apart."""
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\/")
"""A JSON escape that may stand for a token's character (``\\"`` and ``\\\\`` cannot)."""
ESCAPE_HINTS = ("\\", "%", "+")
"""Characters without which a text holds no escaped form of a value."""


def utf8(value: str) -> bytes:
    """``value`` in UTF-8, a lone surrogate kept."""
    return value.encode("utf-8", ENCODING_ERRORS)


def derived_forms(value: str) -> set[str]:
    """``value`` and the forms it takes on the wire and in JSON: URL-encoded, JSON-escaped,
    in base64 (standard and URL-safe, with and without padding), and the middle of its
    base64 at each byte alignment (what shows inside the base64 of a longer text)."""
    forms = {
        value,
        quote(value, safe="", errors=ENCODING_ERRORS),
        quote_plus(value, errors=ENCODING_ERRORS),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
    }
    raw = utf8(value)
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms.update({whole, whole.rstrip("=")})
        for shift in (1, 2):
            encoded = encode(b"\0" * shift + raw).decode("ascii")
            # Characters fully made of the value's bits: after the shifted bytes' share,
            # before the last group (which mixes in whatever follows).
            start = -(-shift * 8 // 6)
            end = (shift + len(raw)) * 8 // 6
            core = encoded[start:end]
            if len(core) >= _MIN_BASE64_CORE:
                forms.add(core)
        core = whole[: len(raw) * 8 // 6]
        if len(core) >= _MIN_BASE64_CORE:
            forms.add(core)
    forms.discard("")
    return forms


def _json_unescaped(text: str) -> str:
    """``text`` with each JSON ``\\uXXXX`` (a surrogate pair as one character) and ``\\/``
    decoded; linear in the text."""

    def decoded(match: re.Match[str]) -> str:
        return chr(int(match[1], 16)) if match[1] else "/"

    plain = _JSON_ESCAPE.sub(decoded, text)
    # Pairs written as two escapes become one character; a lone surrogate stays.
    return plain.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def unescaped_forms(text: str) -> tuple[str, ...]:
    """What ``text`` reads as once its JSON escapes, its URL escapes, or both are decoded
    (``+`` for a space, or kept): each form a value or a token may hide behind."""
    json_plain = _json_unescaped(text) if "\\" in text else text
    forms = {json_plain, unquote(json_plain, errors=DECODING_ERRORS)}
    if "+" in json_plain:
        forms.add(unquote_plus(json_plain, errors=DECODING_ERRORS))
    forms.discard(text)
    return tuple(forms)


def _escaped_char(char: str) -> str:
    """A pattern for ``char`` as itself or escaped: JSON (``\\uXXXX``, ``\\/``, ``\\"``)
    or URL (``%XX`` in either case, ``+`` for a space)."""
    code = ord(char)
    if code < 0x10000:
        json_escape = f"\\\\u{code:04x}"
    else:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        json_escape = f"\\\\u{high:04x}\\\\u{low:04x}"
    url = "".join(f"%{byte:02x}" for byte in utf8(char))
    alternatives = [re.escape(char), f"(?i:{json_escape}|{url})"]
    if char in '/"\\':
        alternatives.append(re.escape("\\" + char))
    if char == " ":
        alternatives.append(r"\+")
    return "(?:" + "|".join(alternatives) + ")"


def escaped_pattern(values: Iterable[str]) -> re.Pattern[str]:
    """One pattern matching each of ``values`` with any of its characters escaped."""
    ordered = sorted(values, key=len, reverse=True)  # a value never survives as a tail
    return re.compile("|".join("".join(_escaped_char(c) for c in value) for value in ordered))
