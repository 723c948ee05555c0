"""Precompiled plans for the plainest GraphQL queries: the token listing without the executor.

graphql-core's executor spends most of a token listing's time on its own generality:
building each field's resolve info, collecting fields, completing each value through the
abstract type checks. A query that uses none of what needs that generality can be answered
by a plan made once per parsed document: the same resolvers called in the same order, each
leaf serialized by its own scalar type, the same ``data`` built.

A plan is made only for a document graphql-core has already parsed and validated, holding one
query operation whose every selection is a plain field: no fragments, no directives, no
arguments, no variables, no introspection field, no response name given twice, and only
object, scalar and list-of-those types. Anything else returns ``None`` and graphql-core
executes the request as before.

The plan covers the path on which nothing goes wrong. When a resolver raises (a rule's
refusal, a bug), a non-null field resolves to null, a value is not what its type expects, or
a scalar cannot serialize a value, :func:`run_plan` returns ``None`` and the caller executes
the request with graphql-core, which makes the errors and their paths as it always has.
Queries only read the deployment (authentication, which marks a token used, happened before),
so running the resolvers a second time changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLID,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    OperationDefinitionNode,
    OperationType,
    Undefined,
)

__all__ = ["Plan", "compile_plan", "run_plan"]

Resolver = Callable[..., Any]


@dataclass(frozen=True)
class _Field:
    """One selected field: where its value goes, how it is read, how it is completed."""

    key: str
    """The response name (the alias, or the field's name)."""
    name: str
    resolve: Resolver
    non_null: bool
    is_list: bool
    item_non_null: bool
    leaf: GraphQLScalarType | None
    """The scalar type of a leaf; ``None`` for an object (see :attr:`fields`)."""
    fields: tuple[_Field, ...]
    reads_dict: bool
    """Resolved by the default resolver, which reads a dict source's key directly."""
    text_leaf: bool
    """A single ``String`` or ``ID``: a ``str`` value serializes to itself."""


@dataclass(frozen=True)
class Plan:
    """The root fields of a query operation, with everything below them."""

    fields: tuple[_Field, ...]


class _Info:
    """What the fake's resolvers read of graphql-core's resolve info: the field's name and
    the request's context."""

    __slots__ = ("context", "field_name")

    def __init__(self, field_name: str, context: object) -> None:
        self.field_name = field_name
        self.context = context


class _NoPlan(Exception):
    """The document uses something a plan does not cover."""


class _Fallback(Exception):
    """This request left the path a plan covers: graphql-core answers it."""


def compile_plan(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    default_resolver: Resolver,
) -> Plan | None:
    """A plan for ``document``'s operation ``operation_name`` (a validated document), or
    ``None`` when graphql-core must execute it."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != len(document.definitions):
        return None  # fragments
    chosen = [
        operation
        for operation in operations
        if operation_name is None
        or (operation.name is not None and operation.name.value == operation_name)
    ]
    if len(chosen) != 1 or (operation_name is None and len(operations) != 1):
        return None  # graphql-core says which operation is meant, or that none is
    operation = chosen[0]
    root = schema.query_type
    if (
        operation.operation is not OperationType.QUERY
        or operation.variable_definitions
        or operation.directives
        or root is None
    ):
        return None
    try:
        return Plan(_fields(root, operation.selection_set.selections, default_resolver))
    except _NoPlan:
        return None


def _fields(
    parent: GraphQLObjectType, selections: Any, default_resolver: Resolver
) -> tuple[_Field, ...]:
    planned: list[_Field] = []
    keys: set[str] = set()
    for selection in selections:
        if not isinstance(selection, FieldNode) or selection.directives or selection.arguments:
            raise _NoPlan
        name = selection.name.value
        key = selection.alias.value if selection.alias is not None else name
        if name.startswith("__") or key in keys or name not in parent.fields:
            raise _NoPlan
        keys.add(key)
        definition = parent.fields[name]
        if definition.args:
            raise _NoPlan  # graphql-core would pass their defaults
        resolve = definition.resolve or default_resolver
        planned.append(_field(key, name, definition.type, resolve, selection, default_resolver))
    return tuple(planned)


def _field(
    key: str,
    name: str,
    type_: GraphQLOutputType,
    resolve: Resolver,
    node: FieldNode,
    default_resolver: Resolver,
) -> _Field:
    non_null = isinstance(type_, GraphQLNonNull)
    inner: Any = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    is_list = isinstance(inner, GraphQLList)
    item_non_null = False
    if is_list:
        inner = inner.of_type
        item_non_null = isinstance(inner, GraphQLNonNull)
        if item_non_null:
            inner = inner.of_type
    if isinstance(inner, GraphQLScalarType):
        if node.selection_set is not None:
            raise _NoPlan
        text = not is_list and inner in (GraphQLString, GraphQLID)
        reads = resolve is default_resolver
        return _Field(key, name, resolve, non_null, is_list, item_non_null, inner, (), reads, text)
    if not isinstance(inner, GraphQLObjectType) or inner.is_type_of is not None:
        raise _NoPlan  # enums, interfaces, unions, lists of lists
    if node.selection_set is None:
        raise _NoPlan
    children = _fields(inner, node.selection_set.selections, default_resolver)
    reads = resolve is default_resolver
    return _Field(
        key, name, resolve, non_null, is_list, item_non_null, None, children, reads, False
    )


def run_plan(plan: Plan, context: object) -> dict[str, Any] | None:
    """``data`` as graphql-core would make it, or ``None``: execute with graphql-core."""
    try:
        return _object(plan.fields, None, context)
    except Exception:  # a refusal, a bug: graphql-core runs it again and reports it its way
        return None


def _object(fields: tuple[_Field, ...], source: Any, context: object) -> dict[str, Any]:
    data: dict[str, Any] = {}
    plain = type(source) is dict
    for field in fields:
        if plain and field.reads_dict:
            value = source.get(field.name)  # what the default resolver does with a dict
        else:
            value = field.resolve(source, _Info(field.name, context))
        if field.text_leaf and type(value) is str:
            data[field.key] = value  # what String and ID serialize a str to: itself
        else:
            data[field.key] = _complete(field, value, context)
    return data


def _complete(field: _Field, value: Any, context: object) -> Any:
    if value is None:
        if field.non_null:
            raise _Fallback
        return None
    if field.is_list:
        if not isinstance(value, (list, tuple)):
            raise _Fallback
        return [_item(field, item, context) for item in value]
    return _item(field, value, context)


def _item(field: _Field, value: Any, context: object) -> Any:
    if value is None:  # a list's item: a field's own null is completed above
        if field.item_non_null:
            raise _Fallback
        return None
    leaf = field.leaf
    if leaf is not None:
        serialized = leaf.serialize(value)
        if serialized is Undefined or serialized is None:
            raise _Fallback
        return serialized
    return _object(field.fields, value, context)
