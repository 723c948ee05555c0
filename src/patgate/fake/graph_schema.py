"""The GraphQL schema the fake serves, built once from ``specs/schema.graphql``, with resolvers.

Resolvers are bound from a map and the build fails fast if the SDL lacks a type or field
the map names, so the SDL and the code cannot drift apart silently.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema, build_schema

from patgate.errors import InvalidRequest
from patgate.fake.clock import format_timestamp
from patgate.fake.deployment import Deployment
from patgate.fake.model import PatRecord, Principal, User
from patgate.resources import specs_dir

__all__ = ["GraphContext", "graph_schema", "token_view"]

MAX_ORGANIZATIONS_PAGE = 100
DEFAULT_ORGANIZATIONS_PAGE = 20
"""``first``'s default in ``specs/schema.graphql``, also what ``first: null`` means."""


@dataclass(frozen=True)
class GraphContext:
    """What every resolver sees: the deployment and who is calling."""

    deployment: Deployment
    principal: Principal


Info = GraphQLResolveInfo


def token_view(record: PatRecord, value: str | None = None) -> dict[str, Any]:
    """A token as the API shows it: the full ``value`` only when given (at creation)."""
    return {
        "id": record.id,
        "name": record.name,
        "token": value if value is not None else record.masked,
        "createdDate": format_timestamp(record.created_date),
        "lastUsedDate": (
            format_timestamp(record.last_used_date) if record.last_used_date is not None else None
        ),
    }


def _context(info: Info) -> GraphContext:
    context = info.context
    assert isinstance(context, GraphContext), "graph_executor passes a GraphContext"
    return context


def _viewer(_root: None, info: Info) -> User:
    ctx = _context(info)
    return ctx.deployment.viewer(ctx.principal)


def _viewer_tokens(_user: User, info: Info) -> list[dict[str, Any]]:
    ctx = _context(info)
    return [token_view(record) for record in ctx.deployment.list_tokens(ctx.principal)]


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
    return token_view(created.record, created.value)


def _delete_token(_root: None, info: Info, input: dict[str, Any]) -> bool:
    ctx = _context(info)
    ctx.deployment.delete_token(ctx.principal, input["id"])
    return True


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


@functools.lru_cache(maxsize=1)
def graph_schema() -> GraphQLSchema:
    """The built schema with resolvers bound. Immutable after this call, so it is shared."""
    schema = build_schema((specs_dir() / "schema.graphql").read_text(encoding="utf-8"))
    for type_name, fields in _RESOLVERS.items():
        graphql_type = schema.type_map.get(type_name)
        if not isinstance(graphql_type, GraphQLObjectType):
            raise LookupError(f"schema.graphql has no object type {type_name}")
        for field_name, resolver in fields.items():
            if field_name not in graphql_type.fields:
                raise LookupError(f"schema.graphql has no field {type_name}.{field_name}")
            graphql_type.fields[field_name].resolve = resolver
    return schema
