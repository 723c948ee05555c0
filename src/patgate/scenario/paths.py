"""Paths into a JSON body: ``data.viewer.personalAccessTokens[*].token``.

Segments are separated by dots. ``[n]`` takes the n-th item of a list (negative counts
from the end), ``[*]`` takes every item (the result becomes a list), and ``[field=value]``
takes the first item whose ``field`` equals ``value`` (compared as text). An empty path is
the whole body.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from patgate.errors import PatgateError

__all__ = ["Path", "PathError", "PathMissing", "parse_path", "resolve_path"]

_NAME = re.compile(r"[^.\[\]]+")


class PathError(PatgateError, ValueError):
    """A path that cannot be read."""


class PathMissing(PatgateError, LookupError):
    """The body has nothing at that path."""

    def __init__(self, path: str, where: str) -> None:
        self.path = path
        self.where = where
        super().__init__(f"nothing at {path!r} (stopped at {where!r})" if where else path)


@dataclass(frozen=True)
class _Key:
    name: str


@dataclass(frozen=True)
class _Index:
    index: int


@dataclass(frozen=True)
class _Every:
    pass


@dataclass(frozen=True)
class _Where:
    field: str
    value: str


_Segment = _Key | _Index | _Every | _Where


@dataclass(frozen=True)
class Path:
    """A parsed path; ``many`` when it holds ``[*]`` (its value is a list of matches)."""

    text: str
    segments: tuple[_Segment, ...]

    @property
    def many(self) -> bool:
        """Whether the path holds ``[*]``, so its value is a list of matches."""
        return any(isinstance(segment, _Every) for segment in self.segments)


@functools.lru_cache(maxsize=512)
def parse_path(text: str) -> Path:
    """Parse ``text``; :class:`PathError` names what is wrong."""
    segments: list[_Segment] = []
    i, n = 0, len(text)
    expect_name = True
    while i < n:
        if text[i] == "[":
            end = text.find("]", i)
            if end < 0:
                raise PathError(f"{text!r}: a '[' is not closed")
            segments.append(_bracket(text, text[i + 1 : end]))
            i = end + 1
            expect_name = False
        elif text[i] == ".":
            if expect_name:
                raise PathError(f"{text!r}: an empty segment before '.'")
            i += 1
            expect_name = True
            if i == n:
                raise PathError(f"{text!r}: ends with '.'")
        else:
            match = _NAME.match(text, i)
            if match is None or not expect_name:
                raise PathError(f"{text!r}: unexpected {text[i]!r} at {i}")
            segments.append(_Key(match.group()))
            i = match.end()
            expect_name = False
    return Path(text, tuple(segments))


def _bracket(text: str, inside: str) -> _Segment:
    if inside == "*":
        return _Every()
    if re.fullmatch(r"-?[0-9]+", inside):
        return _Index(int(inside))
    field, equals, value = inside.partition("=")
    if equals and _NAME.fullmatch(field):
        return _Where(field, value)
    raise PathError(f"{text!r}: [{inside}] is not [n], [*] or [field=value]")


def resolve_path(body: Any, path: str | Path) -> Any:
    """The value at ``path``; raises :class:`PathMissing` when the body has none."""
    parsed = parse_path(path) if isinstance(path, str) else path
    return _resolve(body, parsed.segments, parsed.text, "")


def _resolve(value: Any, segments: Sequence[_Segment], text: str, where: str) -> Any:
    if not segments:
        return value
    head, rest = segments[0], segments[1:]
    if isinstance(head, _Key):
        if not isinstance(value, dict) or head.name not in value:
            raise PathMissing(text, where)
        return _resolve(value[head.name], rest, text, _join(where, head.name))
    if not isinstance(value, list):
        raise PathMissing(text, where)
    if isinstance(head, _Index):
        if not -len(value) <= head.index < len(value):
            raise PathMissing(text, where)
        return _resolve(value[head.index], rest, text, f"{where}[{head.index}]")
    if isinstance(head, _Where):
        for item in value:
            if isinstance(item, dict) and _text(item.get(head.field)) == head.value:
                return _resolve(item, rest, text, f"{where}[{head.field}={head.value}]")
        raise PathMissing(text, where)
    # [*]: every item that has the rest of the path.
    results = []
    for index, item in enumerate(value):
        try:
            results.append(_resolve(item, rest, text, f"{where}[{index}]"))
        except PathMissing:
            continue
    return results


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
