"""Running a GraphQL request against the fake: limits first, then a cached parse and validation.

graphql-core's parser recurses; a document nested about 246 levels deep raises
``RecursionError``, and ``max_tokens`` does not prevent it. So the document's length and
bracket depth are checked before parsing. Parsing and validation are cached per text and
per shape (:mod:`patgate.fake.graph_documents`): validation costs 5-10x what executing the
token operations does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    ExecutionResult,
    FieldNode,
    GraphQLError,
    GraphQLResolveInfo,
    default_field_resolver,
    execute,
)

from patgate.errors import DomainError
from patgate.fake.bounded_cache import BoundedCache
from patgate.fake.deployment import Deployment
from patgate.fake.graph_documents import MAX_CACHED_CHARACTERS, prepare_document
from patgate.fake.graph_outcome import Failure, GraphOutcome, GraphProblem
from patgate.fake.graph_plans import MutationPlan, Replay, compile_plan, run_mutation, run_plan
from patgate.fake.graph_schema import GraphContext, graph_schema, schema_key
from patgate.fake.model import Principal

__all__ = ["Failure", "GraphLimits", "GraphOutcome", "GraphProblem", "execute_graph_request"]


@dataclass(frozen=True)
class GraphLimits:
    """What a document may be before it is parsed; beyond these it is refused with a 400."""

    max_length: int = 64 * 1024
    """Characters of query text."""
    max_depth: int = 15
    """Nesting of ``{``, ``(`` and ``[`` together."""
    max_tokens: int = 5000
    """Lexical tokens, checked by graphql-core while parsing."""


def _request_error(message: str, failure: Failure) -> GraphOutcome:
    return GraphOutcome(None, (GraphProblem({"message": message}, failure),))


_LINE_TERMINATOR = re.compile(r"[\r\n]")


_depths: BoundedCache[str, int] = BoundedCache(
    2 * 1024 * 1024, max_entry_bytes=MAX_CACHED_CHARACTERS + 64, touch=False
)
"""Scans of texts up to the cached documents' size, within 2 MiB of text in all; the oldest
go first (a hit takes no lock: every GraphQL request asks)."""


def _bracket_depth(text: str) -> int:
    """The deepest nesting of brackets outside strings and comments (cached: ~11 us a scan)."""
    cost = len(text) + 64
    if _depths.admits(cost):
        known = _depths.get(text)
        if known is not None:
            return known
    depth = _scan_depth(text)
    _depths.put(text, depth, cost)
    return depth


def _scan_depth(text: str) -> int:
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


def _problem(error: GraphQLError, cause: DomainError | Failure | None) -> GraphProblem:
    formatted = dict(error.formatted)
    formatted.pop("extensions", None)
    node = error.nodes[0] if error.nodes else None
    field = node.name.value if isinstance(node, FieldNode) else None
    return GraphProblem(formatted, cause, field)


def _never_awaitable(value: object) -> bool:
    # Every resolver is synchronous; graphql-core's own check costs a call per field.
    del value
    return False


def _field_value(source: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
    # The fake's resolvers return plain dicts of plain values: a dict is read directly,
    # sparing the abstract Mapping check graphql-core's default makes for every field.
    if type(source) is dict:
        return source.get(info.field_name)
    return default_field_resolver(source, info, **args)


_PLANS_PER_DOCUMENT = 8
"""Operation names whose plan (or its absence) a cached document keeps."""


def _over_limits(query: str, limits: GraphLimits) -> GraphOutcome | None:
    """The refusal of a query longer or deeper than ``limits`` allow (``None``: within)."""
    if len(query) > limits.max_length:
        return _request_error(
            f"the query is longer than {limits.max_length} characters", Failure.QUERY_TOO_LARGE
        )
    if _bracket_depth(query) > limits.max_depth:
        return _request_error(
            f"the query is nested deeper than {limits.max_depth} levels", Failure.QUERY_TOO_DEEP
        )
    return None


def execute_graph_request(
    deployment: Deployment,
    principal: Principal,
    query: str,
    variables: Mapping[str, Any] | None = None,
    operation_name: str | None = None,
    limits: GraphLimits = GraphLimits(),
) -> GraphOutcome:
    """Run one GraphQL request as ``principal``.

    A rule's refusal (not admin, cap reached, not yours) comes back as a problem caused by
    the :class:`DomainError`, and a null field. An exception that is not a
    :class:`DomainError` is a bug in the fake and is re-raised, never hidden in a result.
    """
    too_big = _over_limits(query, limits)
    if too_big is not None:
        return too_big
    schema = schema_key(deployment.profile.delete_result)
    prepared = prepare_document(query, limits.max_tokens, owner=principal.user_id, schema=schema)
    # A plain query or mutation runs from its precompiled plan (fake/graph_plans.py); anything
    # else, or anything that goes wrong on the way, is executed by graphql-core (a mutation's
    # resolver is not called again: the replay answers with what its one call gave).
    if prepared.document is None:
        first = prepared.errors[0] if prepared.errors else None
        parse_failed = first is not None and first.message.startswith("Syntax Error")
        failure = Failure.PARSE if parse_failed else Failure.VALIDATION
        return GraphOutcome(None, tuple(_problem(error, failure) for error in prepared.errors))
    context = GraphContext(deployment, principal)
    plans = prepared.plans
    if operation_name in plans:
        plan = plans[operation_name]
    else:
        plan = compile_plan(graph_schema(schema), prepared.document, operation_name, _field_value)
        if len(plans) < _PLANS_PER_DOCUMENT:
            plans[operation_name] = plan
    replay: Replay | None = None
    if isinstance(plan, MutationPlan):
        ran = run_mutation(
            plan, graph_schema(schema), context, dict(variables) if variables is not None else None
        )
        if isinstance(ran, dict):
            return GraphOutcome(ran, ())
        replay = ran
    elif plan is not None:
        data = run_plan(plan, context)
        if data is not None:
            return GraphOutcome(data, ())
    result = execute(
        graph_schema(schema),
        prepared.document,
        context_value=context,
        variable_values=dict(variables) if variables is not None else None,
        operation_name=operation_name,
        field_resolver=_field_value,
        middleware=(replay,) if replay is not None else None,
        is_awaitable=_never_awaitable,
    )
    assert isinstance(result, ExecutionResult), "no resolver of the fake is asynchronous"
    return _outcome_of(result)


def _outcome_of(result: ExecutionResult) -> GraphOutcome:
    """graphql-core's result as an outcome; an error no rule raised is the fake's bug and
    is raised again."""
    for error in result.errors or ():
        original = error.original_error
        if original is not None and not isinstance(original, (DomainError, GraphQLError)):
            raise original
    if result.data is None:
        return GraphOutcome(
            None, tuple(_problem(error, Failure.INPUT) for error in result.errors or ())
        )
    problems = []
    for error in result.errors or ():
        original = error.original_error
        problems.append(_problem(error, original if isinstance(original, DomainError) else None))
    return GraphOutcome(result.data, tuple(problems))
