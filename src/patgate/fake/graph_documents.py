"""GraphQL documents, parsed and validated once per text and validated once per shape.

Validation costs several times what executing the token operations does, so its outcome is
kept twice over, both bounded:

- by exact text: a repeated text costs neither a parse nor a validation;
- by shape: a new text is parsed, and its syntax tree reduced to nested tuples without
  locations, every alias renamed to a canonical one. Whitespace, commas, comments and the
  names of aliases vanish in that form, so a text that differs from a validated one only in
  those is known valid without a second validation.

Renaming keeps every equality between response names (an alias equal to a field name stays
as written, distinct aliases stay distinct), and response names are all that validation reads
of an alias: the conflicting-fields rule compares them. Only a "valid" verdict is reused; an
invalid text is always validated itself, so its errors name its own aliases and lines.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from graphql import DocumentNode, GraphQLError, parse, validate
from graphql.language import FieldNode, Node

from patgate.fake.graph_schema import graph_schema

__all__ = ["MAX_DOCUMENTS", "Prepared", "document_shape", "prepare_document"]

MAX_DOCUMENTS = 512
"""How many texts, and separately how many valid shapes, are remembered."""

_CANONICAL_ALIAS = "__alias"
"""Reserved by GraphQL for introspection, so no field of a valid document can bear it."""


@dataclass(frozen=True)
class Prepared:
    """A parsed, validated document, or the errors that stopped it."""

    document: DocumentNode | None
    errors: tuple[GraphQLError, ...]


def _names(node: Any, fields: set[str], aliases: list[str]) -> None:
    """Collect field names and aliases, in order of appearance, from ``node`` down."""
    if isinstance(node, FieldNode):
        fields.add(node.name.value)
        if node.alias is not None:
            aliases.append(node.alias.value)
    if isinstance(node, Node):
        for key in node.keys:
            if key in _SELECTION_KEYS:
                _names(getattr(node, key), fields, aliases)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _names(item, fields, aliases)


# Where fields can be found: a document's definitions, a selection set's selections.
_SELECTION_KEYS = frozenset({"definitions", "selection_set", "selections"})


def _shape(node: Any, renamed: dict[str, str]) -> Any:
    """A hashable form of ``node``: every field but locations, aliases renamed."""
    if isinstance(node, Node):
        parts: list[Any] = [node.kind]
        for key in node.keys:
            if key == "loc":
                continue
            value = getattr(node, key)
            if key == "alias" and value is not None:
                parts.append(renamed.get(value.value, value.value))
            else:
                parts.append(_shape(value, renamed))
        return tuple(parts)
    if isinstance(node, (list, tuple)):
        return tuple(_shape(item, renamed) for item in node)
    return node


def document_shape(document: DocumentNode) -> Hashable | None:
    """The document's syntax tree without locations and with canonical aliases, as nested
    tuples; ``None`` when aliases cannot be renamed safely.

    A hand-written walk rather than graphql-core's printer: its generic visitor costs more
    than parsing the text did (measured: print 1.6x, print with renaming 2.6x a parse).
    """
    fields: set[str] = set()
    aliases: list[str] = []
    _names(document, fields, aliases)
    if any(field.startswith(_CANONICAL_ALIAS) for field in fields):
        return None
    renamed: dict[str, str] = {}
    for alias in aliases:
        if alias not in fields and alias not in renamed:
            renamed[alias] = f"{_CANONICAL_ALIAS}{len(renamed)}"
    shape: Hashable = _shape(document, renamed)
    return shape


class _ValidShapes:
    """A bounded, least-recently-used set of shapes known to validate."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._shapes: OrderedDict[Hashable, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, shape: Hashable) -> bool:
        with self._lock:
            if shape in self._shapes:
                self._shapes.move_to_end(shape)
                return True
            return False

    def add(self, shape: Hashable) -> None:
        with self._lock:
            self._shapes[shape] = None
            self._shapes.move_to_end(shape)
            while len(self._shapes) > self._limit:
                self._shapes.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._shapes)

    def clear(self) -> None:
        with self._lock:
            self._shapes.clear()


_valid_shapes = _ValidShapes(MAX_DOCUMENTS)


@functools.lru_cache(maxsize=MAX_DOCUMENTS)
def prepare_document(query: str, max_tokens: int) -> Prepared:
    """Parse ``query`` (at most ``max_tokens`` tokens) and validate it unless its shape is
    known valid; cached by text."""
    try:
        document = parse(query, max_tokens=max_tokens)
    except GraphQLError as error:
        return Prepared(None, (error,))
    except RecursionError:
        # The depth scan before parsing should make this unreachable; it stays a 400.
        return Prepared(None, (GraphQLError("Syntax Error: the document is nested too deeply"),))
    shape = document_shape(document)
    if shape is not None and shape in _valid_shapes:
        return Prepared(document, ())
    errors = validate(graph_schema(), document)
    if errors:
        return Prepared(None, tuple(errors))
    if shape is not None:
        _valid_shapes.add(shape)
    return Prepared(document, ())


def clear_caches() -> None:
    """Forget every text and shape (for benchmarks measuring a first sight)."""
    prepare_document.cache_clear()
    _valid_shapes.clear()
