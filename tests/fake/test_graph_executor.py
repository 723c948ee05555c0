"""GraphQL over the domain: refusals as coded errors, limits before parsing, bugs raise."""

from __future__ import annotations

import base64

import pytest

import patgate.fake.graph_documents as graph_documents
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal, Role
from patgate.fake.world import DefaultWorld
from tests.fake.graph_bodies import execute_graph_request

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


def test_a_null_first_means_the_default_page(deployment: Deployment, admin: Principal) -> None:
    # `first: Int` is nullable, so null is a value the schema accepts: it means "left out".
    fields = "{ edges { cursor } pageInfo { hasNextPage } }"
    omitted = execute_graph_request(
        deployment, admin, f"{{ viewer {{ organizations {fields} }} }}"
    ).body
    literal = execute_graph_request(
        deployment, admin, f"{{ viewer {{ organizations(first: null) {fields} }} }}"
    ).body
    variable = execute_graph_request(
        deployment,
        admin,
        f"query($n: Int) {{ viewer {{ organizations(first: $n) {fields} }} }}",
        {"n": None},
    ).body
    assert "errors" not in omitted
    assert literal == variable == omitted


def test_a_comment_ended_by_a_carriage_return_hides_no_brackets(
    deployment: Deployment, admin: Principal
) -> None:
    # "\r" ends a comment for the parser, so the 20 brackets after it are real nesting.
    query = "{ viewer(x: # note\r" + "[" * 20 + "]" * 20 + ") { id } }"
    outcome = execute_graph_request(deployment, admin, query)
    assert outcome.body["errors"][0]["extensions"]["code"] == "QUERY_TOO_DEEP"


def test_a_parser_recursion_error_is_a_refused_document(
    deployment: Deployment, admin: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    def recurse(*_args: object, **_kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(graph_documents, "parse", recurse)
    outcome = execute_graph_request(deployment, admin, "{ viewer { id name } }")
    assert not outcome.executed
    assert "data" not in outcome.body
    assert outcome.body["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
    assert "nested too deeply" in outcome.body["errors"][0]["message"]


@pytest.mark.parametrize("number", ["-5", "-1", "+0", " 0", "x"])
def test_an_organizations_cursor_the_api_never_issued_is_refused(
    deployment: Deployment, admin: Principal, number: str
) -> None:
    cursor = base64.b64encode(f"arrayconnection:{number}".encode()).decode()
    query = (
        "query($a: String) { viewer { organizations(first: 1, after: $a) { edges { cursor } } } }"
    )
    body = execute_graph_request(deployment, admin, query, {"a": cursor}).body
    assert body["data"]["viewer"] is None
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


def test_the_organizations_connection_pages_with_its_own_cursors(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    second = deployment.add_organization("Second Org")
    deployment.set_role(world.admin_id, second.id, Role.MEMBER)
    query = (
        "query($a: String) { viewer { organizations(first: 1, after: $a) {"
        " edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }"
    )
    first = execute_graph_request(deployment, admin, query).body["data"]["viewer"]
    page = first["organizations"]
    assert page["pageInfo"]["hasNextPage"] is True
    after = page["pageInfo"]["endCursor"]
    rest = execute_graph_request(deployment, admin, query, {"a": after}).body["data"]["viewer"]
    assert [e["node"]["id"] for e in rest["organizations"]["edges"]] == [second.id]
    assert rest["organizations"]["pageInfo"]["hasNextPage"] is False
