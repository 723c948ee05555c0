"""The GraphQL schema the fake serves, built once from ``specs/schema.graphql``, with resolvers.

Resolvers are bound from a map and the build fails fast if the SDL lacks a type or field
the map names, so the SDL and the code cannot drift apart silently.

``specs/schema.graphql`` is the default profile's schema. A profile whose delete result is
an object (``delete_result.shape: object``) is served a schema where
``deletePersonalAccessToken`` returns that object type, built once per shape.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema, build_schema

from patgate.basics.resources import specs_dir
from patgate.errors import InvalidRequest
from patgate.fake.answer_shapes import format_date
from patgate.fake.clock import format_timestamp
from patgate.fake.deployment import Deployment
from patgate.fake.model import PatRecord, Principal, User
from patgate.fake.profile import DeleteResult

__all__ = ["GraphContext", "graph_schema", "schema_key", "token_view"]

_DELETE_FIELD = "deletePersonalAccessToken(input: DeletePersonalAccessTokenInput!): Boolean"
_CARRIED_TYPES = {"token_id": "ID!", "true": "Boolean!", "name": "String!"}

MAX_ORGANIZATIONS_PAGE = 100
DEFAULT_ORGANIZATIONS_PAGE = 20
"""``first``'s default in ``specs/schema.graphql``, also what ``first: null`` means."""


@dataclass(frozen=True)
class GraphContext:
    """What every resolver sees: the deployment and who is calling."""

    deployment: Deployment
    principal: Principal


Info = GraphQLResolveInfo

_TODAY = ("milliseconds", "Z")
"""The default profile's ``lastUsedDate``: milliseconds, ``Z``."""


def token_view(
    record: PatRecord, value: str | None = None, *, last_used_form: tuple[str, str] = _TODAY
) -> dict[str, Any]:
    """A token as the API shows it: the full ``value`` only when given (at creation);
    ``lastUsedDate`` in the profile's ``(precision, offset)`` (``createdDate`` keeps its
    documented milliseconds)."""
    last_used = record.last_used_date
    if last_used is None:
        last_used_text = None
    elif last_used_form == _TODAY:
        last_used_text = format_timestamp(last_used)
    else:
        last_used_text = format_date(last_used, *last_used_form)
    return {
        "id": record.id,
        "name": record.name,
        "token": value if value is not None else record.masked,
        "createdDate": format_timestamp(record.created_date),
        "lastUsedDate": last_used_text,
    }


def _last_used_form(ctx: GraphContext) -> tuple[str, str]:
    profile = ctx.deployment.profile
    return profile.last_used_precision, profile.last_used_offset


def _context(info: Info) -> GraphContext:
    context = info.context
    assert isinstance(context, GraphContext), "graph_executor passes a GraphContext"
    return context


def _viewer(_root: None, info: Info) -> User:
    ctx = _context(info)
    return ctx.deployment.viewer(ctx.principal)


def _viewer_tokens(_user: User, info: Info) -> list[dict[str, Any]]:
    ctx = _context(info)
    form = _last_used_form(ctx)
    return [
        token_view(record, last_used_form=form)
        for record in ctx.deployment.list_tokens(ctx.principal)
    ]


def _cursor(index: int) -> str:
    return base64.b64encode(f"arrayconnection:{index}".encode()).decode("ascii")


def _cursor_index(cursor: str) -> int:
    try:
        prefix, _, number = base64.b64decode(cursor, validate=True).decode().partition(":")
        # Only what _cursor() writes: int() alone would take "-5", "+5" or " 5" as well.
        if prefix != "arrayconnection" or not (number.isascii() and number.isdigit()):
            raise ValueError(cursor)
        return int(number)
    except ValueError:
        raise InvalidRequest(
            "after is not a cursor this API issued", rule_id="ORG-DISCOVERY"
        ) from None


def _viewer_organizations(
    _user: User,
    info: Info,
    first: int | None = DEFAULT_ORGANIZATIONS_PAGE,
    after: str | None = None,
) -> dict[str, Any]:
    # `first: Int` is nullable: an explicit `first: null` arrives as None (not as the
    # schema's default) and means what leaving it out means.
    if first is None:
        first = DEFAULT_ORGANIZATIONS_PAGE
    if not 1 <= first <= MAX_ORGANIZATIONS_PAGE:
        raise InvalidRequest(
            f"first must be between 1 and {MAX_ORGANIZATIONS_PAGE}", rule_id="ORG-DISCOVERY"
        )
    ctx = _context(info)
    organizations = ctx.deployment.organizations_of(ctx.principal)
    start = _cursor_index(after) + 1 if after else 0
    page = organizations[start : start + first]
    edges = [
        {"cursor": _cursor(start + i), "node": {"id": org.id, "name": org.name}}
        for i, org in enumerate(page)
    ]
    return {
        "edges": edges,
        "pageInfo": {
            "hasNextPage": start + first < len(organizations),
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
    }


def _create_token(_root: None, info: Info, input: dict[str, Any]) -> dict[str, Any]:
    ctx = _context(info)
    created = ctx.deployment.create_token(ctx.principal, input["name"], input["organizationId"])
    return token_view(created.record, created.value, last_used_form=_last_used_form(ctx))


def _delete_token(_root: None, info: Info, input: dict[str, Any]) -> bool | dict[str, Any]:
    ctx = _context(info)
    record = ctx.deployment.delete_token(ctx.principal, input["id"])
    shape = ctx.deployment.profile.delete_result
    if not shape.is_object:
        return True
    carried = {"token_id": record.id, "true": True, "name": record.name}
    return {field: carried[what] for field, what in shape.fields}


_RESOLVERS: dict[str, dict[str, Callable[..., Any]]] = {
    "Query": {"viewer": _viewer},
    "Mutation": {
        "createPersonalAccessToken": _create_token,
        "deletePersonalAccessToken": _delete_token,
    },
    "Viewer": {
        "personalAccessTokens": _viewer_tokens,
        "organizations": _viewer_organizations,
    },
}


def schema_key(delete_result: DeleteResult) -> DeleteResult | None:
    """What tells one served schema from another: ``None`` for the Boolean result of
    ``specs/schema.graphql``, else the object result's shape."""
    return delete_result if delete_result.is_object else None


def _sdl(delete_result: DeleteResult | None) -> str:
    sdl = (specs_dir() / "schema.graphql").read_text(encoding="utf-8")
    if delete_result is None:
        return sdl
    if _DELETE_FIELD not in sdl:
        raise LookupError(f"schema.graphql has no field {_DELETE_FIELD!r}")
    fields = "\n".join(f"  {name}: {_CARRIED_TYPES[what]}" for name, what in delete_result.fields)
    sdl = sdl.replace(_DELETE_FIELD, _DELETE_FIELD.replace("Boolean", delete_result.object_type))
    sdl = sdl.replace("True once deleted.", f"A {delete_result.object_type} once deleted.")
    return (
        f'{sdl}\n"The result of deletePersonalAccessToken (the profile\'s delete_result)."\n'
        f"type {delete_result.object_type} {{\n{fields}\n}}\n"
    )


@functools.lru_cache(maxsize=16)
def graph_schema(delete_result: DeleteResult | None = None) -> GraphQLSchema:
    """The built schema with resolvers bound, for the delete result's shape (``None``: the
    Boolean of ``specs/schema.graphql``; see :func:`schema_key`). Immutable after this call,
    so it is shared."""
    schema = build_schema(_sdl(delete_result))
    for type_name, fields in _RESOLVERS.items():
        graphql_type = schema.type_map.get(type_name)
        if not isinstance(graphql_type, GraphQLObjectType):
            raise LookupError(f"schema.graphql has no object type {type_name}")
        for field_name, resolver in fields.items():
            if field_name not in graphql_type.fields:
                raise LookupError(f"schema.graphql has no field {type_name}.{field_name}")
            graphql_type.fields[field_name].resolve = resolver
    return schema
