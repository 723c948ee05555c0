"""The kinds of step a scenario may hold: one registry entry per kind.

Each entry holds the JSON Schema fragment of the step's value, the scenario format page's line
for it and its builder: ``build(builder, value, raw_step, where, loop_names) -> Request`` types
the value and notes on the :class:`~patgate.scenario.building.Building` what the step needs of a
target (keys, writes, control, waits). The runner binds the executor that sends it
(:mod:`patgate.runner.execution.step_senders`).

To add a step kind: a frozen request dataclass deriving from ``Request`` and an entry, both
here; an executor in ``runner/execution/step_senders.py`` under
``@STEP_KINDS.executes("name")``, then regenerate the schema
(``python -m patgate.scenario.schema_document``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from patgate.scenario.control_actions import CONTROL_ACTIONS
from patgate.scenario.model import (
    GRAPHQL_OPERATIONS,
    ControlCall,
    GraphqlCall,
    HttpCall,
    HubsCall,
    Request,
    TokenCall,
    WaitCall,
)
from patgate.scenario.registry import Entry, Registry
from patgate.scenario.writes import graphql_writes, method_writes

if TYPE_CHECKING:
    from patgate.scenario.building import Building

__all__ = ["STEP_KINDS", "TOKEN_ENDPOINT", "StepBuild"]

StepBuild = Callable[["Building", Any, Mapping[str, Any], list[str | int], set[str]], Request]
"""``(builder, value, raw_step, where, loop_names) -> Request``."""

STEP_KINDS: Registry[StepBuild, Any] = Registry("step kind")
"""Step kind (the key a step holds) -> entry; executors send the request."""

# Exactly the token endpoint (a query string allowed): "/oauth/token/../x" would reach
# another path once the client removes the dot segments.
TOKEN_ENDPOINT = re.compile(r"\$\{auth_url\}/oauth/token(?:\?[^#]*)?")
"""An ``http`` URL that is the token endpoint: a POST there creates nothing to clean up."""


def _token(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.target_keys.add("auth_url")
    return TokenCall(dict(value))


def _hubs(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.target_keys.add("base_url")
    return HubsCall({} if value is True else dict(value))


def _graphql(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.target_keys.add("graphql_url")
    if isinstance(value, dict):
        if graphql_writes(value["query"]):
            builder.writes = builder.creates = True
            builder.untracked_writes = True
        return GraphqlCall(
            query=value["query"],
            variables=dict(value.get("variables", {})),
            operation_name=value.get("operation_name"),
        )
    args = raw.get("args", {})
    required, optional = GRAPHQL_OPERATIONS[value]
    args_where = [*where[:-1], "args"]
    missing = [name for name in required if name not in args]
    if missing:
        raise builder.error(f"{value} needs args: {', '.join(missing)}", args_where)
    unknown = sorted(set(args) - set(required) - set(optional))
    if unknown:
        allowed = ", ".join((*required, *optional)) or "none"
        raise builder.error(f"{value} takes no arg {unknown[0]!r} (allowed: {allowed})", args_where)
    if value in ("create_token", "delete_token"):
        builder.writes = True
        builder.creates = builder.creates or value == "create_token"
    if value == "create_token":
        builder.created_name(args["name"], [*args_where, "name"])
    if value == "delete_token":
        builder.deleted_id(args["id"], [*args_where, "id"])
    if value == "create_token" and "organization_id" not in args:
        builder.target_keys.add("organization_id")
    return GraphqlCall(operation=value, args=dict(args))


def _http(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    if method_writes(value["method"]):
        builder.writes = True
        # Only the token endpoint is a POST that leaves nothing behind to clean up.
        if not TOKEN_ENDPOINT.fullmatch(value["url"]):
            builder.untracked_writes = builder.creates = True
    return HttpCall(
        method=value["method"],
        url=value["url"],
        body=value.get("body"),
        json=value.get("json"),
        form=value.get("form"),
    )


def _control(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.uses_control = True
    ((action, argument),) = value.items()
    CONTROL_ACTIONS[action].build(builder, argument, [*where, action], loop)
    return ControlCall(action, argument)


def _wait(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.waits = True
    builder.names(builder.expression(value, where), where, loop)
    return WaitCall(value)


def _kind(
    name: str, schema: Mapping[str, Any], build: StepBuild, syntax: str, meaning: str
) -> None:
    STEP_KINDS.add(Entry(name, schema, build, syntax, meaning))


_kind(
    "token",
    {"$ref": "#/$defs/scalarMap"},
    _token,
    "`token: {form fields}`",
    "posts to `{auth_url}/oauth/token` (`basic: [id, secret]` sends HTTP Basic)",
)
_kind(
    "hubs",
    {
        "anyOf": [{"const": True}, {"$ref": "#/$defs/scalarMap"}],
        "errorMessage": "hubs is true or a mapping of query parameters",
    },
    _hubs,
    "`hubs: true` / `hubs: {page: 0, size: 1}`",
    "gets `{base_url}/v2/content/hubs` with those query parameters",
)
_kind(
    "graphql",
    {
        "anyOf": [
            {"enum": list(GRAPHQL_OPERATIONS)},
            {
                "type": "object",
                "required": ["query"],
                "additionalProperties": False,
                "properties": {
                    "query": {"type": "string", "minLength": 1},
                    "variables": {"type": "object"},
                    "operation_name": {"type": "string"},
                },
            },
        ],
        "errorMessage": "graphql is one of "
        + ", ".join(GRAPHQL_OPERATIONS)
        + ", or a mapping with query (and variables)",
    },
    _graphql,
    "`graphql: viewer` (`args: {...}`) / `graphql: {query: ..., variables: ...}`",
    "posts a named operation (" + ", ".join(GRAPHQL_OPERATIONS) + ") or a document to "
    "`{graphql_url}`",
)
_kind(
    "http",
    {
        "type": "object",
        "required": ["method", "url"],
        "additionalProperties": False,
        "properties": {
            "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]},
            "url": {"type": "string", "minLength": 1},
            "body": {"type": "string"},
            "json": True,
            "form": {"$ref": "#/$defs/scalarMap"},
        },
    },
    _http,
    "`http: {method, url, body}` (or `json`, or `form`)",
    "any other request",
)
_kind(
    "control",
    {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": False,
        "errorMessage": "control holds exactly one of " + ", ".join(CONTROL_ACTIONS.names()),
        "properties": {entry.name: dict(entry.schema) for entry in CONTROL_ACTIONS},
    },
    _control,
    "`control: {action: argument}`",
    "an out-of-band action on a deployment patgate controls (see the table below)",
)
_kind(
    "wait",
    {"$ref": "#/$defs/expression"},
    _wait,
    "`wait: seconds`",
    "the fake's clock moves; a live run sleeps only within `--max-wait`",
)
