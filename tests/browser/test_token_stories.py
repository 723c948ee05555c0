"""The management page's stories, clicked through in Chromium against a fake on a socket.

Each story ends on the API: a token approved in the page works on the hubs listing, a
rejected or deleted one does not, and a user removed in the inspector gets 403.
"""

from __future__ import annotations

import re

import httpx
import pytest

from patgate import Fake
from tests.browser.support import NARROW, PeopleFactory, Person, expect, hubs_status

pytestmark = pytest.mark.slow


def _names(fake: Fake) -> tuple[str, str]:
    admin = fake.deployment.users[fake.default_world.admin_id].name
    member = fake.deployment.users[fake.default_world.member_id].name
    return admin, member


def _as(people: PeopleFactory, name: str) -> Person:
    """A new person at a browser, acting as the user called ``name``."""
    person = people()
    person.act_as(name)
    return person


def _create(person: Person, name: str) -> str:
    """Create (or request) a token in the page; returns the value of the one-time reveal."""
    page = person.page
    person.open("/tokens")
    page.get_by_label("Token name").fill(name)
    page.get_by_role("button", name=re.compile(r"^(Create|Request) token$")).click()
    value = page.get_by_label("Token value").input_value()
    assert value.startswith(person.fake.world["pat_prefix"])
    return value


def _row(person: Person, name: str) -> str:
    return person.page.get_by_role("row").filter(has_text=name).inner_text()


def test_a_member_requests_the_admin_approves_and_the_token_works(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, member_name = _names(patgate_server)
    member = _as(people, member_name)
    value = _create(member, "deploy bot")
    expect(member.page.get_by_role("heading", level=1)).to_have_text("Token requested")
    member.page.get_by_role("link", name="Done, back to my tokens").click()
    assert "Pending approval" in _row(member, "deploy bot")
    assert hubs_status(patgate_server, value) == 401  # listed, not usable yet

    admin = _as(people, admin_name)
    admin.page.get_by_role("link", name="Approvals").click()
    row = admin.page.get_by_role("row").filter(has_text="deploy bot")
    assert member_name in row.inner_text()
    row.get_by_role("button", name="Approve deploy bot").click()
    expect(admin.page.get_by_role("status")).to_contain_text("approved")
    expect(admin.page.get_by_text("No requests are waiting.")).to_be_visible()

    assert hubs_status(patgate_server, value) == 200
    member.page.reload()
    assert "Active" in _row(member, "deploy bot")


def test_a_rejected_request_disappears_and_never_works(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, member_name = _names(patgate_server)
    member = _as(people, member_name)
    value = _create(member, "unwanted")

    admin = _as(people, admin_name)
    admin.open("/approvals")
    admin.page.get_by_role("button", name="Reject unwanted").click()
    expect(admin.page.get_by_role("status")).to_contain_text("rejected")

    member.open("/tokens")
    expect(member.page.get_by_role("row").filter(has_text="unwanted")).to_have_count(0)
    assert hubs_status(patgate_server, value) == 401


def test_a_member_cannot_open_approvals(people: PeopleFactory, patgate_server: Fake) -> None:
    _admin, member_name = _names(patgate_server)
    member = _as(people, member_name)
    assert member.page.get_by_role("link", name="Approvals").count() == 0
    response = member.page.goto(member.ui_url + "/approvals")
    assert response is not None
    assert response.status == 403
    text = member.page.inner_text("main")
    assert "Only an organization admin sees and decides token requests" in text
    assert "Act as an admin" in text
    member.forget_refusal(403)


def test_an_admin_sees_the_value_once_copies_it_and_it_works(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, _member = _names(patgate_server)
    admin = people()
    admin.context.grant_permissions(["clipboard-read", "clipboard-write"])
    admin.act_as(admin_name)
    value = _create(admin, "release pipeline")
    page = admin.page
    expect(page.get_by_role("heading", level=1)).to_have_text("Token created")
    assert "will not be shown again" in page.inner_text("main")
    assert value not in page.url

    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied to the clipboard.").wait_for()
    assert page.evaluate("() => navigator.clipboard.readText()") == value
    assert hubs_status(patgate_server, value) == 200

    page.get_by_role("link", name="Done, back to my tokens").click()
    row = _row(admin, "release pipeline")
    assert "Active" in row
    assert "*" in row
    # The value is nowhere else: not in the list, the inspector, a URL or the request log.
    for path in ("/tokens", "/", "/inspector"):
        admin.open(path)
        assert value not in page.content()
        assert value not in page.url
    assert all(value not in entry.url for entry in patgate_server.request_log)


def test_delete_asks_first_and_then_the_token_stops_working(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, _member = _names(patgate_server)
    admin = _as(people, admin_name)
    value = _create(admin, "short lived")
    admin.open("/tokens")
    page = admin.page

    page.get_by_role("link", name="Delete short lived").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Delete the token “short lived”?")
    page.get_by_role("link", name="Cancel").click()
    expect(page.get_by_role("row").filter(has_text="short lived")).to_have_count(1)
    assert hubs_status(patgate_server, value) == 200

    page.get_by_role("link", name="Delete short lived").click()
    page.get_by_role("button", name="Delete token").click()
    expect(page.get_by_role("status")).to_contain_text("deleted")
    expect(page.get_by_role("row").filter(has_text="short lived")).to_have_count(0)
    assert hubs_status(patgate_server, value) == 401


def test_the_sixth_token_is_refused_with_the_apis_message(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, _member = _names(patgate_server)
    admin = people(NARROW)
    admin.act_as(admin_name)
    for n in range(2, 6):  # the world's token is the first
        _create(admin, f"token {n}")
    admin.open("/tokens")
    assert "You hold 5 of 5 tokens." in admin.page.inner_text("#cap")

    admin.page.get_by_label("Token name").fill("token 6")
    admin.page.get_by_role("button", name="Create token").click()
    shown = admin.page.get_by_role("alert").inner_text()
    admin.forget_refusal(409)

    graphql = httpx.post(
        patgate_server.world["graphql_url"],
        json={
            "query": "mutation($i: CreatePersonalAccessTokenInput!) "
            "{ createPersonalAccessToken(input: $i) { id } }",
            "variables": {
                "i": {"name": "token 6", "organizationId": patgate_server.world["organization_id"]}
            },
        },
        headers={"Authorization": f"Bearer {patgate_server.world['admin_token']}"},
        timeout=10,
    ).json()
    # The API's own words, and what to do about them.
    api_message = graphql["errors"][0]["message"]
    assert api_message[0].upper() + api_message[1:] in shown
    assert "Delete a token you no longer use" in shown
    assert admin.page.get_by_label("Token name").input_value() == "token 6"
    expect(admin.page.get_by_role("row").filter(has_text="token 6")).to_have_count(0)
    assert (
        len(list(patgate_server.deployment.tokens_of(patgate_server.default_world.admin_id))) == 5
    )


def test_removing_a_user_in_the_inspector_makes_their_pat_answer_403(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    _admin, member_name = _names(patgate_server)
    member_token = patgate_server.world["member_token"]
    assert hubs_status(patgate_server, member_token) == 200
    tester = people()
    tester.open("/inspector")
    page = tester.page

    page.get_by_role("link", name=f"Remove {member_name}").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Remove {member_name} from")
    assert hubs_status(patgate_server, member_token) == 200  # nothing happens before the yes
    page.get_by_role("button", name="Remove user").click()
    expect(page.get_by_role("status")).to_contain_text(f"{member_name} was removed from")
    users = page.get_by_role("table", name="Users and roles")
    expect(users.get_by_role("row").filter(has_text=member_name)).to_contain_text("Not a member")
    assert hubs_status(patgate_server, member_token) == 403

    page.get_by_role("button", name=f"Restore {member_name}").click()
    expect(page.get_by_role("status")).to_contain_text(f"{member_name} is back in")
    expect(users.get_by_role("row").filter(has_text=member_name)).to_contain_text("Member")
    assert hubs_status(patgate_server, member_token) == 200

    page.get_by_label(f"Role of {member_name}").select_option("restricted")
    page.get_by_role("button", name=f"Set role of {member_name}").click()
    expect(page.get_by_role("status")).to_contain_text(f"{member_name} is now Member, no content")
    assert hubs_status(patgate_server, member_token) == 403  # no content permission now


def test_the_inspector_moves_the_clock_and_lists_the_latest_requests(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    tester = people()
    tester.open("/inspector")
    before = patgate_server.clock.now()
    tester.page.get_by_role("button", name="+ 1 day").click()
    expect(tester.page.get_by_role("status")).to_contain_text("clock moved")
    assert (patgate_server.clock.now() - before).total_seconds() >= 86400

    assert hubs_status(patgate_server, patgate_server.world["admin_token"]) == 200
    # The table refreshes by itself: the API call made after the page loaded shows up.
    tester.page.locator("#requests").get_by_text("/v2/content/hubs").wait_for()
    admin_name = patgate_server.deployment.users[patgate_server.default_world.admin_id].name
    assert f"{admin_name} (personal access token)" in tester.page.locator("#requests").inner_text()


def test_without_javascript_a_member_requests_and_an_admin_approves(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    admin_name, member_name = _names(patgate_server)
    member = people(javascript=False)
    member.act_as(member_name)
    value = _create(member, "plain html")
    # Without the script there is no copy button; the value is still there to select.
    assert member.page.get_by_role("button", name="Copy").count() == 0

    admin = people(javascript=False)
    admin.act_as(admin_name)
    admin.open("/approvals")
    admin.page.get_by_role("button", name="Approve plain html").click()
    expect(admin.page.get_by_role("status")).to_contain_text("approved")
    assert hubs_status(patgate_server, value) == 200
