"""The default world: the same organization, people and hubs every run, fresh secrets each time.

Names and e-mails come from faker with a fixed seed; they are computed once per process and
kept in an immutable template, because creating a faker instance costs far more than a test
should pay. Secrets (client secret, PATs) come from :mod:`secrets` every time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from patgate.fake.content import seed_content
from patgate.fake.deployment import Deployment
from patgate.fake.model import Role

__all__ = ["DefaultWorld", "WorldTemplate", "build_default_world", "world_template"]

WORLD_SEED = 20231121


@dataclass(frozen=True)
class Person:
    """A name and an e-mail address of the default world."""

    name: str
    email: str


@dataclass(frozen=True)
class WorldTemplate:
    """The default world without its secrets: the same in every fake of a process."""

    organization_name: str
    admin: Person
    member: Person
    removed: Person
    unpermitted: Person
    hub_names: tuple[str, ...]


@functools.lru_cache(maxsize=1)
def world_template() -> WorldTemplate:
    """The default world's names, made once per process from a fixed faker seed."""
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(WORLD_SEED)

    def person() -> Person:
        first, last = fake.first_name(), fake.last_name()
        return Person(f"{first} {last}", f"{first}.{last}@{fake.domain_name()}".lower())

    organization = fake.company()
    people = [person() for _ in range(4)]
    hubs = tuple(f"{fake.word()}-{fake.word()}-hub" for _ in range(3))
    return WorldTemplate(organization, people[0], people[1], people[2], people[3], hubs)


@dataclass(frozen=True)
class DefaultWorld:
    """What a test or a target file needs to reach the default world's principals."""

    organization_id: str
    admin_id: str
    member_id: str
    removed_id: str
    unpermitted_id: str
    client_id: str
    client_secret: str
    admin_token: str
    member_token: str
    removed_token: str
    unpermitted_token: str

    def __repr__(self) -> str:
        return f"DefaultWorld(organization_id={self.organization_id!r}, secrets=<hidden>)"


def build_default_world(deployment: Deployment) -> DefaultWorld:
    """Populate ``deployment``: one organization with an admin, a member, a removed user and a
    member without content permission, an API client acting as the admin, and three hubs.

    Every principal holds one PAT (the world's tokens), so a scenario starts with each user
    at 1 of 5; the member's went through the approval step.
    """
    template = world_template()
    org = deployment.add_organization(template.organization_name)
    admin = deployment.add_user(template.admin.name, template.admin.email, org.id, Role.ADMIN)
    member = deployment.add_user(template.member.name, template.member.email, org.id, Role.MEMBER)
    removed = deployment.add_user(
        template.removed.name, template.removed.email, org.id, Role.MEMBER
    )
    unpermitted = deployment.add_user(
        template.unpermitted.name, template.unpermitted.email, org.id, Role.RESTRICTED
    )
    client_id, client_secret = deployment.add_client(admin.id, org.id)
    for name in template.hub_names:
        deployment.add_hub(org.id, name, created_by=admin.id)
    seed_content(deployment)

    def ui_token(user_id: str) -> str:
        created = deployment.request_token_via_ui(user_id, org.id, "patgate world token")
        if created.record.status.value == "pending":
            deployment.approve_token_request(created.record.id, admin.id)
        return created.value

    admin_token = ui_token(admin.id)
    member_token = ui_token(member.id)
    removed_token = ui_token(removed.id)
    unpermitted_token = ui_token(unpermitted.id)
    deployment.remove_user(removed.id, org.id)
    return DefaultWorld(
        organization_id=org.id,
        admin_id=admin.id,
        member_id=member.id,
        removed_id=removed.id,
        unpermitted_id=unpermitted.id,
        client_id=client_id,
        client_secret=client_secret,
        admin_token=admin_token,
        member_token=member_token,
        removed_token=removed_token,
        unpermitted_token=unpermitted_token,
    )
