"""Precompiled plans for the plainest GraphQL operations: the token operations without the
executor.

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

A mutation writes, so its resolver must run exactly once. A plan is made for a mutation
operation of one root field whose arguments are variables or literals, with plain fields
below it. :func:`run_mutation` coerces the variables and arguments with graphql-core's own
functions (any error there: ``None``, and graphql-core executes the request, which reports
it before any resolver runs; a required string, or an input object of required strings,
given exactly so, is passed on as graphql-core would pass it, without the call), calls the
field's resolver once, and completes its result as a query's fields. When the resolver
raises or its result is not what the type expects, it returns a :class:`Replay`:
graphql-core then executes the request with that middleware, which answers the root field
with what the one call gave (its value, or its exception raised again) instead of calling
the resolver a second time, so the errors, their paths and the null field are
graphql-core's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLField,
    GraphQLID,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    Undefined,
    VariableDefinitionNode,
    VariableNode,
    get_argument_values,
    get_variable_values,
)

__all__ = ["MutationPlan", "Plan", "Replay", "compile_plan", "run_mutation", "run_plan"]

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


@dataclass(frozen=True)
class MutationPlan:
    """The one root field of a mutation operation: its arguments, its resolver called once,
    its result completed as a query's fields."""

    field: _Field
    definition: GraphQLField
    """The root field's definition (its arguments, for graphql-core's coercion)."""
    node: FieldNode
    variables: tuple[VariableDefinitionNode, ...]
    """The operation's variable definitions."""
    plain_variables: tuple[_PlainVariable, ...] | None = None
    """Every variable, when each is a required string or an input object of required
    strings (see :func:`_plain_values`); ``None`` otherwise."""
    plain_arguments: tuple[tuple[str, str], ...] | None = None
    """(argument's name as the resolver takes it, variable) for each argument, when every
    argument is given as a bare variable; ``None`` otherwise."""


@dataclass(frozen=True)
class _PlainVariable:
    """A required variable of the plainest kinds: a ``String!`` or ``ID!`` (``fields`` is
    ``None``), or an input object whose every field is one (``fields``: each field's name
    and the name the resolver takes it by)."""

    name: str
    fields: tuple[tuple[str, str], ...] | None


class Replay:
    """graphql-core middleware: the planned mutation's root field answers what the plan's one
    call of its resolver gave (the value, or the exception raised again); every other field
    resolves as usual."""

    __slots__ = ("error", "name", "value")

    def __init__(self, name: str, value: Any = None, error: Exception | None = None) -> None:
        self.name = name
        self.value = value
        self.error = error

    def resolve(self, next_: Resolver, root: Any, info: Any, **args: Any) -> Any:
        """Called by graphql-core for every field, in place of its resolver."""
        if info.path.prev is None and info.field_name == self.name:
            if self.error is not None:
                raise self.error
            return self.value
        return next_(root, info, **args)


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
) -> Plan | MutationPlan | None:
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
    if operation.directives:
        return None
    try:
        if operation.operation is OperationType.MUTATION:
            return _mutation_plan(schema, operation, default_resolver)
        root = schema.query_type
        if operation.operation is not OperationType.QUERY or operation.variable_definitions:
            return None
        if root is None:
            return None
        return Plan(_fields(root, operation.selection_set.selections, default_resolver))
    except _NoPlan:
        return None


def _mutation_plan(
    schema: GraphQLSchema, operation: OperationDefinitionNode, default_resolver: Resolver
) -> MutationPlan:
    root = schema.mutation_type
    selections = operation.selection_set.selections
    if root is None or len(selections) != 1:
        raise _NoPlan  # several fields run one after another: graphql-core
    node = selections[0]
    if not isinstance(node, FieldNode) or node.directives:
        raise _NoPlan
    name = node.name.value
    if name.startswith("__") or name not in root.fields:
        raise _NoPlan
    definition = root.fields[name]
    if definition.resolve is None:
        raise _NoPlan  # every mutation of the fake has its own resolver
    key = node.alias.value if node.alias is not None else name
    planned = _field(key, name, definition.type, definition.resolve, node, default_resolver)
    variables = tuple(operation.variable_definitions or ())
    plain = _plain_variables(schema, variables)
    return MutationPlan(
        planned,
        definition,
        node,
        variables,
        plain,
        _plain_arguments(definition, node, plain) if plain is not None else None,
    )


def _required_string(type_: Any) -> bool:
    return isinstance(type_, GraphQLNonNull) and type_.of_type in (GraphQLString, GraphQLID)


def _plain_variables(
    schema: GraphQLSchema, definitions: tuple[VariableDefinitionNode, ...]
) -> tuple[_PlainVariable, ...] | None:
    plain = []
    for definition in definitions:
        type_node = definition.type
        if (
            definition.default_value is not None
            or definition.directives
            or not isinstance(type_node, NonNullTypeNode)
            or not isinstance(type_node.type, NamedTypeNode)
        ):
            return None
        named = schema.get_type(type_node.type.name.value)
        name = definition.variable.name.value
        if named in (GraphQLString, GraphQLID):
            plain.append(_PlainVariable(name, None))
        elif (
            isinstance(named, GraphQLInputObjectType)
            # (an older graphql-core 3.2 has no @oneOf input objects, nor this attribute)
            and not getattr(named, "is_one_of", False)
            and "out_type" not in vars(named)  # graphql-core's own: the dict as it is
            and named.fields
            and all(_required_string(field.type) for field in named.fields.values())
        ):
            fields = tuple(
                (field_name, field.out_name or field_name)
                for field_name, field in named.fields.items()
            )
            plain.append(_PlainVariable(name, fields))
        else:
            return None
    return tuple(plain)


def _plain_arguments(
    definition: GraphQLField, node: FieldNode, plain: tuple[_PlainVariable, ...]
) -> tuple[tuple[str, str], ...] | None:
    given = {argument.name.value: argument.value for argument in node.arguments or ()}
    known = {variable.name for variable in plain}
    arguments = []
    for name, argument in definition.args.items():
        value = given.get(name)
        if not isinstance(value, VariableNode) or value.name.value not in known:
            return None  # a literal, a default: graphql-core's coercion
        arguments.append((argument.out_name or name, value.name.value))
    return tuple(arguments)


def _plain_values(
    plain: tuple[_PlainVariable, ...], inputs: dict[str, Any]
) -> dict[str, Any] | None:
    """The variables as graphql-core coerces them, when each is exactly what its plain type
    takes unchanged (a ``str``; a dict holding each field, and only those, as a ``str``);
    ``None`` otherwise (graphql-core coerces them, and says what is wrong)."""
    coerced: dict[str, Any] = {}
    for variable in plain:
        value = inputs.get(variable.name)
        fields = variable.fields
        if fields is None:
            if type(value) is not str:
                return None
            coerced[variable.name] = value
            continue
        if type(value) is not dict or len(value) != len(fields):
            return None
        converted = {}
        for name, out_name in fields:
            item = value.get(name)
            if type(item) is not str:
                return None
            converted[out_name] = item
        coerced[variable.name] = converted
    return coerced


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


def run_mutation(
    plan: MutationPlan,
    schema: GraphQLSchema,
    context: object,
    variables: dict[str, Any] | None,
) -> dict[str, Any] | Replay | None:
    """``data`` as graphql-core would make it; a :class:`Replay` once the resolver has run
    and something went wrong (a refusal, a bug, a value its type refuses); or ``None`` when
    the variables or arguments do not coerce (nothing has run: graphql-core reports it)."""
    inputs = variables or {}
    plain = plan.plain_variables
    coerced = _plain_values(plain, inputs) if plain is not None else None
    if coerced is not None and plan.plain_arguments is not None:
        # Each argument is a variable, coerced above and never null: graphql-core passes it on.
        arguments = {name: coerced[variable] for name, variable in plan.plain_arguments}
    else:
        if coerced is None:
            values = get_variable_values(schema, plan.variables, inputs)
            if isinstance(values, list):
                return None
            coerced = values
        try:
            arguments = get_argument_values(plan.definition, plan.node, coerced)
        except GraphQLError:
            return None
    field = plan.field
    try:
        value = field.resolve(None, _Info(field.name, context), **arguments)
    except Exception as error:  # a refusal, a bug: graphql-core reports it its way
        return Replay(field.name, error=error)
    try:
        return {field.key: _complete(field, value, context)}
    except Exception:
        return Replay(field.name, value=value)


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
