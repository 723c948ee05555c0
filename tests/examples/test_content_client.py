"""The example client, tested the way its authors would: through patgate's public fixtures only.

Every test runs twice, with the httpx client and with the requests one. The clients talk to
the real hosts; ``patgate_fake`` intercepts them, so nothing leaves the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import requests

from patgate import Fake
from tests.examples import content_client, content_client_requests
from tests.examples.content_api import (
    AccessRevoked,
    AuthenticationFailed,
    TokenLimitReached,
)

AnyClient = content_client.ContentClient | content_client_requests.ContentClient
Connect = Callable[..., AnyClient]


@pytest.fixture(params=["httpx", "requests"])
def connect(
    request: pytest.FixtureRequest, patgate_fake: Fake, patgate_world: dict[str, str]
) -> Iterator[Connect]:
    """Builds a client of the library under test; client credentials unless told otherwise.

    The token cache reads the fake's clock, so ``advance_clock`` ages cached tokens too.
    """
    clock = patgate_fake.clock.timestamp
    urls = (patgate_world["auth_url"], patgate_world["base_url"])
    defaults = {
        "client_id": patgate_world["client_id"],
        "client_secret": patgate_world["client_secret"],
    }
    if request.param == "httpx":
        with httpx.Client() as http:

            def connect_httpx(**credentials: Any) -> AnyClient:
                return content_client.ContentClient(
                    *urls, **(credentials or defaults), http=http, clock=clock
                )

            yield connect_httpx
    else:
        with requests.Session() as session:

            def connect_requests(**credentials: Any) -> AnyClient:
                return content_client_requests.ContentClient(
                    *urls, **(credentials or defaults), session=session, clock=clock
                )

            yield connect_requests


def token_requests(fake: Fake) -> int:
    """How many times the fake was asked for a client-credential token."""
    return sum(entry.url.endswith("/oauth/token") for entry in fake.request_log)


def test_one_client_token_serves_many_calls(connect: Connect, patgate_fake: Fake) -> None:
    client = connect()
    for _ in range(3):
        assert len(list(client.hubs())) == 3  # the default world has three hubs
    assert client.list_pats()
    assert token_requests(patgate_fake) == 1
    assert len(patgate_fake.request_log) == 5


def test_the_token_is_renewed_30_seconds_before_it_expires(
    connect: Connect, patgate_fake: Fake
) -> None:
    client = connect()
    first = client.access_token()
    patgate_fake.advance_clock(300 - 31)
    assert client.access_token() == first
    patgate_fake.advance_clock(2)  # now inside the last 30 s of the token's life
    assert list(client.hubs())
    assert token_requests(patgate_fake) == 2
    assert client.access_token() != first


def test_a_token_past_its_expiry_is_replaced_not_sent(connect: Connect, patgate_fake: Fake) -> None:
    client = connect()
    assert list(client.hubs())
    patgate_fake.advance_clock(301)
    # Sending the old token would be answered 401 and raise AuthenticationFailed.
    assert list(client.hubs())
    assert token_requests(patgate_fake) == 2
    assert [entry.status for entry in patgate_fake.request_log] == [200, 200, 200, 200]


def test_hubs_are_read_page_by_page(
    connect: Connect, patgate_fake: Fake, patgate_world: dict[str, str]
) -> None:
    added = [patgate_fake.add_hub(f"region-{n}-hub") for n in range(7)]
    hubs = list(connect().hubs(size=4))
    ids = [hub.id for hub in hubs]
    assert len(ids) == len(set(ids)) == 10
    assert {hub.id for hub in added} <= set(ids)
    assert "Region 3 Hub" in {hub.label for hub in hubs}
    listing = patgate_world["base_url"] + "/v2/content/hubs"
    pages = [entry.url for entry in patgate_fake.request_log if entry.url.startswith(listing)]
    assert pages == [f"{listing}?page={number}&size=4" for number in range(3)]


def test_a_pat_is_created_listed_used_and_deleted(
    connect: Connect, patgate_world: dict[str, str]
) -> None:
    client = connect()
    created = client.create_pat("deploy bot", patgate_world["organization_id"])
    assert created.token.startswith(patgate_world["pat_prefix"])
    assert created.last_used_date is None

    listed = {pat.id: pat for pat in client.list_pats()}
    assert listed[created.id].name == "deploy bot"
    assert listed[created.id].token != created.token
    assert listed[created.id].token.endswith("*")

    robot = connect(pat=created.token)
    assert len(list(robot.hubs())) == 3
    assert {pat.id: pat for pat in client.list_pats()}[created.id].last_used_date is not None

    client.delete_pat(created.id)
    assert created.id not in {pat.id for pat in client.list_pats()}
    with pytest.raises(AuthenticationFailed) as refused:
        list(robot.hubs())
    assert refused.value.status == 401


def test_the_sixth_token_is_refused_with_the_clients_own_error(
    connect: Connect, patgate_world: dict[str, str]
) -> None:
    client = connect()
    organization = patgate_world["organization_id"]
    while len(client.list_pats()) < 5:
        client.create_pat("filler", organization)
    with pytest.raises(TokenLimitReached):
        client.create_pat("one too many", organization)
    assert len(client.list_pats()) == 5

    client.delete_pat(client.list_pats()[0].id)
    assert client.create_pat("fits again", organization).token


def test_a_removed_users_pat_raises_access_revoked(connect: Connect, patgate_fake: Fake) -> None:
    user = patgate_fake.add_user("Dana Deploy", role="admin")
    robot = connect(pat=patgate_fake.issue_token(user.id, "nightly sync"))
    assert [pat.name for pat in robot.list_pats()] == ["nightly sync"]

    patgate_fake.remove_user(user.id)
    with pytest.raises(AccessRevoked):
        list(robot.hubs())
    with pytest.raises(AccessRevoked):
        robot.list_pats()


def test_a_wrong_secret_raises_authentication_failed(
    connect: Connect, patgate_world: dict[str, str]
) -> None:
    client = connect(client_id=patgate_world["client_id"], client_secret="not-the-secret")
    with pytest.raises(AuthenticationFailed) as refused:
        list(client.hubs())
    assert refused.value.status == 400
