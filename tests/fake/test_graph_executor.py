"""GraphQL over the domain: refusals as coded errors, limits before parsing, bugs raise."""

from __future__ import annotations

import pytest

from patgate.fake.deployment import Deployment
from patgate.fake.graph_executor import execute_graph_request
from patgate.fake.model import Principal
from patgate.fake.world import DefaultWorld

CREATE = """mutation Create($name: String!, $org: ID!) {
  createPersonalAccessToken(input: {name: $name, organizationId: $org}) {
    id name token createdDate lastUsedDate
  }
}"""
LIST = "{ viewer { id email name personalAccessTokens { id name token lastUsedDate } } }"


def test_create_returns_the_full_value_once_and_lists_it_masked(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    outcome = execute_graph_request(
        deployment, admin, CREATE, {"name": "ci", "org": world.organization_id}
    )
    created = outcome.body["data"]["createPersonalAccessToken"]
    assert outcome.executed
    assert created["name"] == "ci"
    assert created["lastUsedDate"] is None
    assert created["createdDate"] == "2023-11-21T14:36:00.916Z"
    listing = execute_graph_request(deployment, admin, LIST).body
    assert created["token"] not in repr(listing)
    tokens = {t["id"]: t["token"] for t in listing["data"]["viewer"]["personalAccessTokens"]}
    assert created["token"].startswith(tokens[created["id"]].rstrip("*"))


def test_ten_aliased_creates_fill_exactly_the_free_slots(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    fields = " ".join(
        f'c{i}: createPersonalAccessToken(input: {{name: "n{i}", organizationId: $org}}) {{ id }}'
        for i in range(10)
    )
    body = execute_graph_request(
        deployment, admin, f"mutation($org: ID!) {{ {fields} }}", {"org": world.organization_id}
    ).body
    assert sum(v is not None for v in body["data"].values()) == 4  # the world's token is 1
    assert {e["extensions"]["code"] for e in body["errors"]} == {"LIMIT_REACHED"}
    assert len(body["errors"]) == 6


def test_a_refusal_is_a_coded_error_with_a_null_field(
    deployment: Deployment, world: DefaultWorld, member: Principal
) -> None:
    body = execute_graph_request(
        deployment, member, CREATE, {"name": "x", "org": world.organization_id}
    ).body
    assert body["data"] == {"createPersonalAccessToken": None}
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert body["errors"][0]["path"] == ["createPersonalAccessToken"]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("{ viewer { id ", "GRAPHQL_PARSE_FAILED"),
        ("{ viewer { nope } }", "GRAPHQL_VALIDATION_FAILED"),
        ("{ viewer " + "{ id " * 246 + "}" * 247, "QUERY_TOO_DEEP"),
        ("{" * 10_000, "QUERY_TOO_DEEP"),
        ("{ viewer { id } }" + " " * 70_000, "QUERY_TOO_LARGE"),
        ("{ " + "viewer { id } " * 2000 + "}", "GRAPHQL_PARSE_FAILED"),
        (
            "fragment A on Viewer { ...B } fragment B on Viewer { ...A } { viewer { ...A } }",
            "GRAPHQL_VALIDATION_FAILED",
        ),
    ],
)
def test_bad_documents_are_refused_before_execution(
    deployment: Deployment, admin: Principal, query: str, code: str
) -> None:
    outcome = execute_graph_request(deployment, admin, query)
    assert not outcome.executed
    assert "data" not in outcome.body
    assert outcome.body["errors"][0]["extensions"]["code"] == code


def test_braces_inside_strings_and_comments_do_not_count_as_depth(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    query = CREATE.replace("$name: String!", "$name: String! # {{{{{{{{{{{{{{{{{{{{\n")
    outcome = execute_graph_request(
        deployment, admin, query, {"name": "{" * 40, "org": world.organization_id}
    )
    assert outcome.executed


def test_missing_variables_are_a_request_error(deployment: Deployment, admin: Principal) -> None:
    outcome = execute_graph_request(deployment, admin, CREATE, {})
    assert not outcome.executed
    assert outcome.body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


def test_introspection_answers(deployment: Deployment, admin: Principal) -> None:
    query = '{ __type(name: "Mutation") { fields { name type { name kind } } } }'
    body = execute_graph_request(deployment, admin, query).body
    fields = {f["name"]: f["type"]["name"] for f in body["data"]["__type"]["fields"]}
    assert fields["deletePersonalAccessToken"] == "Boolean"


def test_a_bug_in_the_fake_raises_instead_of_becoming_an_error_entry(
    world: DefaultWorld, admin: Principal, deployment: Deployment
) -> None:
    class Broken(RuntimeError):
        pass

    def explode(*_args: object) -> None:
        raise Broken("bug")

    deployment.list_tokens = explode  # type: ignore[method-assign]
    with pytest.raises(Broken):
        execute_graph_request(deployment, admin, LIST)


def test_organizations_page_size_is_bounded(deployment: Deployment, admin: Principal) -> None:
    good = execute_graph_request(
        deployment, admin, "{ viewer { organizations(first: 1) { edges { node { id } } } } }"
    ).body
    assert len(good["data"]["viewer"]["organizations"]["edges"]) == 1
    for first in (0, -1, 1_000_000_000):
        body = execute_graph_request(
            deployment,
            admin,
            f"{{ viewer {{ organizations(first: {first}) {{ edges {{ cursor }} }} }} }}",
        ).body
        assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
