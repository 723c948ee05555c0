"""PAT cycle: create, list and delete a personal access token through httpx + respx against the
fake, side by side with moto's IAM access-key cycle (create, list, delete; one boto3 client,
inside ``mock_aws``). Goal: at least 5x faster than moto.
"""

from __future__ import annotations

from typing import Any

from benchmarks.timing import Result, Side, interleave, stats

__all__ = ["CREATE", "DELETE", "LIST", "run"]

GOAL = 5.0
CREATE = (
    "mutation($input: CreatePersonalAccessTokenInput!) {"
    " createPersonalAccessToken(input: $input) { id name token createdDate lastUsedDate } }"
)
LIST = "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }"
DELETE = (
    "mutation($input: DeletePersonalAccessTokenInput!) { deletePersonalAccessToken(input: $input) }"
)


def client_token(http: Any, world: dict[str, str]) -> str:
    """A client-credential token for the fake's default API client."""
    answer = http.post(
        world["auth_url"] + "/oauth/token",
        data={
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
            "grant_type": "client_credentials",
        },
    )
    answer.raise_for_status()
    token: str = answer.json()["access_token"]
    return token


def run(rounds: int, batch: int) -> Result:
    """Time both cycles in alternating batches of ``batch`` cycles."""
    import boto3
    import httpx
    from moto import mock_aws

    from patgate import Fake

    with Fake() as fake, httpx.Client() as http, mock_aws():
        world = fake.world
        auth = {"Authorization": "Bearer " + client_token(http, world)}
        graphql = world["graphql_url"]
        variables = {"input": {"name": "bench", "organizationId": world["organization_id"]}}

        def fake_cycle() -> None:
            created = http.post(
                graphql, json={"query": CREATE, "variables": variables}, headers=auth
            ).json()["data"]["createPersonalAccessToken"]
            listed = http.post(graphql, json={"query": LIST}, headers=auth).json()
            assert listed["data"]["viewer"]["personalAccessTokens"]
            deleted = http.post(
                graphql,
                json={"query": DELETE, "variables": {"input": {"id": created["id"]}}},
                headers=auth,
            ).json()
            assert deleted["data"]["deletePersonalAccessToken"] is True

        iam = boto3.client("iam", region_name="us-east-1")
        iam.create_user(UserName="bench")

        def moto_cycle() -> None:
            key = iam.create_access_key(UserName="bench")["AccessKey"]["AccessKeyId"]
            assert iam.list_access_keys(UserName="bench")["AccessKeyMetadata"]
            iam.delete_access_key(UserName="bench", AccessKeyId=key)

        samples_fake, samples_moto = interleave(
            Side("patgate fake, httpx + respx", fake_cycle),
            Side("moto IAM key cycle, boto3", moto_cycle),
            rounds=rounds,
            batch=batch,
        )
    fake_stats, moto_stats = stats(samples_fake, 1000), stats(samples_moto, 1000)
    ratio = moto_stats.median / fake_stats.median
    return Result(
        name="pat_cycle",
        title="PAT cycle: create, list, delete",
        unit="ms",
        a_label="patgate fake (httpx + respx)",
        a=fake_stats,
        b_label="moto IAM access-key cycle",
        b=moto_stats,
        ratio=round(ratio, 2),
        ratio_label="moto / fake",
        goal=f"moto / fake >= {GOAL:g}",
        met=ratio >= GOAL,
        details={"batch": batch},
    )
