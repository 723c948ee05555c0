"""The default world: the same people and ids every run, new secrets every fake."""

from __future__ import annotations

from patgate.fake.deployment import Deployment
from patgate.fake.model import Role
from patgate.fake.world import build_default_world


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
