"""Precompiled plans answer plain queries and mutations exactly as graphql-core's executor
does, and a mutation's resolver runs once, whatever happens."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import ExecutionResult, execute, parse

import patgate.fake.graph_executor as graph_executor
import patgate.fake.graph_schema as graph_schema_module
from patgate.fake.deployment import Deployment
from patgate.fake.graph_executor import execute_graph_request
from patgate.fake.graph_plans import MutationPlan, compile_plan, run_plan
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
    # several mutations, run one after another
    'mutation { a: deletePersonalAccessToken(input: {id: "x"}) b: deletePersonalAccessToken('
    'input: {id: "y"}) }',
    'mutation { deletePersonalAccessToken(input: {id: "x"}) @include(if: true) }',  # directive
    "mutation { __typename }",  # introspection
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


CREATE = (
    "mutation Create($input: CreatePersonalAccessTokenInput!) {"
    " created: createPersonalAccessToken(input: $input)"
    " { id name token createdDate lastUsedDate } }"
)
DELETE = "mutation($id: ID!) { deletePersonalAccessToken(input: {id: $id}) }"


def _counting(deployment: Deployment, monkeypatch: pytest.MonkeyPatch, name: str) -> list[object]:
    """Count the calls of the deployment's operation ``name``."""
    calls: list[object] = []
    original = getattr(deployment, name)

    def counted(*args: object) -> object:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(deployment, name, counted)
    return calls


def _with_graphql_core(
    deployment: Deployment,
    principal: Principal,
    text: str,
    variables: dict[str, Any] | None,
    monkeypatch: pytest.MonkeyPatch,
) -> Any:
    """``text`` executed by graphql-core alone (no plan), as the executor reports it."""
    with monkeypatch.context() as patch:
        patch.setattr(graph_executor, "compile_plan", lambda *args: None)
        outcome = execute_graph_request(deployment, principal, text, variables)
    return outcome


def _outcome(outcome: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    return outcome.data, [(problem.error, type(problem.cause)) for problem in outcome.problems]


def test_a_simple_mutation_is_planned() -> None:
    for text in (CREATE, DELETE):
        plan = compile_plan(graph_schema(), parse(text), None, graph_executor._field_value)
        assert isinstance(plan, MutationPlan)


def test_a_planned_create_answers_as_graphql_core_does(
    deployment: Deployment, world: DefaultWorld, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(deployment, monkeypatch, "create_token")
    variables = {"input": {"name": "planned", "organizationId": world.organization_id}}
    planned = execute_graph_request(deployment, admin, CREATE, variables)
    assert len(calls) == 1
    executed = _with_graphql_core(deployment, admin, CREATE, variables, monkeypatch)
    assert planned.problems == executed.problems == ()
    assert planned.data is not None
    assert executed.data is not None
    ours, theirs = planned.data["created"], executed.data["created"]
    assert list(ours) == list(theirs)  # the same fields, in the same order
    assert ours["name"] == theirs["name"] == "planned"
    assert ours["createdDate"] == theirs["createdDate"]
    assert ours["lastUsedDate"] is theirs["lastUsedDate"] is None
    assert ours["id"] != theirs["id"]  # two tokens were made, one by each
    listed = {token.id for token in deployment.list_tokens(admin)}
    assert {ours["id"], theirs["id"]} <= listed


def test_a_planned_delete_answers_as_graphql_core_does(
    deployment: Deployment, world: DefaultWorld, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = deployment.create_token(admin, "one", world.organization_id).record.id
    second = deployment.create_token(admin, "two", world.organization_id).record.id
    calls = _counting(deployment, monkeypatch, "delete_token")
    planned = execute_graph_request(deployment, admin, DELETE, {"id": first})
    assert len(calls) == 1
    executed = _with_graphql_core(deployment, admin, DELETE, {"id": second}, monkeypatch)
    assert _outcome(planned) == _outcome(executed) == ({"deletePersonalAccessToken": True}, [])


@pytest.mark.parametrize(
    ("who", "variables"),
    [
        ("member", {"name": "x"}),  # not an admin
        ("admin", {"name": ""}),  # an empty name
        ("admin", {"name": "x", "organizationId": "unknown"}),  # another organization
    ],
)
def test_a_refused_mutation_is_graphql_cores_error_and_its_resolver_ran_once(
    deployment: Deployment,
    world: DefaultWorld,
    admin: Principal,
    member: Principal,
    monkeypatch: pytest.MonkeyPatch,
    who: str,
    variables: dict[str, str],
) -> None:
    principal = admin if who == "admin" else member
    variables = {"input": {"organizationId": world.organization_id, **variables}}
    calls = _counting(deployment, monkeypatch, "create_token")
    planned = execute_graph_request(deployment, principal, CREATE, variables)
    assert len(calls) == 1
    executed = _with_graphql_core(deployment, principal, CREATE, variables, monkeypatch)
    assert len(calls) == 2
    assert planned.data == {"created": None}
    assert _outcome(planned) == _outcome(executed)
    assert planned.problems[0].error["path"] == ["created"]


def test_a_delete_of_an_unknown_token_is_graphql_cores_error(
    deployment: Deployment, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned = execute_graph_request(deployment, admin, DELETE, {"id": "unknown"})
    executed = _with_graphql_core(deployment, admin, DELETE, {"id": "unknown"}, monkeypatch)
    assert planned.problems
    assert _outcome(planned) == _outcome(executed)


@pytest.mark.parametrize(
    "variables",
    [None, {"input": {"name": "x"}}, {"input": {"name": 5, "organizationId": "o"}}, {"input": 1}],
)
def test_variables_that_do_not_coerce_run_nothing_and_are_graphql_cores_errors(
    deployment: Deployment,
    admin: Principal,
    monkeypatch: pytest.MonkeyPatch,
    variables: dict[str, Any] | None,
) -> None:
    calls = _counting(deployment, monkeypatch, "create_token")
    planned = execute_graph_request(deployment, admin, CREATE, variables)
    executed = _with_graphql_core(deployment, admin, CREATE, variables, monkeypatch)
    assert calls == []
    assert planned.data is None
    assert planned.problems
    assert _outcome(planned) == _outcome(executed)


def test_a_result_its_type_refuses_is_completed_by_graphql_core_without_a_second_call(
    deployment: Deployment, world: DefaultWorld, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(deployment, monkeypatch, "create_token")
    original = graph_schema_module.token_view

    def odd_view(*args: Any, **kwargs: Any) -> dict[str, Any]:
        # A bug: a date that String cannot represent.
        return {**original(*args, **kwargs), "lastUsedDate": {"not": "a string"}}

    monkeypatch.setattr(graph_schema_module, "token_view", odd_view)
    variables = {"input": {"name": "x", "organizationId": world.organization_id}}
    planned = execute_graph_request(deployment, admin, CREATE, variables)
    assert len(calls) == 1
    executed = _with_graphql_core(deployment, admin, CREATE, variables, monkeypatch)
    assert _outcome(planned)[1] == _outcome(executed)[1]  # the same error, at the same path
    assert planned.problems[0].error["path"] == ["created", "lastUsedDate"]
    assert planned.data is not None
    assert executed.data is not None
    ours, theirs = planned.data["created"], executed.data["created"]
    assert list(ours) == list(theirs)
    assert ours["lastUsedDate"] is theirs["lastUsedDate"] is None  # the nullable field nulled
    assert ours["name"] == theirs["name"] == "x"


def test_a_bug_under_a_planned_mutation_reaches_the_caller_after_one_call(
    deployment: Deployment, world: DefaultWorld, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[object] = []

    def broken(*args: object) -> None:
        calls.append(args)
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(deployment, "create_token", broken)
    variables = {"input": {"name": "x", "organizationId": world.organization_id}}
    with pytest.raises(ZeroDivisionError):
        execute_graph_request(deployment, admin, CREATE, variables)
    assert len(calls) == 1


@pytest.mark.parametrize(
    "given",
    [
        {"name": "plain", "organizationId": None},
        {"name": "ünïcode \u2603", "organizationId": None},
        {"name": "a number as the id", "organizationId": 5},  # ID coerces an int
        {"organizationId": None, "name": "fields in another order"},
    ],
)
def test_the_resolver_gets_the_arguments_graphql_core_would_give(
    deployment: Deployment,
    world: DefaultWorld,
    admin: Principal,
    monkeypatch: pytest.MonkeyPatch,
    given: dict[str, Any],
) -> None:
    organization = given["organizationId"] or world.organization_id
    variables = {"input": {**given, "organizationId": organization}}
    by_input = (
        "mutation($input: CreatePersonalAccessTokenInput!) {"
        " createPersonalAccessToken(input: $input) { name } }"
    )
    by_fields = (
        "mutation($name: String!, $org: ID!) {"
        " createPersonalAccessToken(input: {name: $name, organizationId: $org}) { name } }"
    )
    for text, sent in (
        (by_input, variables),
        (by_fields, {"name": given["name"], "org": organization}),
    ):
        calls = _counting(deployment, monkeypatch, "create_token")
        planned = execute_graph_request(deployment, admin, text, sent)
        executed = _with_graphql_core(deployment, admin, text, sent, monkeypatch)
        assert _outcome(planned) == _outcome(executed)
        assert len(calls) == 2
        assert calls[0] == calls[1]
        for created in deployment.list_tokens(admin):
            if created.name == given["name"]:
                deployment.delete_token(admin, created.id)
