"""Every page of the management UI at 1280 and 390 px: axe-core finds nothing serious, nothing
overflows sideways (also with 255-character names, long emails and whole masked tokens), a
keyboard alone gets through, and a screenshot of each state is kept."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from patgate import Fake
from tests.browser.support import (
    NARROW,
    WIDE,
    PeopleFactory,
    Person,
    expect,
    run_axe,
    screenshot,
)

pytestmark = pytest.mark.slow


def _admin(fake: Fake) -> str:
    return fake.deployment.users[fake.default_world.admin_id].name


LONG_NAME = "n" * 255
LONG_WORDS = ("release pipeline for the nightly export " * 7)[:255]
LONG_EMAIL = "someone.with.a.rather.long.address." + "x" * 40 + "@department.example.com"


def _sign_in(person: Person) -> None:
    person.context.clear_cookies()
    person.open("/")
    person.forget_refusal(401)


def _long_values(fake: Fake) -> None:
    """A user with a long name and email asking for a token with a 255-character name."""
    admin = fake.default_world.admin_id
    fake.request_token_via_ui(admin, LONG_NAME)
    fake.request_token_via_ui(admin, LONG_WORDS)
    user = fake.add_user(LONG_WORDS, LONG_EMAIL)
    fake.request_token_via_ui(user.id, LONG_NAME)


def _long_tokens(person: Person) -> None:
    _long_values(person.fake)
    person.open("/tokens")


def _long_approvals(person: Person) -> None:
    _long_values(person.fake)
    person.open("/approvals")


def _long_users(person: Person) -> None:
    _long_values(person.fake)
    person.open("/")


def _long_reveal(person: Person) -> None:
    person.open("/tokens")
    person.page.get_by_label("Token name").fill(LONG_NAME)
    person.page.get_by_role("button", name="Create token").click()
    expect(person.page.get_by_role("heading", name="Token created")).to_be_visible()


def _reveal_shown(person: Person) -> None:
    _reveal(person)
    person.page.reload()
    expect(person.page.get_by_role("heading", level=1)).to_have_text("The value was already shown")
    person.forget_refusal(410)


def _traffic(fake: Fake) -> None:
    fake.deployment.faults.add("hubs", status=503, count=1)
    with httpx.Client(timeout=10) as client:
        for token in (fake.world["admin_token"], fake.world["member_token"], "not-a-token"):
            client.get(fake.urls.hubs_url, headers={"Authorization": f"Bearer {token}"})
        client.post(
            fake.urls.graphql_url,
            json={"query": "query Viewer { viewer { id } }", "operationName": "Viewer"},
            headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
        )


def _inspector_detail(person: Person) -> None:
    _traffic(person.fake)
    person.open("/inspector")
    person.page.get_by_role("link", name="details").first.click()
    expect(person.page.get_by_role("heading", level=1)).to_contain_text("Request #")


def _inspector_filtered(person: Person) -> None:
    _traffic(person.fake)
    person.open("/inspector?status=4xx#requests-heading")


def _confirm_remove(person: Person) -> None:
    person.open("/inspector")
    person.page.get_by_role("link", name="Remove").first.click()
    expect(person.page.get_by_role("heading", level=1)).to_contain_text("Remove")


def _confirm_reset(person: Person) -> None:
    person.open("/inspector")
    person.page.get_by_role("link", name="Reset the fake…").click()
    expect(person.page.get_by_role("heading", level=1)).to_have_text("Reset the fake?")


def _who(person: Person) -> None:
    person.open("/")


def _tokens(person: Person) -> None:
    person.open("/tokens")


def _member_tokens(person: Person) -> None:
    fake = person.fake
    fake.request_token_via_ui(fake.default_world.member_id, "waiting for approval")
    person.act_as(fake.deployment.users[fake.default_world.member_id].name)
    person.open("/tokens")


def _cap_reached(person: Person) -> None:
    fake = person.fake
    for n in range(2, 6):
        fake.request_token_via_ui(fake.default_world.admin_id, f"token {n}")
    person.open("/tokens")
    person.page.get_by_label("Token name").fill("one too many")
    person.page.get_by_role("button", name="Create token").click()
    expect(person.page.get_by_role("alert")).to_be_visible()
    person.forget_refusal(409)


def _reveal(person: Person) -> None:
    person.open("/tokens")
    person.page.get_by_label("Token name").fill("screenshot token")
    person.page.get_by_role("button", name="Create token").click()
    expect(person.page.get_by_role("heading", name="Token created")).to_be_visible()


def _confirm_delete(person: Person) -> None:
    person.open("/tokens")
    person.page.get_by_role("link", name="Delete patgate world token").click()
    expect(person.page.get_by_role("heading", level=1)).to_contain_text("Delete the token")


def _approvals(person: Person) -> None:
    fake = person.fake
    fake.request_token_via_ui(fake.default_world.member_id, "nightly export")
    fake.request_token_via_ui(fake.default_world.unpermitted_id, "report reader")
    person.open("/approvals")


def _inspector(person: Person) -> None:
    person.fake.deployment.faults.add("graphql", operation="Viewer", status=429, retry_after=30)
    person.fake.deployment.faults.add("hubs", latency=0.2, count=3)
    person.fake.deployment.faults.add("content", status=500, probability=0.5)
    _traffic(person.fake)
    person.open("/inspector")


def _refused(person: Person) -> None:
    person.open("/tokens/delete?id=no-such-token")
    person.forget_refusal(404)


PAGES: dict[str, Callable[[Person], None]] = {
    "sign-in": _sign_in,
    "who-you-are": _who,
    "tokens": _tokens,
    "tokens-member": _member_tokens,
    "tokens-cap-reached": _cap_reached,
    "reveal": _reveal,
    "confirm-delete": _confirm_delete,
    "approvals": _approvals,
    "inspector": _inspector,
    "not-found": _refused,
    "long-tokens": _long_tokens,
    "long-approvals": _long_approvals,
    "long-users": _long_users,
    "long-reveal": _long_reveal,
    "reveal-shown": _reveal_shown,
    "inspector-detail": _inspector_detail,
    "inspector-filtered": _inspector_filtered,
    "confirm-remove": _confirm_remove,
    "confirm-reset": _confirm_reset,
}


@pytest.mark.parametrize("width", ["1280", "390"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_page_is_accessible_fits_and_is_photographed(
    people: PeopleFactory, patgate_server: Fake, axe_source: str, name: str, width: str
) -> None:
    person = people(WIDE if width == "1280" else NARROW)
    person.act_as(_admin(patgate_server))
    PAGES[name](person)
    page = person.page
    page.wait_for_load_state("load")
    # Taken first, so a page that fails below is in the artifacts too.
    assert screenshot(page, f"{name}-{width}").stat().st_size > 0

    assert run_axe(page, axe_source) == []
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than the window"


def test_a_keyboard_alone_creates_a_token_and_the_focus_follows(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    person = people()
    person.act_as(_admin(patgate_server))
    page = person.page
    person.open("/tokens")
    # Tab from the top of the page until the name field has the focus, then type and submit.
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.id") == "token-name":
            break
    else:
        pytest.fail("Tab never reached the token name field")
    page.keyboard.type("typed by keyboard")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.get_by_role("heading", name="Token created").wait_for()
    assert page.evaluate("() => document.activeElement.id") == "reveal-heading"

    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.textContent")
    assert focused in ("Copy", "Done, back to my tokens")


def test_after_an_action_the_focus_is_on_its_outcome(
    people: PeopleFactory, patgate_server: Fake
) -> None:
    person = people()
    person.open("/inspector")
    person.page.get_by_role("button", name="+ 5 minutes").click()
    # The click posts a form: wait for the answer page instead of reading the old one's focus.
    outcome = person.page.wait_for_selector("[role=status]:focus", timeout=15_000)
    assert outcome is not None
    assert "clock moved" in (outcome.text_content() or "")
