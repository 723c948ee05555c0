"""Fresh test: what one test that uses the fake costs, set-up to teardown, side by side with
moto's equivalent. Goal: a median of at most 5 ms for the fake.

- patgate: build and start a ``Fake`` (default world, interception of httpx and requests),
  fetch a client token, one hubs GET, stop. The ``httpx.Client`` is made once, outside, as
  a session-scoped fixture would (a new client costs tens of milliseconds of TLS set-up).
- moto: ``mock_aws`` started, a ``boto3`` IAM client, a user, a key cycle (create, list,
  delete), stopped. The boto3 client is made inside, as a moto test must (it binds the
  mocked credentials); that is most of moto's figure.
"""

from __future__ import annotations

from benchmarks.pat_cycle import client_token
from benchmarks.timing import Result, Side, interleave, stats

__all__ = ["run"]

GOAL_MS = 5.0


def run(rounds: int) -> Result:
    """Time ``rounds`` fresh tests of each kind, alternating one by one."""
    import boto3
    import httpx
    from moto import mock_aws

    from patgate import Fake

    with httpx.Client() as http:

        def fake_test() -> None:
            with Fake() as fake:
                world = fake.world
                auth = {"Authorization": "Bearer " + client_token(http, world)}
                hubs = http.get(world["base_url"] + "/v2/content/hubs", headers=auth)
                assert hubs.json()["_embedded"]["hubs"]

        def moto_test() -> None:
            with mock_aws():
                iam = boto3.client("iam", region_name="us-east-1")
                iam.create_user(UserName="fresh")
                key = iam.create_access_key(UserName="fresh")["AccessKey"]["AccessKeyId"]
                assert iam.list_access_keys(UserName="fresh")["AccessKeyMetadata"]
                iam.delete_access_key(UserName="fresh", AccessKeyId=key)

        samples_fake, samples_moto = interleave(
            Side("patgate fake", fake_test),
            Side("moto", moto_test),
            rounds=rounds,
            batch=1,
            warmup=2,
        )
    fake_stats, moto_stats = stats(samples_fake, 1000), stats(samples_moto, 1000)
    return Result(
        name="fresh_test",
        title="Fresh test: set-up, client token, hubs GET, teardown",
        unit="ms",
        a_label="patgate fake",
        a=fake_stats,
        b_label="moto (mock_aws, client, user, key cycle)",
        b=moto_stats,
        ratio=round(moto_stats.median / fake_stats.median, 2),
        ratio_label="moto / fake",
        goal=f"fake median <= {GOAL_MS:g} ms",
        met=fake_stats.median <= GOAL_MS,
    )
