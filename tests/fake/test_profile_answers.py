"""Each profile field changes what a client sees, through httpx against Fake(profile=...)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import patgate
from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.profile import default_profile

CREATE = (
    "mutation($o: ID!, $n: String!) {"
    " createPersonalAccessToken(input: {name: $n, organizationId: $o}) { id name token } }"
)
LIST = "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }"


class Client:
    """A user's code against one fake (through httpx, over the fake's transport, so fakes
    of several profiles can answer side by side)."""

    def __init__(self, fake: patgate.Fake) -> None:
        self.fake = fake
        self.world = fake.world
        self.http = httpx.Client(transport=fake.httpx_transport())

    def graph(self, query: str, token: str | None = None, **variables: Any) -> httpx.Response:
        bearer = token if token is not None else self.world["admin_token"]
        return self.http.post(
            self.world["graphql_url"],
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {bearer}"},
        )

    def create(self, name: str, token: str | None = None) -> httpx.Response:
        return self.graph(CREATE, token, o=self.world["organization_id"], n=name)

    def get(self, url: str, token: str | None = None) -> httpx.Response:
        bearer = token if token is not None else self.world["admin_token"]
        return self.http.get(url, headers={"Authorization": f"Bearer {bearer}"})

    def hubs(self, query: str = "", token: str | None = None) -> httpx.Response:
        return self.get(f"{self.world['base_url']}/v2/content/hubs{query}", token)

    def tokens(self) -> list[dict[str, Any]]:
        body = self.graph(LIST).json()
        listed: list[dict[str, Any]] = body["data"]["viewer"]["personalAccessTokens"]
        return listed

    def client_token(self) -> dict[str, Any]:
        answer = self.http.post(
            f"{self.world['auth_url']}/oauth/token",
            data={
                "client_id": self.world["client_id"],
                "client_secret": self.world["client_secret"],
                "grant_type": "client_credentials",
            },
        )
        body: dict[str, Any] = answer.json()
        return body


def _with(**profile: Any) -> Client:
    return Client(patgate.Fake(profile={"profile_version": 1, **profile}))


@pytest.fixture
def default() -> Client:
    return Client(patgate.Fake())


OBJECT_RESULT = {
    "shape": "object",
    "object_type": "PatDeleted",
    "fields": {"id": "token_id", "deleted": "true", "name": "name"},
}


def test_an_object_delete_result_answers_the_object_and_introspection_shows_it(
    default: Client,
) -> None:
    client = _with(delete_result=OBJECT_RESULT)
    created = client.create("to delete").json()["data"]["createPersonalAccessToken"]
    deleted = client.graph(
        "mutation($i: ID!) { deletePersonalAccessToken(input: {id: $i}) { id deleted name } }",
        i=created["id"],
    ).json()
    assert deleted == {
        "data": {
            "deletePersonalAccessToken": {"id": created["id"], "deleted": True, "name": "to delete"}
        }
    }
    introspect = '{ __type(name: "Mutation") { fields { name type { name kind } } } }'
    fields = client.graph(introspect).json()["data"]["__type"]["fields"]
    delete = next(f for f in fields if f["name"] == "deletePersonalAccessToken")
    assert delete["type"] == {"name": "PatDeleted", "kind": "OBJECT"}
    shape = client.graph('{ __type(name: "PatDeleted") { fields { name } } }').json()
    assert [f["name"] for f in shape["data"]["__type"]["fields"]] == ["id", "deleted", "name"]
    # The default fake in the same process still serves the Boolean of specs/schema.graphql.
    fields = default.graph(introspect).json()["data"]["__type"]["fields"]
    delete = next(f for f in fields if f["name"] == "deletePersonalAccessToken")
    assert delete["type"] == {"name": "Boolean", "kind": "SCALAR"}
    created = default.create("boolean").json()["data"]["createPersonalAccessToken"]
    answer = default.graph(
        "mutation($i: ID!) { deletePersonalAccessToken(input: {id: $i}) }", i=created["id"]
    ).json()
    assert answer == {"data": {"deletePersonalAccessToken": True}}


def test_the_masked_form_follows_the_profile(default: Client) -> None:
    client = _with(masked_token={"visible_characters": 4, "mask_width": 10})
    value = client.create("masked").json()["data"]["createPersonalAccessToken"]["token"]
    listed = next(t for t in client.tokens() if t["name"] == "masked")["token"]
    prefix = client.world["pat_prefix"]
    assert listed == value[: len(prefix) + 4] + "*" * 10
    value = default.create("masked").json()["data"]["createPersonalAccessToken"]["token"]
    listed = next(t for t in default.tokens() if t["name"] == "masked")["token"]
    assert listed == value[: len(prefix) + 8] + "*" * 32


def test_each_refusal_kind_takes_the_profiles_status_code_and_message() -> None:
    client = _with(
        refusals={
            "forbidden": {"status": 401, "code": "NOT_ALLOWED", "message": "not allowed"},
            "unauthenticated": {"status": 403, "code": None},
            "invalid_input": {"status": 422, "code": "INVALID"},
            "token_limit": {"code": "TOO_MANY", "message": "too many"},
            "not_found": {"code": "MISSING"},
        }
    )
    hubs = client.hubs(token=client.world["unpermitted_token"])
    assert (hubs.status_code, hubs.json()) == (401, {"errors": [{"message": "not allowed"}]})
    refused = client.create("x", token=client.world["member_token"]).json()["errors"][0]
    assert (refused["message"], refused["extensions"]) == ("not allowed", {"code": "NOT_ALLOWED"})
    bad = client.hubs(token="not-a-token")
    assert bad.status_code == 403
    graph = client.graph(LIST, token="not-a-token")
    assert graph.status_code == 403
    assert "extensions" not in graph.json()["errors"][0]
    too_big = client.hubs("?size=5000")
    assert too_big.status_code == 422
    assert "size must be between 1 and 100" in too_big.json()["errors"][0]["message"]
    long_name = client.create("n" * 300).json()["errors"][0]
    assert long_name["extensions"] == {"code": "INVALID"}
    assert long_name["message"] == "name must be at most 255 characters"  # the fake's own
    gone = client.graph('mutation { deletePersonalAccessToken(input: {id: "nope"}) }').json()[
        "errors"
    ][0]
    assert gone["extensions"] == {"code": "MISSING"}
    for number in range(5):
        client.create(f"t{number}")
    capped = client.create("sixth").json()["errors"][0]
    assert (capped["message"], capped["extensions"]) == ("too many", {"code": "TOO_MANY"})


def test_the_default_refusals_are_todays(default: Client) -> None:
    assert default.hubs(token=default.world["unpermitted_token"]).status_code == 403
    assert default.hubs(token="not-a-token").status_code == 401
    refused = default.create("x", token=default.world["member_token"]).json()["errors"][0]
    assert refused["extensions"] == {"code": "FORBIDDEN"}
    assert "admin" in refused["message"]


def test_the_token_endpoint_keeps_its_documented_and_oauth_answers() -> None:
    client = _with(refusals={"invalid_input": {"status": 422}, "unauthenticated": {"status": 403}})
    answer = client.http.post(
        f"{client.world['auth_url']}/oauth/token",
        data={"client_id": client.world["client_id"], "client_secret": "wrong"},
    )
    assert answer.status_code == 400
    answer = client.http.post(
        f"{client.world['auth_url']}/oauth/token",
        data={"client_id": "x", "client_secret": "wrong", "grant_type": "client_credentials"},
    )
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_client")


def test_the_client_token_answer_follows_the_profile_and_an_explicit_setting_wins() -> None:
    client = _with(client_token={"expires_in": 3600, "token_type": "bearer"})
    answer = client.client_token()
    assert (answer["expires_in"], answer["token_type"]) == (3600, "bearer")
    fake = patgate.Fake(
        profile={"profile_version": 1, "client_token": {"expires_in": 3600}}, expires_in=60
    )
    assert Client(fake).client_token()["expires_in"] == 60


def test_hub_fields_and_links_follow_the_profile(default: Client) -> None:
    client = _with(
        hubs={
            "fields": ["label", "createdDate"],
            "links": ["self", "content-types"],
            "date_precision": "seconds",
        }
    )
    hub = client.hubs().json()["_embedded"]["hubs"][0]
    assert list(hub) == ["id", "name", "label", "createdDate", "_links"]
    assert len(hub["createdDate"]) == len("2026-01-01T00:00:00Z")
    assert list(hub["_links"]) == ["self", "content-types"]
    single = client.get(hub["_links"]["self"]["href"]).json()
    assert list(single) == list(hub)
    hub = default.hubs().json()["_embedded"]["hubs"][0]
    assert "settings" in hub
    assert len(hub["createdDate"]) == len("2026-01-01T00:00:00.000Z")
    assert "webhooks" in hub["_links"]


def test_page_sizes_follow_the_profile(default: Client) -> None:
    client = _with(pages={"default_size": 2, "maximum_size": 2})
    page = client.hubs().json()
    assert page["page"]["size"] == 2
    assert len(page["_embedded"]["hubs"]) == 2
    assert client.hubs("?size=3").status_code == 400
    assert default.hubs().json()["page"]["size"] == 20
    assert default.hubs("?size=100").status_code == 200


def test_the_rate_limit_follows_the_profile() -> None:
    client = _with(
        rate_limit={"requests_per_minute": 2},
        refusals={"rate_limited": {"status": 403, "code": "SLOW_DOWN", "message": "slow down"}},
    )
    client.fake.control.set_rate_limit(True)
    assert [client.graph(LIST).status_code for _ in range(2)] == [200, 200]
    limited = client.graph(LIST)
    assert limited.status_code == 403
    assert limited.json() == {
        "errors": [{"message": "slow down", "extensions": {"code": "SLOW_DOWN"}}]
    }
    unlimited = _with(rate_limit={"requests_per_minute": None})
    unlimited.fake.control.set_rate_limit(True)
    assert {unlimited.graph(LIST).status_code for _ in range(70)} == {200}


def test_the_name_limit_follows_the_profile(default: Client) -> None:
    client = _with(pat_name={"max_length": 40})
    refused = client.create("n" * 41).json()["errors"][0]
    assert refused["message"] == "name must be at most 40 characters"
    assert client.create("n" * 40).json()["data"]["createPersonalAccessToken"]["name"]
    assert default.create("n" * 41).json()["data"]["createPersonalAccessToken"]["name"]


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("created_ascending", ["patgate world token", "b", "a", "c"]),
        ("created_descending", ["c", "a", "b", "patgate world token"]),
        ("name_ascending", ["a", "b", "c", "patgate world token"]),
    ],
)
def test_the_listing_order_follows_the_profile(order: str, expected: list[str]) -> None:
    client = _with(listing_order=order)
    for name in ("b", "a", "c"):
        client.fake.advance_clock(1)
        client.create(name)
    assert [t["name"] for t in client.tokens()] == expected


def test_last_used_date_precision_and_interval_follow_the_profile(default: Client) -> None:
    client = _with(
        date_precision={"lastUsedDate": "seconds"}, last_used_date={"update_interval_seconds": 60}
    )
    first = client.tokens()[0]  # the admin's world token, just used to list
    assert first["lastUsedDate"].endswith("Z")
    assert len(first["lastUsedDate"]) == len("2026-01-01T00:00:00Z")
    assert len(first["createdDate"]) == len("2026-01-01T00:00:00.000Z")  # documented
    client.fake.advance_clock(30)
    assert client.tokens()[0]["lastUsedDate"] == first["lastUsedDate"]  # within the interval
    client.fake.advance_clock(31)
    assert client.tokens()[0]["lastUsedDate"] != first["lastUsedDate"]
    used = default.tokens()[0]["lastUsedDate"]
    assert len(used) == len("2026-01-01T00:00:00.000Z")
    default.fake.advance_clock(1)
    assert default.tokens()[0]["lastUsedDate"] != used


def test_the_fake_tells_its_profile_and_refuses_one_beside_its_own_deployment() -> None:
    client = _with(listing_order="name_ascending")
    assert client.fake.profile.listing_order == "name_ascending"
    assert client.fake.profile.as_document()["listing_order"] == "name_ascending"
    assert patgate.Fake().profile == default_profile()
    with pytest.raises(UsageError, match="profile applies to the fake's own deployment"):
        patgate.Fake(deployment=Deployment(), profile={"profile_version": 1})
    with pytest.raises(UsageError, match="did you mean 'listing_order'"):
        patgate.Fake(profile={"profile_version": 1, "listing_ordr": "name_ascending"})


def test_the_default_hub_view_is_every_field_in_the_schemas_order() -> None:
    from patgate.wire import content_resources

    fake = patgate.Fake()
    hub = fake.deployment.hubs[0]
    written_out = content_resources.hub_view(hub, "https://h.test")
    assert fake.profile.hub_fields == tuple(written_out)[:-1]  # the fast path is the default
    picked = content_resources.hub_view(hub, "https://h.test", fields=("id", "name"))
    assert picked == {key: written_out[key] for key in ("id", "name", "_links")}
    generic = {
        name: read(hub) for name, read in content_resources._HUB_FIELDS.items()
    }  # the table the profile picks from
    assert {key: value for key, value in written_out.items() if key != "_links"} == generic


def test_an_object_result_changes_only_the_delete_field_of_the_served_schema() -> None:
    from graphql import print_schema

    from patgate.fake.graph_schema import graph_schema, schema_key
    from patgate.fake.profile import load_profile

    shape = load_profile({"profile_version": 1, "delete_result": OBJECT_RESULT}).delete_result
    assert schema_key(default_profile().delete_result) is None  # specs/schema.graphql itself
    default = graph_schema(None)
    reshaped = graph_schema(schema_key(shape))
    assert set(reshaped.type_map) - set(default.type_map) == {"PatDeleted"}
    for name in default.type_map:
        if name not in ("Mutation", "Boolean", "ID", "String") and not name.startswith("__"):
            assert print_schema_of(reshaped, name) == print_schema_of(default, name), name
    mutation = reshaped.mutation_type
    assert mutation is not None
    assert str(mutation.fields["deletePersonalAccessToken"].type) == "PatDeleted"
    assert str(mutation.fields["createPersonalAccessToken"].type) == "PersonalAccessToken"
    assert "type PatDeleted" in print_schema(reshaped)


def print_schema_of(schema: Any, name: str) -> str:
    from graphql import print_type

    return str(print_type(schema.type_map[name]))
