"""Personal access tokens: format, storage, masking, cap, ownership, lifecycle."""

from __future__ import annotations

import re

import pytest

from patgate.errors import Forbidden, InvalidRequest, NotFound, TokenLimitReached, Unauthenticated
from patgate.fake.deployment import Deployment
from patgate.fake.model import PatStatus, Principal, Role
from patgate.fake.pat_format import PatFormat
from patgate.fake.world import DefaultWorld

PAT_SHAPE = re.compile(r"^amp_pat_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$")


def _create(deployment: Deployment, who: Principal, world: DefaultWorld, name: str = "t") -> str:
    return deployment.create_token(who, name, world.organization_id).value


def test_a_created_token_has_the_documented_shape_and_fields(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    created = deployment.create_token(admin, "My personal access token", world.organization_id)
    assert PAT_SHAPE.match(created.value)
    assert created.record.name == "My personal access token"
    assert created.record.last_used_date is None
    assert created.record.user_id == world.admin_id


def test_values_are_distinct_and_the_prefix_is_configurable(world: DefaultWorld) -> None:
    values = {PatFormat().mint().value for _ in range(50)}
    assert len(values) == 50
    assert PatFormat("acme_").mint().value.startswith("acme_")
    with pytest.raises(ValueError, match="prefix"):
        PatFormat("bad prefix")


def test_only_a_hash_is_stored_and_the_listing_is_masked(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    value = _create(deployment, admin, world)
    secret = value.split(".", 1)[1]
    state = repr(vars(deployment)) + repr(deployment.tokens)
    assert value not in state
    assert secret not in state
    listed = [t for t in deployment.list_tokens(admin) if t.masked.startswith(value[:16])]
    assert len(listed) == 1
    assert listed[0].masked.endswith("*" * 32)
    assert secret not in listed[0].masked


def test_right_id_with_wrong_secret_is_like_an_unknown_token(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    value = _create(deployment, admin, world)
    prefix_and_id = value.split(".", 1)[0]
    malformed = [
        prefix_and_id + ".wrongsecret",
        "amp_pat_" + "A" * 22 + "." + "B" * 43,
        prefix_and_id,
        value + ".extra",
        "xyz_" + value[8:],
    ]
    messages = set()
    for bad in malformed:
        with pytest.raises(Unauthenticated) as raised:
            deployment.authenticate(bad)
        messages.add(str(raised.value))
    assert messages == {"the access token is not valid"}


def test_last_used_is_set_on_use(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    created = deployment.create_token(admin, "t", world.organization_id)
    assert created.record.last_used_date is None
    deployment.clock.advance(60)
    deployment.authenticate(created.value)
    assert created.record.last_used_date == deployment.clock.now()


def test_the_cap_is_five_and_counts_live_tokens(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    # The admin starts with the world's token.
    created = [deployment.create_token(admin, f"t{i}", world.organization_id) for i in range(4)]
    with pytest.raises(TokenLimitReached) as raised:
        deployment.create_token(admin, "sixth", world.organization_id)
    assert raised.value.rule_id == "PAT-CAP"
    assert len(list(deployment.tokens_of(world.admin_id))) == 5
    deployment.delete_token(admin, created[0].record.id)
    deployment.create_token(admin, "again", world.organization_id)
    assert len(list(deployment.tokens_of(world.admin_id))) == 5


def test_failed_creates_use_no_slot(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    for bad_name in ("", "   ", "x" * 256, "nul\x00byte"):
        with pytest.raises(InvalidRequest):
            deployment.create_token(admin, bad_name, world.organization_id)
    assert len(list(deployment.tokens_of(world.admin_id))) == 1
    deployment.create_token(admin, "<script>alert(1)</script> ünïcødé", world.organization_id)


def test_only_admins_create_through_the_api(
    deployment: Deployment, world: DefaultWorld, member: Principal, admin: Principal
) -> None:
    with pytest.raises(Forbidden) as raised:
        deployment.create_token(member, "mine", world.organization_id)
    assert raised.value.rule_id == "PAT-ADMIN-ONLY"
    assert len(list(deployment.tokens_of(world.member_id))) == 1
    other_org = deployment.add_organization("Elsewhere")
    with pytest.raises(Forbidden):
        deployment.create_token(admin, "elsewhere", other_org.id)


def test_a_demoted_admin_loses_creation(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    deployment.set_role(world.admin_id, world.organization_id, Role.MEMBER)
    with pytest.raises(Forbidden):
        deployment.create_token(admin, "t", world.organization_id)


def test_listing_holds_only_the_callers_tokens(
    deployment: Deployment, world: DefaultWorld, admin: Principal, member: Principal
) -> None:
    mine = deployment.create_token(admin, "admin's", world.organization_id).record.id
    member_ids = {t.id for t in deployment.list_tokens(member)}
    assert mine not in member_ids
    assert {t.user_id for t in deployment.list_tokens(member)} == {world.member_id}


def test_a_deleted_token_stops_working_at_once(
    deployment: Deployment, world: DefaultWorld, admin: Principal
) -> None:
    created = deployment.create_token(admin, "t", world.organization_id)
    deployment.authenticate(created.value)
    deployment.delete_token(admin, created.record.id)
    with pytest.raises(Unauthenticated):
        deployment.authenticate(created.value)
    assert created.record.id not in {t.id for t in deployment.list_tokens(admin)}


def test_nobody_deletes_another_users_token(
    deployment: Deployment, world: DefaultWorld, admin: Principal, member: Principal
) -> None:
    created = deployment.create_token(admin, "t", world.organization_id)
    with pytest.raises(NotFound) as foreign:
        deployment.delete_token(member, created.record.id)
    with pytest.raises(NotFound) as unknown:
        deployment.delete_token(member, "UGVyc29uYWxBY2Nlc3NUb2tlbjpub3BlL25vcGU=")
    assert str(foreign.value) == str(unknown.value)
    deployment.authenticate(created.value)


def test_the_owner_is_found_with_the_token_itself(
    deployment: Deployment, world: DefaultWorld
) -> None:
    principal = deployment.authenticate(world.member_token)
    viewer = deployment.viewer(principal)
    assert viewer.id == world.member_id
    listed = deployment.list_tokens(principal)
    assert [t.id for t in listed] == [principal.token_id]
    assert world.member_token.startswith(listed[0].masked.rstrip("*"))


def test_a_removed_users_token_is_refused_and_revives_when_re_added(
    deployment: Deployment, world: DefaultWorld
) -> None:
    value = world.member_token
    principal = deployment.authenticate(value)
    deployment.remove_user(world.member_id, world.organization_id)
    principal = deployment.authenticate(value)
    with pytest.raises(Forbidden) as raised:
        deployment.list_hubs(principal)
    assert raised.value.rule_id == "PAT-REMOVED-USER"
    with pytest.raises(Forbidden):
        deployment.viewer(principal)
    deployment.set_role(world.member_id, world.organization_id, Role.MEMBER)
    assert deployment.list_hubs(deployment.authenticate(value)).total_elements == 3


def test_the_worlds_removed_user_is_refused(deployment: Deployment, world: DefaultWorld) -> None:
    with pytest.raises(Forbidden):
        deployment.list_hubs(deployment.authenticate(world.removed_token))


def test_lost_content_permission_is_refused_hubs(
    deployment: Deployment, world: DefaultWorld
) -> None:
    principal = deployment.authenticate(world.unpermitted_token)
    with pytest.raises(Forbidden) as raised:
        deployment.list_hubs(principal)
    assert raised.value.rule_id == "PAT-LOST-PERMISSION"
    assert deployment.viewer(principal).id == world.unpermitted_id


def test_a_non_admins_ui_request_pends_until_approved(
    deployment: Deployment, world: DefaultWorld, member: Principal
) -> None:
    created = deployment.request_token_via_ui(world.member_id, world.organization_id, "ui")
    assert created.record.status is PatStatus.PENDING
    assert created.record.id in {t.id for t in deployment.list_tokens(member)}
    with pytest.raises(Unauthenticated) as raised:
        deployment.authenticate(created.value)
    assert raised.value.rule_id == "PAT-APPROVAL"
    with pytest.raises(Forbidden):
        deployment.approve_token_request(created.record.id, approver_id=world.member_id)
    deployment.approve_token_request(created.record.id, approver_id=world.admin_id)
    assert deployment.authenticate(created.value).user_id == world.member_id


def test_a_rejected_request_disappears(
    deployment: Deployment, world: DefaultWorld, member: Principal
) -> None:
    created = deployment.request_token_via_ui(world.member_id, world.organization_id, "ui")
    deployment.reject_token_request(created.record.id)
    assert created.record.id not in {t.id for t in deployment.list_tokens(member)}
    with pytest.raises(Unauthenticated):
        deployment.authenticate(created.value)
    with pytest.raises(NotFound):
        deployment.approve_token_request(created.record.id)


def test_an_admins_ui_request_is_usable_at_once(
    deployment: Deployment, world: DefaultWorld
) -> None:
    created = deployment.request_token_via_ui(world.admin_id, world.organization_id, "ui")
    assert created.record.status is PatStatus.ACTIVE
    deployment.authenticate(created.value)


def test_pending_requests_count_toward_the_cap(deployment: Deployment, world: DefaultWorld) -> None:
    for i in range(4):
        deployment.request_token_via_ui(world.member_id, world.organization_id, f"ui{i}")
    with pytest.raises(TokenLimitReached):
        deployment.request_token_via_ui(world.member_id, world.organization_id, "sixth")


def test_pats_never_expire(deployment: Deployment, world: DefaultWorld) -> None:
    deployment.clock.advance(400 * 86400)
    principal = deployment.authenticate(world.admin_token)
    assert deployment.list_hubs(principal).total_elements == 3


def test_hubs_are_paged(deployment: Deployment, admin: Principal) -> None:
    page = deployment.list_hubs(admin, page=1, size=2)
    assert (page.number, page.size, page.total_elements, page.total_pages) == (1, 2, 3, 2)
    assert len(page.hubs) == 1
    for bad in ({"page": -1}, {"size": 0}, {"size": 101}):
        with pytest.raises(InvalidRequest):
            deployment.list_hubs(admin, **bad)
