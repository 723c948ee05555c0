"""The same behaviour through httpx, requests and the loopback server."""

from __future__ import annotations

from typing import Any

from tests.transports.conftest import Answer, Client

CREATE = (
    "mutation Create($input: CreatePersonalAccessTokenInput!) {"
    " createPersonalAccessToken(input: $input) { id name token createdDate lastUsedDate } }"
)
LIST = "{ viewer { id email personalAccessTokens { id name token createdDate lastUsedDate } } }"
DELETE = (
    "mutation Delete($input: DeletePersonalAccessTokenInput!) {"
    " deletePersonalAccessToken(input: $input) }"
)


def _token(client: Client, secret: str | None = None, client_id: str | None = None) -> Answer:
    world = client.world
    return client.request(
        "POST",
        world["auth_url"] + "/oauth/token",
        data={
            "client_id": client_id or world["client_id"],
            "client_secret": secret or world["client_secret"],
            "grant_type": "client_credentials",
        },
    )


def _hubs(client: Client, authorization: str | None) -> Answer:
    headers = {"Authorization": authorization} if authorization else {}
    return client.request(
        "GET", client.world["base_url"] + "/v2/content/hubs?page=0&size=2", headers=headers
    )


def _graph(
    client: Client, token: str, query: str, variables: dict[str, Any] | None = None
) -> Answer:
    return client.request(
        "POST",
        client.world["graphql_url"],
        headers={"Authorization": f"Bearer {token}"},
        json={"query": query, "variables": variables},
    )


def _create(client: Client, token: str, name: str) -> Answer:
    org = client.world["organization_id"]
    return _graph(client, token, CREATE, {"input": {"name": name, "organizationId": org}})


def test_a_token_for_good_credentials(client: Client) -> None:
    answer = _token(client)
    assert answer.status == 200
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["token_type"] == "Bearer"
    assert answer.json()["expires_in"] == 300


def test_a_bad_secret_and_an_unknown_id_answer_alike(client: Client) -> None:
    wrong = _token(client, secret="wrong")
    unknown = _token(client, client_id="00000000-0000-4000-8000-000000000000")
    assert wrong.status == unknown.status == 400
    assert wrong.body == unknown.body
    assert wrong.json()["error"] == "invalid_client"


def test_hubs_with_a_client_token_a_pat_and_a_lower_case_bearer(client: Client) -> None:
    access = _token(client).json()["access_token"]
    for authorization in (
        f"Bearer {access}",
        f"Bearer {client.world['admin_token']}",
        f"bearer {client.world['admin_token']}",
    ):
        answer = _hubs(client, authorization)
        assert answer.status == 200
        body = answer.json()
        assert body["page"] == {"size": 2, "totalElements": 3, "totalPages": 2, "number": 0}
        assert body["_links"]["next"]["href"].startswith(client.world["base_url"])


def test_a_missing_bearer_is_a_401_challenge(client: Client) -> None:
    answer = _hubs(client, None)
    assert answer.status == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json() == {"errors": [{"message": "an authorization token is required"}]}


def test_create_list_masked_and_delete_a_pat(client: Client) -> None:
    admin = client.world["admin_token"]
    created = _create(client, admin, "parity")
    assert created.status == 200
    token = created.json()["data"]["createPersonalAccessToken"]
    assert token["token"].startswith(client.world["pat_prefix"])
    assert _hubs(client, f"Bearer {token['token']}").status == 200

    listed = _graph(client, admin, LIST)
    tokens = listed.json()["data"]["viewer"]["personalAccessTokens"]
    mine = next(t for t in tokens if t["id"] == token["id"])
    assert "*" in mine["token"]
    assert token["token"] not in listed.body.decode()
    assert token["token"].split(".")[1] not in listed.body.decode()

    deleted = _graph(client, admin, DELETE, {"input": {"id": token["id"]}})
    assert deleted.json() == {"data": {"deletePersonalAccessToken": True}}
    assert _hubs(client, f"Bearer {token['token']}").status == 401


def test_the_sixth_create_reaches_the_limit(client: Client) -> None:
    admin = client.world["admin_token"]  # the world's own token is the first of five
    for i in range(4):
        assert _create(client, admin, f"t{i}").json()["data"]["createPersonalAccessToken"]
    sixth = _create(client, admin, "one too many")
    assert sixth.status == 200
    body = sixth.json()
    assert body["data"] == {"createPersonalAccessToken": None}
    assert body["errors"][0]["extensions"]["code"] == "LIMIT_REACHED"


def test_a_removed_users_pat_is_refused(client: Client) -> None:
    removed = client.world["removed_token"]
    assert _hubs(client, f"Bearer {removed}").status == 403
    answer = _graph(client, removed, LIST)
    assert answer.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


def test_a_member_may_not_create_through_the_api(client: Client) -> None:
    answer = _create(client, client.world["member_token"], "nope")
    assert answer.status == 200
    assert answer.json()["data"] == {"createPersonalAccessToken": None}
    assert answer.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


def test_bad_input_answers_alike(client: Client) -> None:
    admin = {"Authorization": f"Bearer {client.world['admin_token']}"}
    graphql = client.world["graphql_url"]
    not_json = client.request(
        "POST", graphql, headers={**admin, "Content-Type": "application/json"}, content=b"{x"
    )
    assert not_json.status == 400
    assert not_json.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    wrong_method = client.request("GET", graphql, headers=admin)
    assert (wrong_method.status, wrong_method.headers["allow"]) == (405, "POST, OPTIONS")
    unknown = client.request("GET", client.world["base_url"] + "/v2/nothing", headers=admin)
    assert unknown.status == 404
    assert unknown.json()["errors"][0]["message"].startswith("not found")


def test_the_request_log_sees_every_transport(client: Client) -> None:
    _hubs(client, None)
    [entry] = client.fake.request_log.entries()
    assert (entry.method, entry.status) == ("GET", 401)
    assert entry.url.endswith("/v2/content/hubs?page=0&size=2")
