"""What the control methods return: typed, documented objects whose repr shows no secret."""

from __future__ import annotations

from patgate.fake.model import CreatedToken, PatRecord, PatStatus
from patgate.harness import Fake


def test_a_ui_request_returns_its_id_name_status_and_one_time_value() -> None:
    fake = Fake()
    member = fake.default_world.member_id
    created = fake.request_token_via_ui(member, "ci token")
    assert isinstance(created, CreatedToken)
    assert (created.name, created.status) == ("ci token", PatStatus.PENDING)
    assert created.id == created.record.id
    assert created.value.startswith(fake.world["pat_prefix"])
    approved = fake.approve_token_request(created.id)
    assert isinstance(approved, PatRecord)
    assert approved.status is PatStatus.ACTIVE
    assert approved.id == created.id
    admin = fake.request_token_via_ui(fake.default_world.admin_id, "admin token")
    assert admin.status is PatStatus.ACTIVE


def test_no_repr_shows_a_secret_or_a_hash() -> None:
    fake = Fake()
    created = fake.request_token_via_ui(fake.default_world.member_id, "ci token")
    assert "status='pending'" in repr(created)
    approved = fake.approve_token_request(created.id)
    secret_part = created.value.rpartition(".")[2]
    shown = " ".join(
        repr(thing) for thing in (created, approved, fake, fake.default_world, fake.request_log)
    )
    assert created.id in repr(created)
    assert secret_part not in shown
    assert created.value not in shown
    assert "secret_hash" not in repr(approved)
    assert approved.secret_hash.hex() not in shown
    assert repr(approved.secret_hash) not in shown
    world = fake.world
    for key in ("client_secret", "admin_token", "member_token", "removed_token"):
        assert world[key] not in shown
