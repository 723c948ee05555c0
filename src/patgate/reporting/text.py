"""Text made safe to show: control characters become visible escapes.

Event values can hold whatever a deployment answered. A raw escape sequence would restyle
a terminal, and XML 1.0 forbids most control characters outright, so every reporter that
writes text for people or for XML passes it through :func:`printable` first.
"""

from __future__ import annotations

import re

__all__ = ["indent_block", "printable"]

# C0 controls except tab and newline, DEL, C1 controls, the line separators, the
# bidirectional overrides (they reorder what a reader sees), lone surrogates (from
# surrogateescape decoding) and the two non-characters XML 1.0 also forbids.
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with each control character shown as its escape (``\\x1b``, ``\\r``).

    Tabs and newlines stay as they are; everything else printable is unchanged.
    """
    return _UNPRINTABLE.sub(_escape, text)


def indent_block(text: str, prefix: str) -> str:
    """``text`` with ``prefix`` before every line, so a multi-line value stays in its column."""
    return "\n".join(prefix + line for line in text.splitlines() or [""])
