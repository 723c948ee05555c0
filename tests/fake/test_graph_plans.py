"""Precompiled plans answer plain queries exactly as graphql-core's executor does."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import ExecutionResult, execute, parse

import patgate.fake.graph_executor as graph_executor
from patgate.fake.deployment import Deployment
from patgate.fake.graph_executor import execute_graph_request
from patgate.fake.graph_plans import compile_plan, run_plan
from patgate.fake.graph_schema import GraphContext, graph_schema
from patgate.fake.model import Principal
from patgate.fake.world import DefaultWorld

PLAIN = [
    "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }",
    "{ viewer { id email name personalAccessTokens { id name token lastUsedDate } } }",
    "query Listing { viewer { tokens: personalAccessTokens { key: id when: createdDate } } }",
    "{ me: viewer { id } viewer { name } }",
    "{ viewer { personalAccessTokens { lastUsedDate } } other: viewer { id } }",
]
"""Documents a plan covers: fields, aliases, one field under two response names."""

NOT_PLANNED = [
    "{ viewer { organizations { edges { node { id } } } } }",  # default argument values
    "{ viewer { organizations(first: 1) { edges { cursor } } } }",  # arguments
    "{ __typename viewer { id } }",  # introspection
    "{ viewer { ...F } } fragment F on Viewer { id }",  # fragments
    "{ viewer { ... on Viewer { id } } }",  # inline fragments
    "query($skip: Boolean!) { viewer { id @skip(if: $skip) } }",  # variables, directives
    "query A { viewer { id } } query B { viewer { name } }",  # which operation: graphql-core
    'mutation { deletePersonalAccessToken(input: {id: "x"}) }',  # writes
    "{ viewer { a: id a: id } }",  # one response name given twice (merged by graphql-core)
    "{ viewer { personalAccessTokens { lastUsedDate lastUsedDate } } }",
]


def _graphql_core(deployment: Deployment, principal: Principal, text: str) -> ExecutionResult:
    result = execute(
        graph_schema(),
        parse(text),
        context_value=GraphContext(deployment, principal),
        field_resolver=graph_executor._field_value,
    )
    assert isinstance(result, ExecutionResult)
    return result


def _plan_data(deployment: Deployment, principal: Principal, text: str) -> Any:
    plan = compile_plan(graph_schema(), parse(text), None, graph_executor._field_value)
    assert plan is not None
    return run_plan(plan, GraphContext(deployment, principal))


@pytest.mark.parametrize("text", PLAIN)
def test_a_plan_gives_the_data_graphql_core_gives(
    deployment: Deployment, admin: Principal, member: Principal, text: str
) -> None:
    for principal in (admin, member):
        expected = _graphql_core(deployment, principal, text)
        assert expected.errors is None
        data = _plan_data(deployment, principal, text)
        assert data == expected.data
        assert list(data) == list(expected.data or {})  # the response's order too


@pytest.mark.parametrize("text", NOT_PLANNED)
def test_what_a_plan_does_not_cover_is_left_to_graphql_core(text: str) -> None:
    assert compile_plan(graph_schema(), parse(text), None, graph_executor._field_value) is None


def test_a_named_operation_is_planned_only_under_its_own_name() -> None:
    document = parse("query A { viewer { id } } query B { viewer { name } }")
    resolver = graph_executor._field_value
    assert compile_plan(graph_schema(), document, "B", resolver) is not None
    assert compile_plan(graph_schema(), document, "C", resolver) is None


def test_a_refusal_on_a_planned_query_is_graphql_cores_error_with_its_path(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    # A removed user's PAT still authenticates; its viewer is refused by a rule.
    member = deployment.authenticate(world.member_token)
    deployment.remove_user(member.user_id, member.organization_id)
    text = PLAIN[0]
    expected = _graphql_core(deployment, member, text)
    assert expected.errors
    plan = compile_plan(graph_schema(), parse(text), None, graph_executor._field_value)
    assert plan is not None
    assert run_plan(plan, GraphContext(deployment, member)) is None  # graphql-core answers
    outcome = execute_graph_request(deployment, member, text)
    assert outcome.data == expected.data
    assert [problem.error["path"] for problem in outcome.problems] == [
        error.path for error in expected.errors
    ]


def test_a_bug_under_a_planned_query_still_reaches_the_caller(
    deployment: Deployment, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(deployment, "list_tokens", broken)
    with pytest.raises(ZeroDivisionError):
        execute_graph_request(deployment, admin, PLAIN[0])


def test_a_planned_listing_sees_each_change_at_once(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    text = PLAIN[0]
    before = execute_graph_request(deployment, admin, text).data
    assert before is not None
    created = deployment.create_token(admin, "new", world.organization_id)
    after = execute_graph_request(deployment, admin, text).data
    assert after is not None
    tokens = after["viewer"]["personalAccessTokens"]
    assert len(tokens) == len(before["viewer"]["personalAccessTokens"]) + 1
    assert created.record.id in {token["id"] for token in tokens}
