"""The default world: the same organization, people and hubs every run, fresh secrets each time.

The default world's names and e-mails ship as data (``default_world.json``): reading them costs
nothing a test notices and needs no third-party package. Another ``seed`` generates other names
with faker, an optional extra (``pip install 'patgate[worlds]'``). A template is made once
per process and seed. Secrets (client secret, PATs) come from :mod:`secrets` every time.

Each fake after the first of a seed gets its world stamped (:func:`stamp_default_world`):
the records building it makes, with secrets and dates of its own, at a fraction of the
cost. The module's records are named tuples where nothing needs more: defining one costs a
fraction of a dataclass, which the first fake of every process pays.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from patgate.basics import behaviours
from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.model import ApiClient, Hub, Organization, PatRecord, PatStatus, Role, User
from patgate.fake.pat_format import MintedPat, PatFormat, new_secret

__all__ = [
    "DEFAULT_SEED",
    "DefaultWorld",
    "StampedWorld",
    "WorldTemplate",
    "build_default_world",
    "stamp_default_world",
    "world_template",
]

DEFAULT_SEED = 0
"""The seed of the shipped default world."""
_FAKER_SEED = 20231121
_TOKEN_NAME = "patgate world token"
_DATA = Path(__file__).with_name("default_world.json")


class Person(NamedTuple):
    """A name and an e-mail address of the default world."""

    name: str
    email: str


class WorldTemplate(NamedTuple):
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
        created = deployment.request_token_via_ui(user_id, org.id, _TOKEN_NAME)
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


# -- the same world, stamped -----------------------------------------------------------------
#
# Every test's fake builds the same world: the same names, and (from the same seed) the same
# ids; only the secrets and the dates differ. Building it through the deployment's operations
# (locks, checks, an index update per record) costs most of a fresh fake, so it is built that
# way once per seed, to learn its ids, and each fake after that gets new records of the same
# ids with secrets of its own. The state is the one the operations would have made.


class _Blueprint(NamedTuple):
    """The default world of one seed without its secrets or dates: what building it made."""

    organization: Organization
    users: tuple[tuple[str, str, str, str, tuple[tuple[str, Role], ...]], ...]
    """``(id, uuid, name, email, memberships)`` of each user, in the order added."""
    client_id: str
    hubs: tuple[tuple[str, str, str], ...]
    """``(id, name, label)`` of each hub."""
    tokens: tuple[tuple[str, str], ...]
    """``(token id, owner id)`` of the world's PATs: the admin's, the member's, the removed
    user's, the unpermitted member's."""
    ids_after: tuple[Any, ...]
    """The id generator's position once the world is built."""
    world: DefaultWorld
    """Its ids; no secret (each stamp has its own)."""


@functools.lru_cache(maxsize=4)
def _blueprint(seed: int, template: WorldTemplate) -> _Blueprint:
    scratch = Deployment(seed=seed)
    with behaviours.quiet():
        world = _build(scratch, template)
    (organization,) = scratch.organizations.values()
    return _Blueprint(
        organization=Organization(organization.id, organization.name),
        users=tuple(
            (u.id, u.uuid, u.name, u.email, tuple(u.memberships.items()))
            for u in scratch.users.values()
        ),
        client_id=world.client_id,
        hubs=tuple((h.id, h.name, h.label) for h in scratch.hubs),
        tokens=tuple((t.id, t.user_id) for t in scratch.tokens.values()),
        ids_after=scratch.ids.position(),
        world=replace(
            world,
            client_secret="",
            admin_token="",
            member_token="",
            removed_token="",
            unpermitted_token="",
        ),
    )


class StampedWorld(NamedTuple):
    """A default world stamped into a deployment (:func:`stamp_default_world`)."""

    world: DefaultWorld
    """Its ids and this deployment's credentials."""
    seeded_state: Callable[[], dict[str, Any]]
    """The state as the world was stamped, as :func:`~patgate.fake.state.export_state` would
    have written it then; worked out when called (a reset, ``--state``), from the records'
    values kept aside, not from the deployment, which the test may have changed since."""


class _Stamp(NamedTuple):
    """What one fake's world has of its own: the secrets' stored forms and the instant."""

    blueprint: _Blueprint
    client_secret_hash: bytes
    minted: tuple[MintedPat, ...]
    now: datetime
    pat_prefix: str
    clock_offset: float

    def records(self) -> tuple[Organization, list[User], ApiClient, list[Hub], list[PatRecord]]:
        """New records of the stamped world (each call: new ones, nothing shared)."""
        b, now = self.blueprint, self.now
        admin_id = b.world.admin_id
        org = Organization(b.organization.id, b.organization.name)
        users = [User(i, u, n, e, dict(roles)) for i, u, n, e, roles in b.users]
        client = ApiClient(b.client_id, self.client_secret_hash, admin_id, org.id)
        hubs = [
            Hub(hub_id, org.id, name, label, "", "ACTIVE", {}, admin_id, now, admin_id, now)
            for hub_id, name, label in b.hubs
        ]
        tokens = [
            PatRecord(
                id=token_id,
                user_id=owner,
                organization_id=org.id,
                name=_TOKEN_NAME,
                id_segment=minted.id_segment,
                secret_hash=minted.secret_hash,
                masked=minted.masked,
                created_date=now,
                status=PatStatus.ACTIVE,
            )
            for (token_id, owner), minted in zip(b.tokens, self.minted, strict=True)
        ]
        return org, users, client, hubs, tokens

    def state(self) -> dict[str, Any]:
        from patgate.fake.state import state_document

        org, users, client, hubs, tokens = self.records()
        version, internal, gauss = self.blueprint.ids_after
        return state_document(
            pat_prefix=self.pat_prefix,
            clock_offset=self.clock_offset,
            ids=[version, list(internal), gauss],
            organizations=[org],
            users=users,
            clients=[client],
            hubs=hubs,
            tokens=tokens,
        )


def stamp_default_world(deployment: Deployment, seed: int = DEFAULT_SEED) -> StampedWorld:
    """Populate a new, empty ``deployment`` (a plain :class:`Deployment` made with ``seed``
    and not used since) with the state :func:`build_default_world` makes, new secrets
    included, at the cost of making its records; anything else is built as that does.
    """
    if type(deployment) is not Deployment or not _stampable(deployment, seed):
        built = build_default_world(deployment, seed)
        from patgate.fake.state import export_state

        state = export_state(deployment)
        return StampedWorld(built, lambda: state)
    blueprint = _blueprint(seed, world_template(seed))
    client_secret = new_secret()
    pat_format = deployment.pat_format
    stamp = _Stamp(
        blueprint,
        PatFormat.hash(client_secret),
        tuple(pat_format.mint() for _ in blueprint.tokens),
        deployment.clock.now(),
        pat_format.prefix,
        deployment.clock.offset,
    )
    org, users, client, hubs, tokens = stamp.records()
    deployment.replace_state([org], users, [client], hubs, tokens)
    deployment.ids.move_to(blueprint.ids_after)
    deployment.content.seed_later(hubs)  # what seed_content does, for these hubs
    for observer in deployment.credential_observers:
        observer(client_secret)
    w = blueprint.world
    pairs = zip(blueprint.tokens, stamp.minted, strict=True)
    token_of = {owner: minted.value for (_, owner), minted in pairs}
    # The blueprint's ids, this fake's secrets.
    world = replace(
        w,
        client_secret=client_secret,
        admin_token=token_of[w.admin_id],
        member_token=token_of[w.member_id],
        removed_token=token_of[w.removed_id],
        unpermitted_token=token_of[w.unpermitted_id],
    )
    return StampedWorld(world, stamp.state)


def _stampable(deployment: Deployment, seed: int) -> bool:
    # What building would refuse (a cap of 0, a name limit below the world's token name) is
    # left to building, which refuses it; so is a deployment that already holds anything.
    d = deployment
    return (
        d.seed == seed
        and d.changes is None
        and d.max_tokens_per_user >= 1
        and d.profile.name_max_length >= len(_TOKEN_NAME)
        and not (d.organizations or d.users or d.clients or d.hubs or d.tokens)
    )
