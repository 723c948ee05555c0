"""The shape of every token patgate knows, written once.

A personal access token (PAT) is ``<prefix><id segment>.<secret segment>``: the prefix is
fixed per deployment (``amp_pat_`` by default), each segment is base64url without padding.
A client token is a JWT: three base64url parts, the first two JSON objects (so each starts
``eyJ``, the encoding of ``{"``), the signature possibly empty.

The fake mints and parses PATs with this grammar, the runner's checks and leak scans
recognise them with it, and the redactor hides them with it: one definition, so a value the
fake can mint is a value every other layer recognises.

Finding the shapes in untrusted text (an answer, a log) goes through a :class:`TokenScan`
(:data:`JWT_SCAN`, :data:`ANY_PAT_SCAN`, :func:`pat_scan`): the same shapes, matched in time
linear in the text. The plain patterns above are for judging one value (``fullmatch``): a
backtracking search with them restarts at every character of a long run of token
characters, which costs quadratic time (100,000 characters of ``a_pat_a_pat_...`` took
seconds). A scan starts a match only where a *piece* starts (a run of segment characters,
after any other character or a dot), reads the piece up to the shape's first start in it
with possessive character classes (no second try at a later position of the same piece,
which would fail for the same reason) and reads each segment possessively, so every
character is read a bounded number of times. It finds the same tokens as the plain
pattern's ``finditer``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "ANY_PAT_SCAN",
    "ANY_PAT_SHAPE",
    "DEFAULT_PAT_PREFIX",
    "JWT_SCAN",
    "JWT_SHAPE",
    "SEGMENT",
    "PatGrammar",
    "TokenScan",
    "documented_pat_shape",
    "is_documented_pat",
    "is_pat",
    "pat_piece_scan",
    "pat_scan",
    "pat_shape",
    "pat_start",
    "split_pat",
    "valid_prefix",
]

DEFAULT_PAT_PREFIX = "amp_pat_"
"""The documented PAT prefix; a target file may name another (``pat_prefix``)."""

_CHARS = "A-Za-z0-9_-"
"""The characters of a segment, as they go inside a character class."""

SEGMENT = f"[{_CHARS}]+"
"""One base64url segment of a PAT (no padding)."""

_SEGMENT = re.compile(SEGMENT)

JWT_SHAPE = re.compile(rf"eyJ[{_CHARS}]+\.eyJ[{_CHARS}]*\.[{_CHARS}]*")
"""A compact JWT: a JSON header, a JSON payload, a signature (empty for ``alg: none``)."""

ANY_PAT_SHAPE = re.compile(rf"[A-Za-z0-9]+_pat_[{_CHARS}]{{6,}}\.[{_CHARS}]{{6,}}")
"""A PAT under any ``<word>_pat_`` prefix, not only the configured one (segments of six
characters or more, so prose such as ``my_pat_a.b`` is not taken for a token)."""


_SEPARATOR = f"(?P<sep>[^{_CHARS}])"
"""The character before a piece (a scan's text starts with a newline, so every piece has
one). A pattern that starts with a character class lets the engine skip the characters of
a piece at C speed between attempts."""
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def _without(char: str) -> str:
    """A character class of the segment characters but ``char``."""
    return "[" + "".join(re.escape(c) for c in _ALPHABET if c != char) + "]"


def _before(word: str) -> str:
    """The characters of a piece before the first ``word`` in it, read possessively: runs
    without ``word``'s first character, each such character that does not start ``word``."""
    first, other = re.escape(word[0]), _without(word[0])
    return f"{other}*+(?:{first}(?!{re.escape(word[1:])}){other}*+)*+"


_BEFORE_PAT_WORD = "(?:[_-]*+[A-Za-z0-9]++(?!_pat_))*+[_-]*+"
"""The characters of a piece before the first letters-and-digits run followed by ``_pat_``:
whole runs not followed by it, and the ``_`` and ``-`` between them."""


_OTHER = re.compile(f"[^{_CHARS}]")
_DENSE = 64
"""A text holding an anchor more often than once every this many characters is scanned
whole by the pattern; a sparser one only at the pieces that hold an anchor."""


@dataclass(frozen=True)
class TokenScan:
    """A token shape found in untrusted text in linear time (see the module's docstring).

    Each match of :attr:`pattern` is the character before the token's piece (``sep``), the
    part of the piece before the token (``lead``), then the token; :attr:`anchor` is text
    every token holds, in its first piece. The methods deal in the tokens alone.

    Where the anchor is rare (an ordinary answer), only the pieces holding it are tried:
    each found anchor's piece is matched once from its start, then the search goes on after
    the match or the piece. Where it is dense (hostile text), the pattern scans the part of
    the text between the first anchor's piece and the last one's, trying each piece start
    once. Either way each character is read a bounded number
    of times.
    """

    pattern: re.Pattern[str]
    anchor: str

    def _dense(self, text: str) -> bool:
        return text.count(self.anchor) * _DENSE > len(text)

    def _region(self, text: str) -> tuple[int, int]:
        """Where every token of ``text`` lies: from the start of the first anchor's piece to
        the end of the second piece after the last anchor's (a token spans three pieces at
        most, and starts in a piece holding an anchor)."""
        first = text.find(self.anchor)
        before = _OTHER.search(text[first::-1])
        start = first - before.start() + 1 if before is not None else 0
        end, position = len(text), text.rfind(self.anchor)
        for _ in range(3):  # the last anchor's piece, then up to two more after a dot
            after = _OTHER.search(text, position)
            if after is None:
                end = len(text)
                break
            end = after.start()
            if text[end] != ".":
                break
            position = end + 1
        return start, end

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each token in ``text``, left to right."""
        if self.anchor not in text:
            return
        if self._dense(text):
            start, end = self._region(text)
            # Every piece has a character before it, even the first: the newline.
            for match in self.pattern.finditer("\n" + text[start:end]):
                yield start + match.end("lead") - 1, start + match.end() - 1
            return
        padded = "\n" + text
        backwards = padded[::-1]
        size = len(padded)
        found = padded.find(self.anchor)
        while found != -1:
            # The character before the anchor's piece: after the last match or piece.
            before = _OTHER.search(backwards, size - found)  # finds the newline at worst
            tried = self.pattern.match(padded, size - 1 - before.start() if before else 0)
            if tried is not None:
                yield tried.end("lead") - 1, tried.end() - 1
                resume = tried.end()
            else:
                after = _OTHER.search(padded, found)
                resume = after.start() if after is not None else size
            found = padded.find(self.anchor, resume)

    def findall(self, text: str) -> list[str]:
        """Every token in ``text``."""
        return [text[start:end] for start, end in self.spans(text)]

    def search(self, text: str) -> str | None:
        """The first token in ``text``, or ``None``."""
        return next((text[start:end] for start, end in self.spans(text)), None)

    def sub(self, replacement: str, text: str) -> str:
        """``text`` with each token replaced by ``replacement`` (taken literally)."""
        if self.anchor not in text:
            return text
        if self._dense(text):
            # A function, not a template: CPython 3.11 expands a template in Python per match.
            def keep(match: re.Match[str]) -> str:
                return match["sep"] + match["lead"] + replacement

            start, end = self._region(text)
            inside = self.pattern.sub(keep, "\n" + text[start:end])[1:]
            return text[:start] + inside + text[end:]
        pieces: list[str] = []
        done = 0
        for start, end in self.spans(text):
            pieces += (text[done:start], replacement)
            done = end
        pieces.append(text[done:])
        return "".join(pieces)


def _scan(word: str, lead: str, rest: str) -> TokenScan:
    return TokenScan(re.compile(f"{_SEPARATOR}(?P<lead>{lead}){rest}"), word)


JWT_SCAN = _scan("eyJ", _before("eyJ"), rf"eyJ[{_CHARS}]++\.eyJ[{_CHARS}]*+\.[{_CHARS}]*+")
""":data:`JWT_SHAPE`, found in linear time."""

ANY_PAT_SCAN = _scan(
    "_pat_",
    _BEFORE_PAT_WORD,
    rf"[A-Za-z0-9]++_pat_[{_CHARS}]{{6,}}+\.[{_CHARS}]{{6,}}+",
)
""":data:`ANY_PAT_SHAPE`, found in linear time."""


@functools.lru_cache(maxsize=32)
def pat_scan(prefix: str = DEFAULT_PAT_PREFIX) -> TokenScan:
    """:func:`pat_shape` of ``prefix`` (a :func:`valid_prefix`), found in linear time."""
    return _scan(prefix, _before(prefix), rf"{re.escape(prefix)}[{_CHARS}]++\.[{_CHARS}]++")


@functools.lru_cache(maxsize=32)
def pat_piece_scan(prefix: str = DEFAULT_PAT_PREFIX) -> TokenScan:
    """The start of a PAT under ``prefix``: the prefix and the rest of its piece (a PAT cut
    before its dot, or the prefix alone), found in linear time."""
    return _scan(prefix, _before(prefix), rf"{re.escape(prefix)}[{_CHARS}]*+")


def valid_prefix(prefix: str) -> bool:
    """Whether ``prefix`` can start a PAT: letters, digits, ``_`` or ``-``, not empty."""
    return bool(prefix) and _SEGMENT.fullmatch(prefix.rstrip("_-")) is not None


@functools.lru_cache(maxsize=32)
def pat_shape(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """A full PAT under ``prefix``: use ``fullmatch`` to judge a value, ``search`` to find
    one in text."""
    return re.compile(re.escape(prefix) + SEGMENT + r"\." + SEGMENT)


@functools.lru_cache(maxsize=32)
def pat_start(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """``prefix`` and every token character after it: a PAT, or any piece of one."""
    return re.compile(re.escape(prefix) + r"[A-Za-z0-9_.-]*")


def split_pat(value: str, prefix: str = DEFAULT_PAT_PREFIX) -> tuple[str, str] | None:
    """``(id segment, secret segment)`` of a well-formed PAT, or ``None``."""
    if not value.startswith(prefix):
        return None
    id_segment, dot, secret = value[len(prefix) :].partition(".")
    if not dot or not _SEGMENT.fullmatch(id_segment) or not _SEGMENT.fullmatch(secret):
        return None
    return id_segment, secret


def is_pat(value: object, prefix: object = DEFAULT_PAT_PREFIX) -> bool:
    """Whether ``value`` is a full PAT under ``prefix`` (``False`` for anything not a str)."""
    if not isinstance(value, str) or not isinstance(prefix, str):
        return False
    return split_pat(value, prefix) is not None


@functools.lru_cache(maxsize=32)
def documented_pat_shape(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """A PAT as the specification describes it: ``prefix``, a segment, a dot and a second
    segment, in no particular alphabet (any characters but a dot or white space). Use it to
    judge a deployment; :func:`pat_shape` is the fake's own base64url form."""
    return re.compile(re.escape(prefix) + r"[^.\s]+\.[^.\s]+")


def is_documented_pat(value: object, prefix: object = DEFAULT_PAT_PREFIX) -> bool:
    """Whether ``value`` has the documented shape of a PAT under ``prefix``."""
    if not isinstance(value, str) or not isinstance(prefix, str):
        return False
    return documented_pat_shape(prefix).fullmatch(value) is not None


@dataclass(frozen=True)
class PatGrammar:
    """The PAT shapes of one deployment's prefix, compiled once and handed to every reader
    (the redactor, the leak watch, the fuzzed lifecycle): :func:`pat_shape` to judge one
    value, :func:`pat_scan` to find them in text."""

    prefix: str
    shape: re.Pattern[str]
    scan: TokenScan

    @classmethod
    def of(cls, prefix: str = DEFAULT_PAT_PREFIX) -> PatGrammar:
        """The grammar of ``prefix`` (a :func:`valid_prefix`)."""
        return cls(prefix, pat_shape(prefix), pat_scan(prefix))
