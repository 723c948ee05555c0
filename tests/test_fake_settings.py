"""The deployment's settings on ``patgate.Fake``: each one changes what a client sees, and a bad
value is a clear error."""

from __future__ import annotations

import sys

import httpx
import pytest

from patgate.errors import UsageError
from patgate.fake import world
from patgate.fake.deployment import Deployment
from patgate.harness import Fake

CREATE = (
    "mutation($i: CreatePersonalAccessTokenInput!) {"
    " createPersonalAccessToken(input: $i) { id token } }"
)


def _client_token(fake: Fake) -> dict[str, object]:
    w = fake.world
    answer = httpx.post(
        w["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": w["client_id"],
            "client_secret": w["client_secret"],
        },
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def test_expires_in_and_session_expires_in_reach_the_token_answer() -> None:
    with Fake(expires_in=60, session_expires_in=600) as fake:
        body = _client_token(fake)
        assert (body["expires_in"], body["session_expires_in"]) == (60, 600)
        hubs = fake.world["base_url"] + "/v2/content/hubs"
        auth = {"Authorization": f"Bearer {body['access_token']}"}
        # The fake's clock runs with the wall clock: margins keep a loaded machine out of it.
        fake.advance_clock(30)
        assert httpx.get(hubs, headers=auth).status_code == 200
        fake.advance_clock(31)
        assert httpx.get(hubs, headers=auth).status_code == 401


def test_max_tokens_per_user_sets_the_cap() -> None:
    with Fake(max_tokens_per_user=2) as fake:
        w = fake.world
        auth = {"Authorization": "Bearer " + w["admin_token"]}

        def create(name: str) -> dict[str, object]:
            variables = {"i": {"name": name, "organizationId": w["organization_id"]}}
            body: dict[str, object] = httpx.post(
                w["graphql_url"], json={"query": CREATE, "variables": variables}, headers=auth
            ).json()
            return body

        assert "errors" not in create("second")  # the world's token is the first
        refused = create("third")
        assert refused["errors"][0]["extensions"]["code"] == "LIMIT_REACHED"  # type: ignore[index]


def test_pat_prefix_shapes_the_world_tokens() -> None:
    fake = Fake(pat_prefix="acme_")
    assert fake.world["pat_prefix"] == "acme_"
    assert fake.world["admin_token"].startswith("acme_")
    with fake:
        hubs = fake.world["base_url"] + "/v2/content/hubs"
        auth = {"Authorization": "Bearer " + fake.world["member_token"]}
        assert httpx.get(hubs, headers=auth).status_code == 200


def test_the_seed_changes_ids_and_names_and_repeats_itself() -> None:
    default, seven, again = Fake(), Fake(seed=7), Fake(seed=7)
    assert seven.world["organization_id"] == again.world["organization_id"]
    assert seven.world["organization_id"] != default.world["organization_id"]
    admin = seven.deployment.users[seven.default_world.admin_id]
    default_admin = default.deployment.users[default.default_world.admin_id]
    assert admin.name != default_admin.name
    assert admin.email.endswith("@example.com")


def test_the_default_world_needs_no_faker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faker", None)  # import faker now raises ImportError
    world.world_template.cache_clear()
    try:
        assert Fake().default_world.organization_id
        with pytest.raises(UsageError, match=r"pip install 'patgate\[worlds\]'"):
            Fake(seed=3)
    finally:
        world.world_template.cache_clear()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"expires_in": 0}, "expires_in must be at least 1, got 0"),
        ({"max_tokens_per_user": "5"}, "max_tokens_per_user must be an integer, got str"),
        ({"seed": True}, "seed must be an integer, got bool"),
        ({"pat_prefix": "bad prefix"}, "pat_prefix must be letters, digits"),
        ({"expires": 60}, r"unknown fake settings \['expires'\]"),
    ],
)
def test_a_bad_setting_is_a_clear_error(settings: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Fake(**settings)


def test_settings_beside_a_deployment_of_ones_own_are_refused() -> None:
    with pytest.raises(UsageError, match=r"pass them to Deployment\(\.\.\.\) instead"):
        Fake(deployment=Deployment(), expires_in=60)
