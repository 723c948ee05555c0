"""World size: what an operation of the fake's domain costs in a world of 100,000 users with
5 PATs each, side by side with the same operation in a world of 10 users. Goal: at most 1.3x
(each operation finds what it needs through an index, never by walking the world), and the
large world built through the public API in under 30 s.

Both worlds are built the same way: organizations of 100 users (the small one: one of 10),
three hubs each, every user an admin holding 5 PATs made with ``create_token``. The user
measured holds 4, so that a create fits under the cap of 5.

Reading one hub by its id is measured in an organization of 100,000 hubs against one of 3
(same goal): the hub is found through the index by id, never among its organization's.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "World", "build_world", "run"]

LARGE_USERS = 100_000
SMALL_USERS = 10
PATS_PER_USER = 5
USERS_PER_ORGANIZATION = 100
LARGE_HUBS = 100_000
SMALL_HUBS = 3
RATIO_GOAL = 1.3
BUILD_GOAL_S = 30.0


@dataclass
class World:
    """A built world and what the operations need: a principal and its PAT."""

    deployment: object
    principal: object
    pat: str
    organization_id: str


def build_world(users: int) -> World:
    """``users`` admins in organizations of 100, three hubs each, 5 PATs per user."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import Principal, Role

    deployment = Deployment()
    measured: Principal | None = None
    pat = ""
    organization_id = ""
    middle = users // 2
    for number in range(users):
        if number % USERS_PER_ORGANIZATION == 0:
            organization = deployment.add_organization(f"organization {number}")
            founder = None
        user = deployment.add_user(
            f"user {number}", f"user{number}@example.test", organization.id, Role.ADMIN
        )
        if founder is None:
            founder = user.id
            for hub in range(3):
                deployment.add_hub(organization.id, f"hub-{number}-{hub}", created_by=founder)
        principal = Principal(user.id, organization.id, via="client")
        for token in range(PATS_PER_USER):
            created = deployment.create_token(principal, f"token {token}", organization.id)
        if number == middle:
            measured, pat, organization_id = principal, created.value, organization.id
            deployment.delete_token(principal, deployment.list_tokens(principal)[0].id)
    assert measured is not None
    return World(deployment, measured, pat, organization_id)


def _operations(world: World) -> dict[str, Callable[[], object]]:
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import Principal

    deployment, principal = world.deployment, world.principal
    assert isinstance(deployment, Deployment)
    assert isinstance(principal, Principal)

    def authenticate_and_hubs() -> None:
        caller = deployment.authenticate(world.pat)
        assert deployment.list_hubs(caller).hubs

    def list_own_tokens() -> None:
        assert len(deployment.list_tokens(principal)) == PATS_PER_USER - 1

    def create_and_delete() -> None:
        created = deployment.create_token(principal, "measured", world.organization_id)
        deployment.delete_token(principal, created.record.id)

    return {
        "authenticate + hubs page": authenticate_and_hubs,
        "list own tokens": list_own_tokens,
        "create + delete": create_and_delete,
    }


def run(plan: Plan) -> list[Result]:
    """Build the large world (timed, each round), then time each operation in both worlds."""
    build_seconds: list[float] = []
    large: World | None = None
    for _ in range(plan.rounds_for(3, 1)):
        large = None
        gc.collect()
        started = time.perf_counter()
        large = build_world(LARGE_USERS)
        build_seconds.append(time.perf_counter() - started)
    assert large is not None
    small = build_world(SMALL_USERS)
    results = [
        compare(
            name="world_build",
            title=f"Build a world of {LARGE_USERS:,} users with {PATS_PER_USER} PATs each",
            unit="s",
            a_label="public API",
            a=build_seconds,
            b_label="",
            b=None,
            ratio_label="",
            goal=Goal("patgate", "<=", BUILD_GOAL_S, "build", "s"),
            note=f"{LARGE_USERS * PATS_PER_USER:,} tokens created through `create_token`.",
        )
    ]
    large_operations, small_operations = _operations(large), _operations(small)
    rounds = plan.rounds_for(20, 6)
    for label, batch in (
        ("authenticate + hubs page", 2000),
        ("list own tokens", 4000),
        ("create + delete", 1000),
    ):
        samples_large, samples_small = interleave(
            Side(f"{LARGE_USERS:,} users", large_operations[label]),
            Side(f"{SMALL_USERS} users", small_operations[label]),
            rounds=rounds,
            batch=plan.pick(batch, batch // 4),
        )
        results.append(
            compare(
                name="world_" + label.replace(" + ", "_").replace(" ", "_"),
                title=f"Domain operation at {LARGE_USERS:,} users: {label}",
                unit="us",
                a_label=f"{LARGE_USERS:,} users",
                a=[sample * 1e6 for sample in samples_large],
                b_label=f"{SMALL_USERS} users",
                b=[sample * 1e6 for sample in samples_small],
                ratio_label="large / small",
                goal=Goal("ratio", "<=", RATIO_GOAL, "large / small"),
            )
        )
    results.append(_read_hub(plan, rounds))
    return results


def _hub_world(hubs: int) -> tuple[object, object, str]:
    """A deployment whose one organization holds ``hubs`` hubs; its admin; the middle hub."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import Principal, Role

    deployment = Deployment()
    organization = deployment.add_organization("hubs")
    user = deployment.add_user("admin", "admin@example.test", organization.id, Role.ADMIN)
    made = [
        deployment.add_hub(organization.id, f"hub-{n}", created_by=user.id) for n in range(hubs)
    ]
    return deployment, Principal(user.id, organization.id, via="client"), made[hubs // 2].id


def _read_hub(plan: Plan, rounds: int) -> Result:
    """Read one hub by its id in an organization of 100,000 hubs and in one of 3."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import Principal

    sides = []
    for hubs in (LARGE_HUBS, SMALL_HUBS):
        deployment, principal, hub_id = _hub_world(hubs)
        assert isinstance(deployment, Deployment)
        assert isinstance(principal, Principal)
        sides.append(
            Side(
                f"{hubs:,} hubs",
                functools.partial(deployment.read_hub, principal, hub_id),
            )
        )
    samples_large, samples_small = interleave(
        sides[0], sides[1], rounds=rounds, batch=plan.pick(4000, 1000)
    )
    return compare(
        name="world_read_hub",
        title=f"Domain operation in an organization of {LARGE_HUBS:,} hubs: read one hub",
        unit="us",
        a_label=f"{LARGE_HUBS:,} hubs",
        a=[sample * 1e6 for sample in samples_large],
        b_label=f"{SMALL_HUBS} hubs",
        b=[sample * 1e6 for sample in samples_small],
        ratio_label="large / small",
        goal=Goal("ratio", "<=", RATIO_GOAL, "large / small"),
    )


BENCHMARKS = [
    Benchmark("world_scale", run, order=5, description="operations at 100k users against 10")
]
