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

from benchmarks.pat_cycle import client_token, need_moto
from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "run"]

GOAL_MS = 5.0


def run(plan: Plan) -> list[Result]:
    """Time fresh tests of each kind, alternating one by one."""
    need_moto()
    rounds = plan.rounds_for(30, 8)
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
    return [
        compare(
            name="fresh_test",
            title="Fresh test: build and start the fake, client token, hubs GET, stop",
            unit="ms",
            a_label="patgate fake",
            a=[sample * 1000 for sample in samples_fake],
            b_label="moto (mock_aws, client, user, key cycle)",
            b=[sample * 1000 for sample in samples_moto],
            ratio_label="moto / fake",
            reference_over_patgate=True,
            goal=Goal("patgate", "<=", GOAL_MS, "fake", "ms"),
        )
    ]


BENCHMARKS = [Benchmark("fresh_test", run, order=30, description="one fresh test against moto's")]
