"""The default world: the same people and ids every run, new secrets every fake."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from patgate.errors import DomainError
from patgate.fake.deployment import Deployment
from patgate.fake.model import Role, User
from patgate.fake.state import export_state
from patgate.fake.world import build_default_world, stamp_default_world


def test_the_world_is_the_same_every_run_but_its_secrets_are_not() -> None:
    first, second = Deployment(), Deployment()
    a, b = build_default_world(first), build_default_world(second)
    assert (a.organization_id, a.admin_id, a.client_id) == (
        b.organization_id,
        b.admin_id,
        b.client_id,
    )
    assert [u.email for u in first.users.values()] == [u.email for u in second.users.values()]
    assert [h.id for h in first.hubs] == [h.id for h in second.hubs]
    assert a.client_secret != b.client_secret
    assert a.admin_token != b.admin_token


def test_the_world_holds_the_documented_principals() -> None:
    deployment = Deployment()
    world = build_default_world(deployment)
    roles = {
        user_id: deployment.users[user_id].memberships.get(world.organization_id)
        for user_id in (world.admin_id, world.member_id, world.removed_id, world.unpermitted_id)
    }
    assert roles == {
        world.admin_id: Role.ADMIN,
        world.member_id: Role.MEMBER,
        world.removed_id: None,
        world.unpermitted_id: Role.RESTRICTED,
    }
    assert len(deployment.hubs) == 3
    assert all(len(h.id) == 24 and int(h.id, 16) >= 0 for h in deployment.hubs)
    assert "secret" not in repr(world).lower().replace("secrets=<hidden>", "")
    assert world.admin_token not in repr(world)


def _without_secrets_or_dates(state: dict[str, Any]) -> dict[str, Any]:
    """A state with what differs between two builds of the world (secrets, instants) blanked."""
    blanked = {"secret_hash", "id_segment", "masked", "created_date", "last_modified_date"}
    return {
        key: (
            [{k: ("-" if k in blanked else v) for k, v in record.items()} for record in value]
            if isinstance(value, list) and value and isinstance(value[0], dict)
            else value
        )
        for key, value in state.items()
    }


@pytest.mark.parametrize("seed", [0, 3])
def test_a_stamped_world_is_the_state_building_it_makes(seed: int) -> None:
    if seed:
        pytest.importorskip("faker")
    built, stamped = Deployment(seed=seed), Deployment(seed=seed)
    world = build_default_world(built, seed)
    stamp = stamp_default_world(stamped, seed)
    # The same records, ids and id-generator position: only secrets and instants differ.
    assert _without_secrets_or_dates(export_state(stamped)) == _without_secrets_or_dates(
        export_state(built)
    )
    assert stamp.world.organization_id == world.organization_id
    assert stamp.world.admin_id == world.admin_id
    assert stamp.world.client_id == world.client_id
    assert stamped.ids.uuid() == built.ids.uuid()  # later ids continue the same sequence
    # The state a reset returns to is the stamped one, exactly.
    stamped_fresh = Deployment(seed=seed)
    again = stamp_default_world(stamped_fresh, seed)
    assert again.seeded_state() == export_state(stamped_fresh)


def test_a_stamped_world_has_credentials_of_its_own_that_work() -> None:
    first, second = Deployment(), Deployment()
    a, b = stamp_default_world(first).world, stamp_default_world(second).world
    assert a.client_secret != b.client_secret
    assert a.admin_token != b.admin_token
    assert first.authenticate(a.admin_token).user_id == a.admin_id
    assert first.authenticate(a.member_token).user_id == a.member_id
    with pytest.raises(DomainError):
        first.authenticate(b.admin_token)
    assert first.issue_client_token(a.client_id, a.client_secret, "client_credentials")
    with pytest.raises(DomainError):
        first.issue_client_token(b.client_id, b.client_secret, "client_credentials")


def test_stamped_worlds_share_no_record() -> None:
    first, second = Deployment(), Deployment()
    a = stamp_default_world(first).world
    stamp_default_world(second)
    first.set_role(a.member_id, a.organization_id, Role.ADMIN)
    first.hubs[0].settings["changed"] = True
    first.hubs[0].label = "changed"
    third = Deployment()
    stamp_default_world(third)
    for other in (second, third):
        assert other.users[a.member_id].memberships[a.organization_id] is Role.MEMBER
        assert other.hubs[0].settings == {}
        assert other.hubs[0].label != "changed"


def test_a_deployment_that_cannot_be_stamped_is_built() -> None:
    class Audited(Deployment):
        added: ClassVar[list[str]] = []

        def add_user(
            self, name: str, email: str, organization_id: str, role: Role = Role.MEMBER
        ) -> User:
            self.added.append(name)
            return super().add_user(name, email, organization_id, role)

    audited = Audited()
    stamp_default_world(audited)
    assert len(Audited.added) == 4  # a subclass's own operations are called, as building does
    with pytest.raises(DomainError):  # what building refuses is refused
        stamp_default_world(Deployment(max_tokens_per_user=0))
