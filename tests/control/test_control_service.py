"""The control operations as plain calls: reset, snapshot, people, the UI path, the clock."""

from __future__ import annotations

import json

import httpx
import pytest

from patgate.errors import Forbidden, NotFound
from patgate.fake.state import export_state
from patgate.harness import Fake


def _hubs(fake: Fake, token: str) -> int:
    return httpx.get(
        fake.world["base_url"] + "/v2/content/hubs", headers={"Authorization": f"Bearer {token}"}
    ).status_code


def test_reset_brings_back_the_seeded_world_with_the_same_credentials() -> None:
    with Fake() as fake:
        world = fake.world
        fake.remove_user(fake.default_world.admin_id)
        extra = fake.issue_token(fake.default_world.member_id)
        fake.add_user("Late Comer")
        fake.advance_clock(3600)
        fake.faults.add("any", status=500)
        assert _hubs(fake, world["admin_token"]) == 500
        fake.reset()
        assert fake.world == world
        assert _hubs(fake, world["admin_token"]) == 200
        assert _hubs(fake, extra) == 401
        assert _hubs(fake, world["removed_token"]) == 403
        names = [u["name"] for u in fake.snapshot()["users"]]
        assert "Late Comer" not in names
        assert fake.snapshot()["clock"]["offset_seconds"] == 0
        assert fake.faults.rules() == []
        assert len(fake.request_log) == 3  # only the requests after the reset


def test_reset_brings_back_the_world_as_made_whatever_changed_it_first() -> None:
    # Changed straight through the deployment, before any control call: the state a reset
    # returns to is the world as the fake made it, not as it is when first asked for.
    with Fake() as fake:
        w, d = fake.default_world, fake.deployment
        made = export_state(d)
        d.remove_user(w.member_id, w.organization_id)
        d.users[w.admin_id].name = "Someone Else"
        d.hubs[0].label = "renamed"
        d.hubs[1].settings["changed"] = True
        d.add_hub(w.organization_id, "late-hub", created_by=w.admin_id)
        d.clock.advance(60)
        assert _hubs(fake, fake.world["member_token"]) == 403
        fake.reset()
        assert export_state(d) == made
        assert _hubs(fake, fake.world["member_token"]) == 200


def test_the_snapshot_masks_tokens_and_holds_no_secret() -> None:
    fake = Fake()
    snapshot = fake.snapshot()
    text = json.dumps(snapshot)
    for key in ("client_secret", "admin_token", "member_token", "control_token"):
        assert fake.world[key] not in text
    assert "secret_hash" not in text
    statuses = {t["status"] for t in snapshot["tokens"]}
    assert statuses == {"active"}
    assert all(t["token"].endswith("*" * 32) for t in snapshot["tokens"])
    assert {u["id"] for u in snapshot["users"]} >= {fake.default_world.admin_id}
    assert snapshot["clients"] == [
        {
            "client_id": fake.world["client_id"],
            "user_id": fake.default_world.admin_id,
            "organization_id": fake.world["organization_id"],
        }
    ]


def test_remove_then_restore_gives_the_user_back_their_role_and_their_tokens() -> None:
    with Fake() as fake:
        unpermitted = fake.default_world.unpermitted_id
        fake.remove_user(unpermitted)
        removed = _hubs(fake, fake.world["unpermitted_token"])
        fake.restore_user(unpermitted)
        restored = _hubs(fake, fake.world["unpermitted_token"])
        fake.restore_user(fake.default_world.removed_id)
        back = _hubs(fake, fake.world["removed_token"])
    assert (removed, restored, back) == (403, 403, 200)  # restricted again; the removed: member
    roles = {u.id: u.memberships for u in fake.users()}
    assert roles[unpermitted] == {fake.world["organization_id"]: "restricted"}


def test_a_requested_token_pends_until_approved_and_a_rejected_one_disappears() -> None:
    with Fake() as fake:
        member = fake.default_world.member_id
        approved = fake.request_token_via_ui(member, "ci")
        rejected = fake.request_token_via_ui(member, "nope")
        pending = [t.id for t in fake.pending_requests()]
        before = _hubs(fake, approved.value)
        with pytest.raises(Forbidden):
            fake.approve_token_request(approved.record.id, approver_id=member)
        fake.approve_token_request(approved.record.id, approver_id=fake.default_world.admin_id)
        fake.reject_token_request(rejected.record.id)
        after = _hubs(fake, approved.value)
        gone = _hubs(fake, rejected.value)
    assert pending == [approved.record.id, rejected.record.id]
    assert (before, after, gone) == (401, 200, 401)
    assert fake.pending_requests() == []
    with pytest.raises(NotFound):
        fake.reject_token_request(rejected.record.id)


def test_clients_hubs_and_the_clock() -> None:
    fake = Fake()
    client_id, _secret = fake.add_client(fake.default_world.member_id)
    hub = fake.add_hub("extra-hub", label="Extra")
    start = fake.clock_now()
    fake.advance_clock(90)
    assert client_id in [c.client_id for c in fake.clients()]
    assert hub.id in [h.id for h in fake.hubs()]
    assert (fake.clock_now() - start).total_seconds() >= 90
    assert fake.snapshot()["clock"]["offset_seconds"] == 90
