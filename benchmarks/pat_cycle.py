"""PAT cycle: create, list and delete a personal access token through httpx + respx against the
fake, side by side with moto's IAM access-key cycle (create, list, delete; one boto3 client,
inside ``mock_aws``). Goal: at least 5x faster than moto.
"""

from __future__ import annotations

from typing import Any

from benchmarks.registry import Benchmark, Plan, Unavailable
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "CREATE", "DELETE", "LIST", "client_token", "need_moto", "run"]

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


def need_moto() -> None:
    """Raise :class:`Unavailable` unless moto and boto3 (the ``bench`` extra) import."""
    try:
        import boto3  # noqa: F401
        import moto  # noqa: F401
    except ImportError as error:
        raise Unavailable(f"needs the bench extra: pip install -e '.[bench]' ({error})") from None


def run(plan: Plan) -> list[Result]:
    """Time both cycles in alternating batches of cycles."""
    need_moto()
    import boto3
    import httpx
    from moto import mock_aws

    from patgate import Fake

    rounds, batch = plan.rounds_for(30, 8), 20
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
    return [
        compare(
            name="pat_cycle",
            title="PAT cycle (create, list, delete) through httpx + respx",
            unit="ms",
            a_label="patgate fake",
            a=[sample * 1000 for sample in samples_fake],
            b_label="moto IAM access-key cycle, boto3 client reused",
            b=[sample * 1000 for sample in samples_moto],
            ratio_label="moto / fake",
            reference_over_patgate=True,
            goal=Goal("ratio", ">=", GOAL, "moto / fake"),
            details={"batch": batch},
        )
    ]


BENCHMARKS = [Benchmark("pat_cycle", run, order=10, description="PAT cycle against moto's")]
