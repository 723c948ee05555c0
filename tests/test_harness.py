from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests

from patgate.errors import NotFound, UsageError
from patgate.harness import WORLD_KEYS, Fake
from patgate.wire import FakeUrls, WireHandler, WireRequest, WireResponse

LIST = "{ viewer { personalAccessTokens { id name token } } }"


def _hubs(fake: Fake, token: str) -> int:
    response = httpx.get(
        fake.world["base_url"] + "/v2/content/hubs", headers={"Authorization": f"Bearer {token}"}
    )
    return response.status_code


def _graph(fake: Fake, token: str, query: str) -> dict[str, Any]:
    response = requests.post(
        fake.world["graphql_url"],
        json={"query": query},
        headers={"Authorization": f"Bearer {token}"},
        timeout=5,
    )
    body: dict[str, Any] = response.json()
    return body


def test_world_has_exactly_the_target_file_keys() -> None:
    fake = Fake()
    world = fake.world
    assert tuple(world) == WORLD_KEYS
    assert all(isinstance(value, str) and value for value in world.values())
    assert world["pat_prefix"] == "amp_pat_"
    assert world["admin_token"].startswith("amp_pat_")
    assert world["graphql_url"] == "https://api.amplience.net/graphql"


def test_world_is_a_copy() -> None:
    fake = Fake()
    fake.world["admin_token"] = "changed"
    assert fake.world["admin_token"] != "changed"


def test_every_fake_has_fresh_state_and_secrets() -> None:
    first, second = Fake(), Fake()
    assert first.world["client_secret"] != second.world["client_secret"]
    assert first.world["admin_token"] != second.world["admin_token"]
    assert first.deployment is not second.deployment


def test_urls_come_from_a_mapping_or_fake_urls() -> None:
    fake = Fake(urls={"base_url": "http://127.0.0.1:9/api", "auth_url": None})
    assert fake.world["base_url"] == "http://127.0.0.1:9/api"
    assert fake.world["graphql_url"] == "http://127.0.0.1:9/api/graphql"
    assert fake.world["auth_url"] == "https://auth.amplience.net"
    assert Fake(urls=FakeUrls.build(auth_url="http://a.test")).world["auth_url"] == "http://a.test"
    with pytest.raises(TypeError, match="unknown URL keys"):
        Fake(urls={"base": "http://x.test"})
    with pytest.raises(UsageError):
        Fake(urls={"base_url": "not a url"})


def test_start_stop_and_context_manager() -> None:
    fake = Fake()
    assert fake.start() is fake
    assert fake.start() is fake  # a second start changes nothing
    assert fake.active
    assert _hubs(fake, fake.world["admin_token"]) == 200
    fake.stop()
    fake.stop()
    assert not fake.active
    with fake as same:
        assert same is fake
        assert fake.active
    assert not fake.active
    assert "stopped" in repr(fake)


def test_an_added_user_with_a_token_can_list_hubs_until_removed() -> None:
    with Fake() as fake:
        user = fake.add_user("Ada Lovelace", role="member")
        assert user.email == "ada.lovelace@example.com"
        token = fake.issue_token(user.id)
        assert _hubs(fake, token) == 200
        fake.remove_user(user.id)
        assert _hubs(fake, token) == 403
        fake.set_role(user.id, "member")
        assert _hubs(fake, token) == 200
        fake.set_role(user.id, "restricted")
        assert _hubs(fake, token) == 403


def test_an_added_client_and_hub_are_served() -> None:
    with Fake() as fake:
        hub = fake.add_hub("extra-hub", description="added by a test")
        client_id, secret = fake.add_client(fake.default_world.admin_id)
        token = httpx.post(
            fake.world["auth_url"] + "/oauth/token",
            data={
                "client_id": client_id,
                "client_secret": secret,
                "grant_type": "client_credentials",
            },
        ).json()["access_token"]
        page = httpx.get(
            fake.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {token}"},
        ).json()
        assert hub.id in [h["id"] for h in page["_embedded"]["hubs"]]
        assert page["page"]["totalElements"] == 4


def test_a_pending_token_works_once_approved_and_vanishes_when_rejected() -> None:
    with Fake() as fake:
        member = fake.default_world.member_id
        pending = fake.request_token_via_ui(member, "needs approval")
        assert _hubs(fake, pending.value) == 401
        names = [
            t["name"]
            for t in _graph(fake, fake.world["member_token"], LIST)["data"]["viewer"][
                "personalAccessTokens"
            ]
        ]
        assert "needs approval" in names
        fake.approve_token_request(pending.record.id, fake.default_world.admin_id)
        assert _hubs(fake, pending.value) == 200

        rejected = fake.request_token_via_ui(member, "rejected")
        fake.reject_token_request(rejected.record.id)
        assert _hubs(fake, rejected.value) == 401
        with pytest.raises(NotFound):
            fake.approve_token_request(rejected.record.id)


def test_advancing_the_clock_expires_client_tokens_but_not_pats() -> None:
    with Fake() as fake:
        world = fake.world
        token = httpx.post(
            world["auth_url"] + "/oauth/token",
            data={
                "client_id": world["client_id"],
                "client_secret": world["client_secret"],
                "grant_type": "client_credentials",
            },
        ).json()["access_token"]
        assert _hubs(fake, token) == 200
        fake.advance_clock(301)
        assert _hubs(fake, token) == 401
        fake.advance_clock(400 * 86400)
        assert _hubs(fake, world["admin_token"]) == 200


def test_the_request_log_records_both_libraries_without_secrets() -> None:
    with Fake() as fake:
        world = fake.world
        _hubs(fake, world["admin_token"])
        _graph(fake, world["admin_token"], LIST)
        httpx.get(world["base_url"] + f"/v2/content/hubs?access_token={world['admin_token']}")
    entries = fake.request_log.entries()
    assert [(e.method, e.status) for e in entries] == [("GET", 200), ("POST", 200), ("GET", 401)]
    assert entries[0].auth_scheme == "Bearer"
    text = repr(fake.request_log) + repr(entries)
    for key in ("admin_token", "client_secret"):
        assert world[key] not in text


def test_wrap_app_alters_answers_on_the_way_out() -> None:
    def no_cache_header(app: WireHandler) -> WireHandler:
        def wrapped(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is None:
                return None
            headers = tuple(h for h in response.headers if h[0].lower() != "cache-control")
            return WireResponse(response.status, headers, response.body)

        return wrapped

    with Fake(wrap_app=no_cache_header) as fake:
        world = fake.world
        response = requests.post(
            world["auth_url"] + "/oauth/token",
            data={
                "client_id": world["client_id"],
                "client_secret": world["client_secret"],
                "grant_type": "client_credentials",
            },
            timeout=5,
        )
    assert response.status_code == 200
    assert "Cache-Control" not in response.headers
    assert fake.request_log[0].status == 200


def test_a_given_deployment_gets_the_default_world() -> None:
    from patgate.fake.deployment import Deployment

    deployment = Deployment(pat_prefix="acme_")
    fake = Fake(deployment=deployment)
    assert fake.deployment is deployment
    assert fake.world["pat_prefix"] == "acme_"
    assert fake.world["admin_token"].startswith("acme_")
    assert len(deployment.hubs) == 3


def test_a_dropped_fake_is_freed_without_the_garbage_collector() -> None:
    # Every test builds a fresh fake; one kept alive by a reference cycle until the collector
    # runs makes each collection slower for the rest of the session.
    import gc
    import weakref

    import httpx

    from patgate import Fake

    hubs = "https://api.amplience.net/v2/content/hubs"
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        fake = Fake()
        with fake, httpx.Client() as client:
            client.get(hubs, headers={"Authorization": "Bearer " + fake.world["admin_token"]})
        alive = weakref.ref(fake.deployment)
        del fake
        assert alive() is None
    finally:
        if was_enabled:
            gc.enable()


def test_add_client_acts_as_the_world_s_admin_unless_told() -> None:
    import httpx

    from patgate.fake.model import Role

    with Fake() as fake:
        client_id, secret = fake.add_client()
        member = fake.add_user("Mem Ber", role=Role.MEMBER)
        member_client = fake.add_client(member.id)
        by_id = {client.client_id: client for client in fake.clients()}
        assert by_id[client_id].user_id == fake.default_world.admin_id
        assert by_id[client_id].organization_id == fake.default_world.organization_id
        assert by_id[member_client[0]].user_id == member.id
        answer = httpx.post(
            fake.world["auth_url"] + "/oauth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": client_id,
                "client_secret": secret,
            },
        )
        assert answer.status_code == 200
