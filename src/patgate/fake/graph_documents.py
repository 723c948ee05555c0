"""GraphQL documents, parsed and validated once per text and validated once per shape.

Validation costs several times what executing the token operations does, so its outcome is
kept twice over, both bounded:

- by exact text: a repeated text costs neither a parse nor a validation;
- by shape: a new text is parsed, and its syntax tree reduced to nested tuples without
  locations, every alias renamed to a canonical one and, while the schema has no scalar of
  its own, every string literal's text left out. Whitespace, commas, comments, the names of
  aliases and what a string literal says vanish in that form, so a text that differs from a
  validated one only in those (a create naming another token) is known valid without a
  second validation.

Both are bounded by bytes, not entries (:class:`~patgate.fake.bounded_cache.BoundedCache`): a
parsed document pins about 250 times its text, so only texts up to
:data:`MAX_CACHED_CHARACTERS` are kept at all, within :data:`DOCUMENT_CACHE_BYTES` in all, and
no principal holds more than a quarter of that: one caller sending huge or endless distinct
documents (even with a removed user's PAT, which authenticates before its role is checked)
neither pins memory nor pushes out the documents of others. A longer text is parsed and
validated every time, as its size already costs.

Renaming keeps every equality between response names (an alias equal to a field name stays
as written, distinct aliases stay distinct), and response names are all that validation reads
of an alias: the conflicting-fields rule compares them. A string literal is judged by the
type it is given to, and a built-in type (``String``, ``ID``, or one that takes no string)
takes any text or none, so its text can change no verdict; a scalar of the schema's own may
read the text, and then the text stays in the shape. Only a "valid" verdict is reused; an
invalid text is always validated itself, so its errors name its own aliases and lines.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphql import DocumentNode, GraphQLError, GraphQLScalarType, parse, validate
from graphql.language import FieldNode, Node, StringValueNode
from graphql.type import specified_scalar_types

from patgate.fake.bounded_cache import BoundedCache
from patgate.fake.graph_schema import graph_schema
from patgate.fake.profile import DeleteResult

if TYPE_CHECKING:
    from patgate.fake.graph_plans import MutationPlan, Plan

__all__ = [
    "DOCUMENT_CACHE_BYTES",
    "MAX_CACHED_CHARACTERS",
    "Prepared",
    "document_cost",
    "document_shape",
    "prepare_document",
]

MAX_CACHED_CHARACTERS = 16 * 1024
"""A document text longer than this is never cached (parsed and validated each time)."""
DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024
"""What the parsed documents kept may pin, in all (estimated); a principal, a quarter."""
SHAPE_CACHE_BYTES = 8 * 1024 * 1024
"""What the valid shapes kept may pin, in all (estimated)."""
# Measured with tracemalloc: a parsed, validated document holds about 250 bytes per
# character of its text, and 16 KiB at least; a shape about a quarter of that.
_BYTES_PER_CHARACTER = 256
_BYTES_PER_DOCUMENT = 16 * 1024


def document_cost(text: str) -> int:
    """The memory a parsed document of ``text`` is estimated to pin, in bytes."""
    return _BYTES_PER_DOCUMENT + _BYTES_PER_CHARACTER * len(text)


_CANONICAL_ALIAS = "__alias"
"""Reserved by GraphQL for introspection, so no field of a valid document can bear it."""


@dataclass(frozen=True)
class Prepared:
    """A parsed, validated document, or the errors that stopped it."""

    document: DocumentNode | None
    errors: tuple[GraphQLError, ...]
    plans: dict[str | None, Plan | MutationPlan | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Per operation name, the document's plan (:mod:`patgate.fake.graph_plans`) or
    ``None`` (graphql-core executes it); filled by the executor on first use."""


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


@functools.cache
def _strings_judged_by_type() -> bool:
    """Whether every scalar of the schema is a built-in one: then no string literal's text
    can change what validation says."""
    return all(
        kind.name in specified_scalar_types
        for kind in graph_schema().type_map.values()
        if isinstance(kind, GraphQLScalarType)
    )


def _shape(node: Any, renamed: dict[str, str], strings: bool = False) -> Any:
    """A hashable form of ``node``: every field but locations, aliases renamed, and string
    literals without their text when ``strings`` (:func:`_strings_judged_by_type`)."""
    if strings and isinstance(node, StringValueNode):
        return (node.kind, node.block)
    if isinstance(node, Node):
        parts: list[Any] = [node.kind]
        for key in node.keys:
            if key == "loc":
                continue
            value = getattr(node, key)
            if key == "alias" and value is not None:
                parts.append(renamed.get(value.value, value.value))
            else:
                parts.append(_shape(value, renamed, strings))
        return tuple(parts)
    if isinstance(node, (list, tuple)):
        return tuple(_shape(item, renamed, strings) for item in node)
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
    shape: Hashable = _shape(document, renamed, _strings_judged_by_type())
    return shape


_MAX_COST = document_cost("x" * MAX_CACHED_CHARACTERS)
_documents: BoundedCache[tuple[str, int, DeleteResult | None], Prepared] = BoundedCache(
    DOCUMENT_CACHE_BYTES, max_entry_bytes=_MAX_COST, max_owner_bytes=DOCUMENT_CACHE_BYTES // 4
)
_valid_shapes: BoundedCache[Hashable, bool] = BoundedCache(
    SHAPE_CACHE_BYTES, max_entry_bytes=_MAX_COST // 4
)


def prepare_document(
    query: str, max_tokens: int, *, owner: Hashable = None, schema: DeleteResult | None = None
) -> Prepared:
    """Parse ``query`` (at most ``max_tokens`` tokens) and validate it against the schema
    ``schema`` names (:func:`~patgate.fake.graph_schema.schema_key`) unless its shape is
    known valid there; cached by text on ``owner``'s share (the calling principal)."""
    key = (query, max_tokens, schema)
    cost = document_cost(query)
    if _documents.admits(cost):
        cached = _documents.get(key)
        if cached is not None:
            return cached
    prepared = _prepare(query, max_tokens, cost, schema)
    _documents.put(key, prepared, cost, owner)
    return prepared


def _prepare(query: str, max_tokens: int, cost: int, schema: DeleteResult | None) -> Prepared:
    try:
        document = parse(query, max_tokens=max_tokens)
    except GraphQLError as error:
        return Prepared(None, (error,))
    except RecursionError:
        # The depth scan before parsing should make this unreachable; it stays a 400.
        return Prepared(None, (GraphQLError("Syntax Error: the document is nested too deeply"),))
    keep_shape = _valid_shapes.admits(cost // 4)
    shape = document_shape(document) if keep_shape else None
    if shape is not None and schema is not None:
        shape = (schema, shape)
    if shape is not None and _valid_shapes.get(shape):
        return Prepared(document, ())
    errors = validate(graph_schema(schema), document)
    if errors:
        return Prepared(None, tuple(errors))
    if shape is not None:
        _valid_shapes.put(shape, True, cost // 4)
    return Prepared(document, ())


def clear_caches() -> None:
    """Forget every text and shape (for benchmarks measuring a first sight)."""
    _documents.clear()
    _valid_shapes.clear()
