"""A downstream test file: one test per common mistake against the fake, each failing.

Run by ``test_near_misses.py`` in a pytester project; each test's failure report must name
its cause with the facts (the plugin's section "patgate: requests the fake refused").
"""

import httpx
import pytest

CREATE = (
    "mutation($input: CreatePersonalAccessTokenInput!) "
    "{ createPersonalAccessToken(input: $input) { id token } }"
)
DELETE = (
    "mutation($input: DeletePersonalAccessTokenInput!) { deletePersonalAccessToken(input: $input) }"
)


def _bearer(token):
    return {"Authorization": "Bearer " + token}


def _client_token(world):
    answer = httpx.post(
        world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
        },
    )
    return answer.json()["access_token"]


def _hubs(world, token):
    return httpx.get(world["base_url"] + "/v2/content/hubs", headers=_bearer(token))


def _create(world, token, name, organization=None):
    variables = {
        "input": {"name": name, "organizationId": organization or world["organization_id"]}
    }
    return httpx.post(
        world["graphql_url"], json={"query": CREATE, "variables": variables}, headers=_bearer(token)
    )


def test_client_token_after_expiry(patgate_fake, patgate_world):
    token = _client_token(patgate_world)
    patgate_fake.advance_clock(312)
    assert _hubs(patgate_world, token).status_code == 200


def test_pat_of_a_removed_user(patgate_fake, patgate_world):
    patgate_fake.remove_user(patgate_fake.world_ids()["member"])
    assert _hubs(patgate_world, patgate_world["member_token"]).status_code == 200


def test_deleted_pat(patgate_world):
    made = _create(patgate_world, patgate_world["admin_token"], "ci").json()
    created = made["data"]["createPersonalAccessToken"]
    httpx.post(
        patgate_world["graphql_url"],
        json={"query": DELETE, "variables": {"input": {"id": created["id"]}}},
        headers=_bearer(patgate_world["admin_token"]),
    )
    assert _hubs(patgate_world, created["token"]).status_code == 200


def test_wrong_secret(patgate_world):
    answer = httpx.post(
        patgate_world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": patgate_world["client_id"],
            "client_secret": "not-the-secret",
        },
    )
    assert answer.status_code == 200


def test_missing_grant_type(patgate_world):
    answer = httpx.post(
        patgate_world["auth_url"] + "/oauth/token",
        data={"client_id": patgate_world["client_id"], "client_secret": "x"},
    )
    assert answer.status_code == 200


def test_json_token_request(patgate_world):
    answer = httpx.post(
        patgate_world["auth_url"] + "/oauth/token",
        json={"grant_type": "client_credentials", "client_id": patgate_world["client_id"]},
    )
    assert answer.status_code == 200


def test_made_up_bearer(patgate_world):
    assert _hubs(patgate_world, "made-up-token").status_code == 200


def test_member_creates_a_pat(patgate_world):
    answer = _create(patgate_world, patgate_world["member_token"], "mine")
    assert "errors" not in answer.json()


def test_sixth_token(patgate_world):
    for name in ("ci", "deploy", "docs", "nightly"):
        _create(patgate_world, patgate_world["admin_token"], name)
    answer = _create(patgate_world, patgate_world["admin_token"], "one-too-many")
    assert "errors" not in answer.json()


def test_foreign_organization(patgate_world):
    answer = _create(patgate_world, patgate_world["admin_token"], "x", organization="T3JnOm90aGVy")
    assert "errors" not in answer.json()


def test_typo_in_a_content_path(patgate_world):
    answer = httpx.get(
        patgate_world["base_url"] + "/v2/content/hub", headers=_bearer(patgate_world["admin_token"])
    )
    assert answer.status_code == 200


def test_authorization_without_bearer(patgate_world):
    answer = httpx.get(
        patgate_world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": patgate_world["admin_token"]},
    )
    assert answer.status_code == 200


def test_a_fault_answered(patgate_fake, patgate_world):
    patgate_fake.add_fault("hubs", status=503)
    assert _hubs(patgate_world, patgate_world["admin_token"]).status_code == 200


def test_a_fault_never_triggered(patgate_fake, patgate_world):
    patgate_fake.add_fault("token", status=500)
    assert _hubs(patgate_world, patgate_world["admin_token"]).status_code == 200


@pytest.mark.patgate(strict=True)
def test_a_stray_host(patgate_fake):
    httpx.get("https://stray.example.invalid/status")


@pytest.mark.patgate(strict=True)
def test_a_fault_never_triggered_under_strict(patgate_fake, patgate_world):
    patgate_fake.add_fault("token", status=500)
    assert _hubs(patgate_world, patgate_world["admin_token"]).status_code == 200


@pytest.mark.patgate(faults=[{"endpoint": "token", "status": 500}])
def test_a_marker_fault_never_triggered(patgate_world):
    assert _hubs(patgate_world, patgate_world["admin_token"]).status_code == 200
