"""Text made safe to show: control characters become visible escapes.

Event values can hold whatever a deployment answered. A raw escape sequence would restyle
a terminal, and XML 1.0 forbids most control characters outright, so every reporter that
writes text for people or for XML passes it through :func:`printable` first; text printed
where a GitHub runner reads workflow commands goes through :mod:`patgate.guards.untrusted_text`,
which owns both.
"""

from __future__ import annotations

from patgate.guards.untrusted_text import printable

__all__ = ["indent_block", "printable"]


def indent_block(text: str, prefix: str) -> str:
    """``text`` with ``prefix`` before every line, so a multi-line value stays in its column."""
    return "\n".join(prefix + line for line in text.splitlines() or [""])
