from __future__ import annotations

import json

import pytest

from patgate.fake.world import DefaultWorld
from tests.wire.conftest import GRAPHQL_URL, HUBS_URL, JSON, Call, bearer, graph_body

VIEWER = "{ viewer { id email name personalAccessTokens { id name token } } }"
CREATE = (
    "mutation Create($input: CreatePersonalAccessTokenInput!) {"
    " createPersonalAccessToken(input: $input) { id name token createdDate lastUsedDate } }"
)
DELETE = (
    "mutation Delete($input: DeletePersonalAccessTokenInput!) {"
    " deletePersonalAccessToken(input: $input) }"
)


def test_viewer_lists_the_callers_tokens_masked(call: Call, world: DefaultWorld) -> None:
    response = call("POST", GRAPHQL_URL, [JSON, bearer(world.admin_token)], graph_body(VIEWER))
    assert response.status == 200
    viewer = response.json()["data"]["viewer"]
    assert viewer["email"]
    [token] = viewer["personalAccessTokens"]
    assert token["token"].startswith("amp_pat_")
    assert "*" in token["token"]
    assert world.admin_token not in response.body.decode()


def test_create_then_delete(call: Call, world: DefaultWorld) -> None:
    auth = [JSON, bearer(world.admin_token)]
    variables = {"input": {"name": "ci", "organizationId": world.organization_id}}
    created = call("POST", GRAPHQL_URL, auth, graph_body(CREATE, variables))
    assert created.status == 200
    token = created.json()["data"]["createPersonalAccessToken"]
    assert token["lastUsedDate"] is None
    assert call("GET", HUBS_URL, [bearer(token["token"])]).status == 200
    deleted = call("POST", GRAPHQL_URL, auth, graph_body(DELETE, {"input": {"id": token["id"]}}))
    assert deleted.json() == {"data": {"deletePersonalAccessToken": True}}


def test_a_rule_refusal_is_200_with_a_code_and_a_null_field(
    call: Call, world: DefaultWorld
) -> None:
    variables = {"input": {"name": "ci", "organizationId": world.organization_id}}
    response = call(
        "POST", GRAPHQL_URL, [JSON, bearer(world.member_token)], graph_body(CREATE, variables)
    )
    assert response.status == 200
    body = response.json()
    assert body["data"] == {"createPersonalAccessToken": None}
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"


def test_introspection_works(call: Call, world: DefaultWorld) -> None:
    query = "{ __schema { mutationType { fields { name } } } }"
    response = call("POST", GRAPHQL_URL, [JSON, bearer(world.admin_token)], graph_body(query))
    assert response.status == 200
    names = {f["name"] for f in response.json()["data"]["__schema"]["mutationType"]["fields"]}
    assert {"createPersonalAccessToken", "deletePersonalAccessToken"} <= names


@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [(None, "Bearer"), ("Bearer nope", 'Bearer error="invalid_token"')],
)
def test_a_missing_or_bad_bearer_is_401_unauthenticated(
    call: Call, authorization: str | None, challenge: str
) -> None:
    headers = [JSON] + ([("Authorization", authorization)] if authorization else [])
    response = call("POST", GRAPHQL_URL, headers, graph_body(VIEWER))
    assert response.status == 401
    assert response.header("www-authenticate") == challenge
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "UNAUTHENTICATED"}
    assert error["message"]


def test_a_removed_users_pat_is_refused_with_a_code(call: Call, world: DefaultWorld) -> None:
    response = call("POST", GRAPHQL_URL, [JSON, bearer(world.removed_token)], graph_body(VIEWER))
    assert response.status == 200
    assert response.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


def test_the_json_content_type_may_carry_a_charset(call: Call, world: DefaultWorld) -> None:
    headers = [("Content-Type", "application/json; charset=utf-8"), bearer(world.admin_token)]
    assert call("POST", GRAPHQL_URL, headers, graph_body(VIEWER)).status == 200


def test_a_document_that_does_not_execute_is_400(call: Call, world: DefaultWorld) -> None:
    auth = [JSON, bearer(world.admin_token)]
    syntax = call("POST", GRAPHQL_URL, auth, graph_body("{ viewer { "))
    assert syntax.status == 400
    assert "data" not in syntax.json()
    assert syntax.json()["errors"][0]["locations"]
    unknown = call("POST", GRAPHQL_URL, auth, graph_body("{ nothing }"))
    assert unknown.status == 400
    body = json.dumps({"query": VIEWER, "operationName": "Missing"}).encode()
    assert call("POST", GRAPHQL_URL, auth, body).status == 400


def test_get_is_405(call: Call) -> None:
    response = call("GET", f"{GRAPHQL_URL}?query={{viewer{{id}}}}")
    assert response.status == 405
    assert response.header("allow") == "POST, OPTIONS"
    assert response.json()["errors"][0]["extensions"]["code"] == "METHOD_NOT_ALLOWED"


@pytest.mark.parametrize(
    ("query", "status"),
    [("x_access_token=1", 200), ("q=access_token%3D1", 200), ("access%5Ftoken=abc", 400)],
)
def test_only_an_access_token_parameter_in_the_url_is_a_second_credential(
    call: Call, world: DefaultWorld, query: str, status: int
) -> None:
    headers = [JSON, bearer(world.admin_token)]
    assert call("POST", f"{GRAPHQL_URL}?{query}", headers, graph_body(VIEWER)).status == status
