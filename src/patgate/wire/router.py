"""The route table: absolute URL templates with path parameters, matched to endpoints.

A template is a served URL with ``{name}`` segments, e.g.
``https://api.example.com/v2/content/hubs/{hub_id}``; a parameter matches one path segment
(no ``/``) and is percent-decoded. Templates are read by the one template grammar
(:func:`patgate.service.api_paths.template_pieces`): a template it does not understand (``{hubId}``)
is refused when it is added, naming it. Templates without parameters are looked up in a dict, the
others are tried in the order they were added, so the common paths cost one lookup. A
template's pattern is compiled when a URL first needs the patterns, so a fake whose test only
calls parameterless paths never compiles one.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar
from urllib.parse import unquote

from patgate.service.api_paths import template_pieces

__all__ = ["RouteMatch", "Router"]

T = TypeVar("T")
_NO_PARAMETERS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class RouteMatch(Generic[T]):
    """A matched route: what it leads to and its path parameters, decoded."""

    target: T
    params: Mapping[str, str]
    template: str


@functools.lru_cache(maxsize=1024)  # every fake mounts the same templates
def _pieces(template: str) -> tuple[str, ...]:
    return template_pieces(template)


@functools.lru_cache(maxsize=1024)
def _pattern(template: str) -> re.Pattern[str]:
    pieces = _pieces(template)
    parts = [re.escape(pieces[0])]
    for index in range(1, len(pieces), 2):
        parts.append(f"(?P<{pieces[index]}>[^/]+)")
        parts.append(re.escape(pieces[index + 1]))
    return re.compile("".join(parts))


class Router(Generic[T]):
    """Maps canonical URLs (see :func:`~patgate.wire.urls.canonical_url`) to targets."""

    def __init__(self) -> None:
        self._exact: dict[str, T] = {}
        self._patterns: list[tuple[re.Pattern[str], str, T]] = []
        self._uncompiled: list[tuple[str, T]] = []
        """Templates with parameters added since the patterns were last needed, in order."""
        self._templates: dict[str, T] = {}
        self._lock = threading.Lock()

    def add(self, template: str, target: T) -> None:
        """Serve ``template`` with ``target``; a template already served raises ``ValueError``,
        one the template grammar does not understand
        :class:`~patgate.service.api_paths.TemplateError` (a ``ValueError``)."""
        has_parameters = len(_pieces(template)) > 1
        with self._lock:
            if template in self._templates:
                raise ValueError(f"{template} is already routed")
            self._templates[template] = target
            if has_parameters:
                self._uncompiled.append((template, target))
            else:
                self._exact[template] = target

    def match(self, url: str) -> RouteMatch[T] | None:
        """The route serving the canonical ``url``, or ``None``."""
        target = self._exact.get(url)
        if target is not None:
            return RouteMatch(target, _NO_PARAMETERS, url)
        if self._uncompiled:
            self._compile()
        for pattern, template, candidate in self._patterns:
            found = pattern.fullmatch(url)
            if found is not None:
                params = {name: unquote(value) for name, value in found.groupdict().items()}
                return RouteMatch(candidate, MappingProxyType(params), template)
        return None

    def _compile(self) -> None:
        # Patterns are cached per template (every fake mounts the same ones): a later fake
        # compiles nothing. The loopback server matches from several threads: a thread that
        # sees nothing left to compile must see every pattern, hence the new list first.
        with self._lock:
            compiled = [(_pattern(template), template, t) for template, t in self._uncompiled]
            self._patterns = [*self._patterns, *compiled]
            self._uncompiled = []

    def __iter__(self) -> Iterator[tuple[str, T]]:
        """``(template, target)`` of every route, in the order they were added."""
        return iter(self._templates.items())

    def __len__(self) -> int:
        return len(self._templates)
