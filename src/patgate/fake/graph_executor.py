"""Running a GraphQL request against the fake: limits first, then a cached parse and validation.

graphql-core's parser recurses; a document nested about 246 levels deep raises
``RecursionError``, and ``max_tokens`` does not prevent it. So the document's length and
bracket depth are checked before parsing. Parsing and validation are cached per text and
per shape (:mod:`patgate.fake.graph_documents`): validation costs 5-10x what executing the
token operations does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import ExecutionResult, GraphQLError, execute

from patgate.errors import (
    DomainError,
    Forbidden,
    InvalidRequest,
    NotFound,
    TokenLimitReached,
    Unauthenticated,
)
from patgate.fake.deployment import Deployment
from patgate.fake.graph_documents import prepare_document
from patgate.fake.graph_schema import GraphContext, graph_schema
from patgate.fake.model import Principal

__all__ = ["GraphLimits", "GraphOutcome", "execute_graph_request"]

_CODES: dict[type[DomainError], str] = {
    Unauthenticated: "UNAUTHENTICATED",
    Forbidden: "FORBIDDEN",
    TokenLimitReached: "LIMIT_REACHED",
    NotFound: "NOT_FOUND",
    InvalidRequest: "BAD_USER_INPUT",
}


@dataclass(frozen=True)
class GraphLimits:
    """What a document may be before it is parsed; beyond these it is refused with a 400."""

    max_length: int = 64 * 1024
    """Characters of query text."""
    max_depth: int = 15
    """Nesting of ``{``, ``(`` and ``[`` together."""
    max_tokens: int = 5000
    """Lexical tokens, checked by graphql-core while parsing."""


@dataclass(frozen=True)
class GraphOutcome:
    """The response body, and whether the request reached execution.

    A request that did not (bad document, limits, variables) has no ``data`` key; the wire
    layer answers it with a 4xx, an executed one with 200.
    """

    body: dict[str, Any]
    executed: bool


def _request_error(message: str, code: str) -> GraphOutcome:
    return GraphOutcome({"errors": [{"message": message, "extensions": {"code": code}}]}, False)


_LINE_TERMINATOR = re.compile(r"[\r\n]")


@functools.lru_cache(maxsize=512)
def _bracket_depth(text: str) -> int:
    """The deepest nesting of brackets outside strings and comments (cached: ~11 us a scan)."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            # "\r" alone ends a comment too: the parser would see brackets this scan skipped.
            terminator = _LINE_TERMINATOR.search(text, i)
            i = n if terminator is None else terminator.start()
        elif ch == '"':
            if text.startswith('"""', i):
                end = text.find('"""', i + 3)
                i = n if end < 0 else end + 3
                continue
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif ch in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "})]":
            depth -= 1
        i += 1
    return deepest


def _format_error(error: GraphQLError) -> dict[str, Any]:
    formatted = dict(error.formatted)
    original = error.original_error
    if isinstance(original, DomainError):
        code = next((c for cls, c in _CODES.items() if isinstance(original, cls)), original.code)
        formatted["extensions"] = {"code": code}
    return formatted


def execute_graph_request(
    deployment: Deployment,
    principal: Principal,
    query: str,
    variables: Mapping[str, Any] | None = None,
    operation_name: str | None = None,
    limits: GraphLimits = GraphLimits(),
) -> GraphOutcome:
    """Run one GraphQL request as ``principal``.

    A rule's refusal (not admin, cap reached, not yours) comes back as an entry of
    ``errors`` with ``extensions.code`` and a null field. An exception that is not a
    :class:`DomainError` is a bug in the fake and is re-raised, never hidden in a response.
    """
    if len(query) > limits.max_length:
        return _request_error(
            f"the query is longer than {limits.max_length} characters", "QUERY_TOO_LARGE"
        )
    if _bracket_depth(query) > limits.max_depth:
        return _request_error(
            f"the query is nested deeper than {limits.max_depth} levels", "QUERY_TOO_DEEP"
        )
    prepared = prepare_document(query, limits.max_tokens)
    if prepared.document is None:
        first = prepared.errors[0] if prepared.errors else None
        parse_failed = first is not None and first.message.startswith("Syntax Error")
        code = "GRAPHQL_PARSE_FAILED" if parse_failed else "GRAPHQL_VALIDATION_FAILED"
        return GraphOutcome(
            {
                "errors": [
                    {**dict(error.formatted), "extensions": {"code": code}}
                    for error in prepared.errors
                ]
            },
            False,
        )
    result = execute(
        graph_schema(),
        prepared.document,
        context_value=GraphContext(deployment, principal),
        variable_values=dict(variables) if variables is not None else None,
        operation_name=operation_name,
    )
    assert isinstance(result, ExecutionResult), "no resolver of the fake is asynchronous"
    for error in result.errors or ():
        original = error.original_error
        if original is not None and not isinstance(original, (DomainError, GraphQLError)):
            raise original
    if result.data is None:
        errors = [
            {**dict(error.formatted), "extensions": {"code": "BAD_USER_INPUT"}}
            for error in result.errors or ()
        ]
        return GraphOutcome({"errors": errors}, False)
    body: dict[str, Any] = {}
    if result.errors:
        body["errors"] = [_format_error(error) for error in result.errors]
    body["data"] = result.data
    return GraphOutcome(body, True)
