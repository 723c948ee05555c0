"""The example under "Using the fake in your tests" in docs/tutorials/fixture.md, kept identical
to it by a test."""

from __future__ import annotations

import httpx

import patgate

CREATE_PAT = """
mutation($input: CreatePersonalAccessTokenInput!) {
  createPersonalAccessToken(input: $input) { id token }
}
"""


def test_my_code_against_the_fake(
    patgate_fake: patgate.Fake, patgate_world: dict[str, str]
) -> None:
    hubs_url = patgate_world["base_url"] + "/v2/content/hubs"
    with httpx.Client() as http:
        # The fake answers on the real hosts: the code under test needs no changes.
        answer = http.post(
            patgate_world["auth_url"] + "/oauth/token",
            data={
                "client_id": patgate_world["client_id"],
                "client_secret": patgate_world["client_secret"],
                "grant_type": "client_credentials",
            },
        )
        client_auth = {"Authorization": "Bearer " + answer.json()["access_token"]}
        assert http.get(hubs_url, headers=client_auth).status_code == 200

        variables = {"input": {"name": "ci", "organizationId": patgate_world["organization_id"]}}
        created = http.post(
            patgate_world["graphql_url"],
            json={"query": CREATE_PAT, "variables": variables},
            headers=client_auth,
        ).json()["data"]["createPersonalAccessToken"]
        pat_auth = {"Authorization": "Bearer " + created["token"]}

        # Time belongs to the fake: the client token expires, the PAT does not.
        patgate_fake.advance_clock(301)
        assert http.get(hubs_url, headers=client_auth).status_code == 401
        assert http.get(hubs_url, headers=pat_auth).status_code == 200

        # Its users are yours to change too: a removed user's PAT stops working at once.
        patgate_fake.remove_user(patgate_fake.default_world.admin_id)
        assert http.get(hubs_url, headers=pat_auth).status_code == 403

    statuses = [entry.status for entry in patgate_fake.request_log]
    assert statuses == [200, 200, 200, 401, 200, 403]
