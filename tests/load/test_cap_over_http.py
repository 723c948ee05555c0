"""The cap of 5 and single deletion hold under concurrency through HTTP (SECURITY F.47-50).

``tests/fake/test_concurrency.py`` races the domain; these race the whole stack: GraphQL
over the in-process httpx transport (32 threads x 200 rounds), and over real sockets to the
loopback server. A racy twin of the fake must fail the same test, or it would prove nothing.
The world's admin starts each round holding 1 token, so 4 slots remain.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from patgate.harness import Fake
from patgate.transports.loopback_server import LoopbackServer
from tests.fake.test_concurrency import RacyDeployment
from tests.load.conftest import LIMIT, GraphClient, create_document, delete_document, error_codes

# Load: many threads, many rounds, real sockets.
pytestmark = pytest.mark.slow

THREADS = 32
CAP = 5
Answer = dict[str, Any]


@dataclass
class RaceOutcome:
    rounds: int = 0
    violations: int = 0
    most_held: int = 0


def _race(fake: Fake, clients: list[GraphClient], rounds: int) -> RaceOutcome:
    """Each round: all threads create at once; then the round's tokens are deleted again."""
    admin = clients[0]
    document = create_document(fake.default_world.organization_id)
    outcome = RaceOutcome()
    with ThreadPoolExecutor(len(clients)) as pool:
        for _ in range(rounds):
            held_before = len(admin.token_ids())
            barrier = threading.Barrier(len(clients))

            def create(client: GraphClient, barrier: threading.Barrier = barrier) -> Answer:
                barrier.wait()
                return client.post(document)

            answers = list(pool.map(create, clients))
            made = [
                a["data"]["createPersonalAccessToken"]["id"]
                for a in answers
                if (a.get("data") or {}).get("createPersonalAccessToken")
            ]
            refused = [a for a in answers if error_codes(a) == [LIMIT]]
            held = len(admin.token_ids())
            outcome.rounds += 1
            outcome.most_held = max(outcome.most_held, held)
            if (
                len(made) != CAP - held_before
                or len(refused) != len(clients) - len(made)
                or held != CAP
            ):
                outcome.violations += 1
            for token_id in made:
                admin.post(delete_document(token_id))
    return outcome


def _clients(fake: Fake, count: int, client: httpx.Client) -> list[GraphClient]:
    return [GraphClient(client, fake, fake.default_world.admin_token) for _ in range(count)]


@pytest.fixture
def in_process() -> Iterator[tuple[Fake, httpx.Client]]:
    fake = Fake()
    with httpx.Client(transport=fake.httpx_transport()) as client:
        yield fake, client


def test_32_threads_x_200_rounds_in_process_never_pass_the_cap(
    in_process: tuple[Fake, httpx.Client],
) -> None:
    fake, client = in_process
    outcome = _race(fake, _clients(fake, THREADS, client), rounds=200)
    assert outcome == RaceOutcome(rounds=200, violations=0, most_held=CAP)


def test_32_threads_over_the_loopback_server_never_pass_the_cap() -> None:
    server = LoopbackServer()
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    # One keep-alive connection per thread: the requests really arrive together.
    sockets = [httpx.Client(timeout=30) for _ in range(THREADS)]
    try:
        clients = [GraphClient(s, fake, fake.default_world.admin_token) for s in sockets]
        outcome = _race(fake, clients, rounds=20)
    finally:
        for each in sockets:
            each.close()
        server.stop()
    assert outcome == RaceOutcome(rounds=20, violations=0, most_held=CAP)


def test_the_race_catches_a_fake_without_the_lock() -> None:
    fake = Fake(deployment=RacyDeployment())
    with httpx.Client(transport=fake.httpx_transport()) as client:
        outcome = _race(fake, _clients(fake, THREADS, client), rounds=5)
    assert outcome.violations > 0
    assert outcome.most_held > CAP


def test_ten_aliased_creates_yield_exactly_the_remaining_slots(
    in_process: tuple[Fake, httpx.Client],
) -> None:
    fake, client = in_process
    world = fake.default_world
    fresh_admin = fake.add_user("Ada Fresh", role="admin")
    fresh_token = fake.issue_token(fresh_admin.id)  # the UI path: it holds 1 from the start
    fresh = GraphClient(client, fake, fresh_token)
    admin = GraphClient(client, fake, world.admin_token)
    document = create_document(world.organization_id, aliases=10)
    for speaker, free in [(admin, 4), (fresh, 4), (admin, 0)]:
        body = speaker.post(document)
        created = [v for v in body["data"].values() if v is not None]
        assert len(created) == free
        assert error_codes(body) == [LIMIT] * (10 - free)
        assert len(speaker.token_ids()) == CAP


def test_two_threads_deleting_one_token_exactly_one_succeeds(
    in_process: tuple[Fake, httpx.Client],
) -> None:
    fake, client = in_process
    admin, other = _clients(fake, 2, client)
    document = create_document(fake.default_world.organization_id)
    with ThreadPoolExecutor(2) as pool:
        for _ in range(50):
            token_id = admin.post(document)["data"]["createPersonalAccessToken"]["id"]
            barrier = threading.Barrier(2)

            def delete(
                client: GraphClient, barrier: threading.Barrier = barrier, token_id: str = token_id
            ) -> Answer:
                barrier.wait()
                return client.post(delete_document(token_id))

            answers = list(pool.map(delete, [admin, other]))
            results = sorted(
                "deleted" if a["data"]["deletePersonalAccessToken"] else error_codes(a)[0]
                for a in answers
            )
            assert results == ["NOT_FOUND", "deleted"]
            assert len(admin.token_ids()) == 1


def test_creates_and_deletes_at_the_cap_never_go_over_it(
    in_process: tuple[Fake, httpx.Client],
) -> None:
    fake, client = in_process
    clients = _clients(fake, 16, client)
    admin = clients[0]
    document = create_document(fake.default_world.organization_id)
    with ThreadPoolExecutor(16) as pool:
        for _ in range(30):
            while len(admin.token_ids()) < CAP:
                admin.post(document)
            doomed = admin.token_ids()[1:]  # keep the world's token; 4 deletes race 12 creates
            barrier = threading.Barrier(16)

            def act(
                index: int, barrier: threading.Barrier = barrier, doomed: list[str] = doomed
            ) -> Answer:
                barrier.wait()
                if index < len(doomed):
                    return clients[index].post(delete_document(doomed[index]))
                return clients[index].post(document)

            answers = list(pool.map(act, range(16)))
            deleted = sum(
                1 for a in answers[: len(doomed)] if a["data"]["deletePersonalAccessToken"]
            )
            created = sum(
                1 for a in answers[len(doomed) :] if a["data"]["createPersonalAccessToken"]
            )
            held = len(admin.token_ids())
            assert deleted == len(doomed)
            assert created <= deleted
            assert held == CAP - deleted + created
