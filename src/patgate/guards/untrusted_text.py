"""Untrusted text printed where a GitHub Actions runner reads workflow commands.

A runner reads every line a step prints, on stdout and stderr, for workflow commands: a line
that starts (after leading whitespace) with ``::name props::data``, and the legacy
``##[name props]data`` anywhere in a line. What a target answers, and what a scenario file,
a profile or a waivers file holds, is not patgate's to trust: printed as it is, one such
line sets a step output, adds a mask, forges an annotation, or stops the processing of
patgate's own annotations (``::stop-commands::``). Every place that prints such text goes
through this module:

- :func:`safe_text`: the text with control characters as visible escapes (:func:`printable`)
  and no line of it a command: every line break but ``\\n`` (CR, VT, FF, NEL, U+2028,
  U+2029, ...) is an escape, ``##[`` becomes ``#\\x23[``, a leading ``::`` becomes
  ``\\x3a:``; :func:`one_line` escapes ``\\n`` too.
- :func:`annotation_data`, :func:`annotation_property`: GitHub's documented escapes for the
  message and the properties of patgate's own ``::error`` / ``::warning`` lines.
- :func:`markdown_text`: text for the Markdown step summary, on one line, its markup inert.
- :func:`commands_stopped`: on a runner (``GITHUB_ACTIONS=true``), a block printed between
  ``::stop-commands::TOKEN`` and ``::TOKEN::`` (a fresh random token), so the runner reads
  no command inside it; patgate prints its own annotations outside such blocks.
- :func:`print_untrusted`: print text through :func:`safe_text`.

The escapes hold without ``GITHUB_ACTIONS`` too: a container or a script may hide the
variable from patgate while the runner still reads what it prints.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import sys
from collections.abc import Iterator, Mapping
from typing import TextIO

__all__ = [
    "annotation_data",
    "annotation_property",
    "commands_stopped",
    "markdown_text",
    "on_github",
    "one_line",
    "print_untrusted",
    "printable",
    "safe_text",
]

# C0 controls except tab and newline, DEL, C1 controls, the line separators, the
# bidirectional overrides (they reorder what a reader sees), lone surrogates (from
# surrogateescape decoding) and the two non-characters XML 1.0 also forbids. Every line
# break str.splitlines knows but "\n" is among them (CR, VT, FF, FS, GS, RS, NEL, U+2028/9).
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)
# Default-ignorable code points: a culture-aware string search (the runner is .NET) may
# skip them, so "#\u00ad#[" could read as "##[". Shown as escapes in untrusted text.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_LEGACY_COMMAND = re.compile(r"##\[")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with each control character shown as its escape (``\\x1b``, ``\\r``).

    Tabs and newlines stay as they are; everything else printable is unchanged.
    """
    return _UNPRINTABLE.sub(_escape, text)


def _defused(line: str) -> str:
    """One line that no runner reads as a command."""
    line = _LEGACY_COMMAND.sub(r"#\\x23[", line)
    body = line.lstrip()
    if body.startswith("::"):
        start = len(line) - len(body)
        line = f"{line[:start]}\\x3a{line[start + 1 :]}"
    return line


def safe_text(text: str) -> str:
    """``text`` made printable (:func:`printable`), with no line a workflow command: every
    line break but ``\\n`` an escape, ``##[`` as ``#\\x23[``, a line's leading ``::`` (after
    whitespace) as ``\\x3a:``. ``\\r\\n`` counts as one line break."""
    shown = _IGNORABLE.sub(_escape, printable(text.replace("\r\n", "\n")))
    return "\n".join(_defused(line) for line in shown.split("\n"))


def one_line(text: str) -> str:
    """:func:`safe_text` on one line: ``\\n`` shown as ``\\n`` too."""
    return _defused(safe_text(text).replace("\n", "\\n"))


def annotation_data(text: str) -> str:
    """The message of a workflow command: :func:`safe_text`, then GitHub's escapes
    (``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``); a multi-line message stays one line."""
    return safe_text(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotation_property(text: str) -> str:
    """A property value of a workflow command (``file=``, ``title=``): :func:`one_line`,
    then the escapes of :func:`annotation_data` and ``:`` -> ``%3A``, ``,`` -> ``%2C``."""
    return annotation_data(one_line(text)).replace(":", "%3A").replace(",", "%2C")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>|&!])")


def markdown_text(text: str) -> str:
    """Text for a cell or a line of the Markdown step summary: :func:`one_line`, with every
    character that would start a link, an image, HTML, code, emphasis or a table cell
    escaped by a backslash; never empty (a table cell needs a character)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text)).strip() or " "


def on_github(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this is a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    environ = os.environ if environ is None else environ
    return environ.get("GITHUB_ACTIONS", "").lower() == "true"


@contextlib.contextmanager
def commands_stopped(stream: TextIO | None = None, *, github: bool | None = None) -> Iterator[None]:
    """Around a block of untrusted text: on a runner (``github``, by default
    :func:`on_github`), ``::stop-commands::TOKEN`` before and ``::TOKEN::`` after, with a
    fresh random token the text cannot know, so the runner reads no command in between.
    Elsewhere nothing is printed. The resume line is printed even when the block raises."""
    out = sys.stdout if stream is None else stream
    if not (on_github() if github is None else github):
        yield
        return
    token = secrets.token_hex(16)
    out.write(f"::stop-commands::{token}\n")
    out.flush()
    try:
        yield
    finally:
        out.flush()
        out.write(f"::{token}::\n")
        out.flush()


def print_untrusted(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` (one or more lines) through :func:`safe_text`, flushed."""
    out = sys.stdout if stream is None else stream
    out.write(safe_text(text) + "\n")
    out.flush()
