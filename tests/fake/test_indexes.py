"""The deployment's indexes: each operation finds what it needs without walking the world.

A deployment whose token table and hub list refuse to be walked still answers every
operation: the proof that none of them scans (and so that none grows with the world's size;
the figures are in ``benchmarks/``). The rest checks that the indexes agree with the rules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

import pytest

from patgate.errors import NotFound, TokenLimitReached
from patgate.fake import deployment as deployment_module
from patgate.fake.deployment import Deployment
from patgate.fake.model import Hub, PatRecord, Principal, Role


class _NoWalkDict(dict[str, PatRecord]):
    def _refuse(self, *args: Any) -> NoReturn:
        raise AssertionError("an operation walked every token of the deployment")

    __iter__ = values = items = keys = _refuse  # type: ignore[assignment]


class _NoWalkList(list[Hub]):
    def _refuse(self, *args: Any) -> NoReturn:
        raise AssertionError("an operation walked every hub of the deployment")

    __iter__ = _refuse  # type: ignore[assignment]


def _admin(deployment: Deployment, org_id: str, name: str = "Ada") -> Principal:
    user = deployment.add_user(name, f"{name.lower()}@example.test", org_id, Role.ADMIN)
    return Principal(user.id, org_id, via="client")


def test_no_operation_walks_the_token_table_or_the_hub_list() -> None:
    deployment = Deployment()
    org = deployment.add_organization("Acme")
    deployment.tokens = _NoWalkDict()
    deployment.hubs = _NoWalkList()
    admin = _admin(deployment, org.id)
    deployment.add_hub(org.id, "one-hub", created_by=admin.user_id)
    created = deployment.create_token(admin, "first", org.id)
    pat = deployment.authenticate(created.value)
    assert [h.name for h in deployment.list_hubs(pat).hubs] == ["one-hub"]
    assert [t.name for t in deployment.list_tokens(pat)] == ["first"]
    assert [t.id for t in deployment.tokens_of(admin.user_id)] == [created.record.id]
    deployment.delete_token(pat, created.record.id)
    assert deployment.list_tokens(admin) == []


def test_the_cap_counts_per_organization_and_a_delete_frees_a_place() -> None:
    deployment = Deployment(max_tokens_per_user=2)
    first, second = deployment.add_organization("A"), deployment.add_organization("B")
    admin = _admin(deployment, first.id)
    deployment.set_role(admin.user_id, second.id, Role.ADMIN)
    in_second = Principal(admin.user_id, second.id, via="client")
    kept = [deployment.create_token(admin, f"a{n}", first.id).record for n in range(2)]
    with pytest.raises(TokenLimitReached):
        deployment.create_token(admin, "a3", first.id)
    # The other organization's cap is its own.
    other = deployment.create_token(in_second, "b1", second.id).record
    assert [t.name for t in deployment.list_tokens(admin)] == ["a0", "a1", "b1"]
    deployment.delete_token(admin, kept[0].id)
    deployment.create_token(admin, "a3", first.id)
    assert [t.name for t in deployment.list_tokens(in_second)] == ["a1", "b1", "a3"]
    assert other.id in deployment.tokens


def test_a_deleted_token_leaves_every_index() -> None:
    deployment = Deployment()
    org = deployment.add_organization("Acme")
    admin = _admin(deployment, org.id)
    created = deployment.create_token(admin, "gone", org.id)
    deployment.delete_token(admin, created.record.id)
    assert deployment.list_tokens(admin) == []
    assert list(deployment.tokens_of(admin.user_id)) == []
    with pytest.raises(NotFound):
        deployment.delete_token(admin, created.record.id)
    assert created.record.id not in deployment.tokens


def test_each_organization_sees_only_its_hubs_in_creation_order() -> None:
    deployment = Deployment()
    first, second = deployment.add_organization("A"), deployment.add_organization("B")
    in_first, in_second = _admin(deployment, first.id, "Ada"), _admin(deployment, second.id, "Bo")
    for n in range(5):
        deployment.add_hub(first.id, f"a-{n}", created_by=in_first.user_id)
        deployment.add_hub(second.id, f"b-{n}", created_by=in_second.user_id)
    page = deployment.list_hubs(in_first, page=1, size=2)
    assert [h.name for h in page.hubs] == ["a-2", "a-3"]
    assert (page.total_elements, page.total_pages) == (5, 3)
    assert [h.name for h in deployment.list_hubs(in_second, size=100).hubs] == [
        f"b-{n}" for n in range(5)
    ]


def test_a_user_sees_only_their_own_tokens_among_many() -> None:
    deployment = Deployment()
    org = deployment.add_organization("Acme")
    people = [_admin(deployment, org.id, f"P{n}") for n in range(20)]
    for person in people:
        for n in range(3):
            deployment.create_token(person, f"{person.user_id}-{n}", org.id)
    for person in people:
        listed = deployment.list_tokens(person)
        assert [t.name for t in listed] == [f"{person.user_id}-{n}" for n in range(3)]
        assert {t.user_id for t in listed} == {person.user_id}


def _lines_run(call: Callable[[], object]) -> int:
    """How many lines of the deployment's module ``call`` runs: a walk of the world's records
    runs lines in proportion to them, an index lookup a handful (no clock involved)."""
    counted = 0
    module = deployment_module.__file__

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal counted
        if frame.f_code.co_filename != module:
            return None
        if event == "line":
            counted += 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return counted


def test_a_hub_is_read_by_its_id_among_a_hundred_thousand_without_a_walk() -> None:
    deployment = Deployment()
    mine, other = deployment.add_organization("Mine"), deployment.add_organization("Other")
    admin = _admin(deployment, mine.id)
    stranger = _admin(deployment, other.id, "Bo")
    hubs = [
        deployment.add_hub(mine.id, f"hub-{n}", created_by=admin.user_id) for n in range(100_000)
    ]
    theirs = deployment.add_hub(other.id, "their-hub", created_by=stranger.user_id)
    deployment.hubs = _NoWalkList(deployment.hubs)
    for hub in (hubs[0], hubs[50_000], hubs[-1]):
        assert deployment.read_hub(admin, hub.id) is hub
        assert _lines_run(lambda hub=hub: deployment.read_hub(admin, hub.id)) < 30
    assert deployment.read_hub(stranger, theirs.id) is theirs
    assert deployment.find_hub(hubs[9].id) is hubs[9]
    for principal, hub_id in ((admin, theirs.id), (stranger, hubs[7].id), (admin, "nope")):
        with pytest.raises(NotFound):
            deployment.read_hub(principal, hub_id)
        assert _lines_run(lambda p=principal, h=hub_id: _refused(deployment, p, h)) < 30


def _refused(deployment: Deployment, principal: Principal, hub_id: str) -> None:
    with pytest.raises(NotFound):
        deployment.read_hub(principal, hub_id)


def test_a_restored_state_reads_its_hubs_by_id() -> None:
    deployment = Deployment()
    org = deployment.add_organization("Acme")
    admin = _admin(deployment, org.id)
    hub = deployment.add_hub(org.id, "kept", created_by=admin.user_id)
    gone = deployment.add_hub(org.id, "gone", created_by=admin.user_id)
    deployment.replace_state(
        deployment.organizations.values(), deployment.users.values(), [], [hub], []
    )
    assert deployment.read_hub(admin, hub.id) is hub
    with pytest.raises(NotFound):
        deployment.read_hub(admin, gone.id)
