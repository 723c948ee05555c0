"""PAT cycle: create, list and delete a personal access token through httpx against the fake,
side by side with moto's IAM access-key cycle (create, list, delete; one boto3 client, inside
``mock_aws``). Goal: at least 5x faster than moto.

Where the fake's time goes is measured too, and shown in the note: the same cycle sent to
the fake's handler directly (no client), against the three POSTs through httpx to a
transport answering canned bytes (the client's own share, which no fake can lower).
"""

from __future__ import annotations

import functools
import itertools
import statistics
from collections.abc import Callable
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

        def send_cycle(client: Any) -> None:
            created = client.post(
                graphql, json={"query": CREATE, "variables": variables}, headers=auth
            ).json()["data"]["createPersonalAccessToken"]
            listed = client.post(graphql, json={"query": LIST}, headers=auth).json()
            assert listed["data"]["viewer"]["personalAccessTokens"]
            deleted = client.post(
                graphql,
                json={"query": DELETE, "variables": {"input": {"id": created["id"]}}},
                headers=auth,
            ).json()
            assert deleted["data"]["deletePersonalAccessToken"] is True

        fake_cycle = functools.partial(send_cycle, http)
        iam = boto3.client("iam", region_name="us-east-1")
        iam.create_user(UserName="bench")

        def moto_cycle() -> None:
            key = iam.create_access_key(UserName="bench")["AccessKey"]["AccessKeyId"]
            assert iam.list_access_keys(UserName="bench")["AccessKeyMetadata"]
            iam.delete_access_key(UserName="bench", AccessKeyId=key)

        samples_fake, samples_moto = interleave(
            Side("patgate fake, httpx", fake_cycle),
            Side("moto IAM key cycle, boto3", moto_cycle),
            rounds=rounds,
            batch=batch,
        )
        handler = _handler_cycle(fake, graphql, auth["Authorization"], variables)
        canned = _canned_cycle(auth, variables)
        samples_handler, samples_client = interleave(
            Side("the fake's handler alone", handler),
            Side("httpx with a canned transport", canned),
            rounds=plan.rounds_for(10, 4),
            batch=batch,
        )
        fake.stop()  # the replaying client below answers on the fake's own URLs
        samples_replay, _ = interleave(
            Side("the fake's transport replaying", _replay_cycle(fake, send_cycle)),
            Side("httpx with a canned transport", canned),
            rounds=plan.rounds_for(10, 4),
            batch=batch,
        )
    in_place = statistics.median(samples_fake) - statistics.median(samples_replay)
    return [
        compare(
            name="pat_cycle",
            title="PAT cycle (create, list, delete) through httpx",
            unit="ms",
            a_label="patgate fake",
            a=[sample * 1000 for sample in samples_fake],
            b_label="moto IAM access-key cycle, boto3 client reused",
            b=[sample * 1000 for sample in samples_moto],
            ratio_label="moto / fake",
            reference_over_patgate=True,
            goal=Goal("ratio", ">=", GOAL, "moto / fake"),
            note=(
                "of the fake's cycle, its handler (wire app, GraphQL execution, request log) "
                f"takes {statistics.median(samples_handler) * 1000:.3f} ms when called alone; "
                "the same three POSTs through httpx to a transport answering canned bytes take "
                f"{statistics.median(samples_client) * 1000:.3f} ms, and through the fake's "
                "own transport replaying the fake's answers (all but the handler) "
                f"{statistics.median(samples_replay) * 1000:.3f} ms, so in place, between "
                f"httpx's calls, the handler takes about {in_place * 1000:.3f} ms."
            ),
            details={"batch": batch},
        )
    ]


def _handler_cycle(
    fake: Any, graphql: str, authorization: str, variables: dict[str, Any]
) -> Callable[[], None]:
    """The cycle sent to the fake's handler directly: no HTTP client, no transport."""
    import json

    from patgate.wire.messages import WireRequest

    headers = (("authorization", authorization), ("content-type", "application/json"))

    def post(payload: dict[str, Any]) -> Any:
        body = json.dumps(payload).encode()
        return json.loads(fake.handle(WireRequest("POST", graphql, headers, body)).body)

    def cycle() -> None:
        created = post({"query": CREATE, "variables": variables})
        token_id = created["data"]["createPersonalAccessToken"]["id"]
        assert post({"query": LIST})["data"]["viewer"]["personalAccessTokens"]
        post({"query": DELETE, "variables": {"input": {"id": token_id}}})

    return cycle


def _replay_cycle(fake: Any, send_cycle: Callable[[Any], None]) -> Callable[[], None]:
    """``send_cycle``'s three POSTs through the fake's own transport (to its own URLs, the fake
    stopped), answered with the answers the fake gave them once: the client, the transport
    and the same bodies, without the handler."""
    import httpx

    from patgate.transports.httpx_adapter import FakeTransport
    from patgate.wire.messages import WireRequest, WireResponse

    answers: list[WireResponse] = []

    def record(request: WireRequest) -> WireResponse | None:
        answer: WireResponse = fake.handle(request)
        answers.append(answer)
        return answer

    with httpx.Client(transport=FakeTransport(record, fake.urls)) as recording:
        send_cycle(recording)
    replies = itertools.cycle(answers)
    client = httpx.Client(transport=FakeTransport(lambda request: next(replies), fake.urls))
    return functools.partial(send_cycle, client)


def _canned_cycle(auth: dict[str, str], variables: dict[str, Any]) -> Callable[[], None]:
    """Three POSTs through an httpx client whose transport answers canned bytes (to a host
    the fake does not serve, so its interception passes them on)."""
    import httpx

    graphql = "https://canned.test/graphql"
    body = b'{"data":{"viewer":{"personalAccessTokens":[]}}}'
    client = httpx.Client(
        transport=httpx.MockTransport(
            lambda request: httpx.Response(
                200, content=body, headers=[("content-type", "application/json")]
            )
        )
    )

    def cycle() -> None:
        for query in (CREATE, LIST, DELETE):
            client.post(graphql, json={"query": query, "variables": variables}, headers=auth).json()

    return cycle


BENCHMARKS = [Benchmark("pat_cycle", run, order=10, description="PAT cycle against moto's")]
