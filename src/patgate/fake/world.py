"""The default world: the same organization, people and hubs every run, fresh secrets each time.

The default world's names and e-mails ship as data (``default_world.json``): reading them costs
nothing a test notices and needs no third-party package. Another ``seed`` generates other names
with faker, an optional extra (``pip install 'patgate[worlds]'``). A template is made once
per process and seed. Secrets (client secret, PATs) come from :mod:`secrets` every time.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from patgate import behaviours
from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.model import Role

__all__ = ["DEFAULT_SEED", "DefaultWorld", "WorldTemplate", "build_default_world", "world_template"]

DEFAULT_SEED = 0
"""The seed of the shipped default world."""
_FAKER_SEED = 20231121
_DATA = Path(__file__).with_name("default_world.json")


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


@functools.lru_cache(maxsize=4)
def world_template(seed: int = DEFAULT_SEED) -> WorldTemplate:
    """The world's names: the shipped data for the default seed, else made by faker."""
    if seed == DEFAULT_SEED:
        data = json.loads(_DATA.read_text(encoding="utf-8"))
        admin, member, removed, unpermitted = (
            Person(**data[role]) for role in ("admin", "member", "removed", "unpermitted")
        )
        hubs = tuple(data["hub_names"])
        return WorldTemplate(data["organization_name"], admin, member, removed, unpermitted, hubs)
    return _generated_template(seed)


def _generated_template(seed: int) -> WorldTemplate:
    try:
        from faker import Faker
    except ImportError:
        raise UsageError(
            f"a world seed other than {DEFAULT_SEED} needs faker: pip install 'patgate[worlds]'"
        ) from None
    fake = Faker("en_US")
    fake.seed_instance(_FAKER_SEED + seed)

    def person() -> Person:
        first, last = fake.first_name(), fake.last_name()
        # Reserved example domains only: a generated address never reaches a real mailbox.
        return Person(f"{first} {last}", f"{first}.{last}@example.com".lower())

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


def build_default_world(deployment: Deployment, seed: int = DEFAULT_SEED) -> DefaultWorld:
    """Populate ``deployment``: one organization with an admin, a member, a removed user and a
    member without content permission, an API client acting as the admin, and three hubs.

    Every principal holds one PAT (the world's tokens), so a scenario starts with each user
    at 1 of 5; the member's went through the approval step. ``seed`` picks the names (see
    :func:`world_template`).
    """
    template = world_template(seed)
    # The world's own approvals and creates are not behaviours a test drove.
    with behaviours.quiet():
        return _build(deployment, template)


def _build(deployment: Deployment, template: WorldTemplate) -> DefaultWorld:
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
    deployment.seed_content()

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
