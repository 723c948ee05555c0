"""What the page promises a person, in Chromium at 1280 and 390 px: only this run's address
signs in, `localhost` works like `127.0.0.1`, a reload never repeats an action, a notice is
shown once, and the inspector filters requests and adds and clears fault rules."""

from __future__ import annotations

import re

import httpx
import pytest

from patgate import Fake
from tests.browser.support import NARROW, WIDE, PeopleFactory, expect, screenshot

pytestmark = pytest.mark.slow

WIDTHS = pytest.mark.parametrize("width", ["1280", "390"])


def _viewport(width: str) -> dict[str, int]:
    return WIDE if width == "1280" else NARROW


def _admin(fake: Fake) -> str:
    return fake.deployment.users[fake.default_world.admin_id].name


@WIDTHS
def test_without_the_key_a_person_signs_in_by_pasting_the_address(
    people: PeopleFactory, patgate_server: Fake, width: str
) -> None:
    person = people(_viewport(width))
    person.context.clear_cookies()
    page = person.page
    person.open("/inspector")
    person.forget_refusal(401)
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to the management page")
    assert "Users and roles" not in page.content()

    page.get_by_label("Address or key").fill("not the key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("That key is not this server's")
    person.forget_refusal(403)
    screenshot(page, f"sign-in-wrong-key-{width}")

    page.get_by_label("Address or key").fill(patgate_server.world["ui_url"])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Who you are")


@WIDTHS
def test_localhost_works_like_127_0_0_1_forms_included(
    people: PeopleFactory, patgate_server: Fake, width: str
) -> None:
    person = people(_viewport(width))
    person.context.clear_cookies()
    page = person.page
    local = patgate_server.world["ui_url"].replace("127.0.0.1", "localhost")
    page.goto(local)
    page.get_by_role("button", name=f"Act as {_admin(patgate_server)}", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(f"You now act as {_admin(patgate_server)}")
    assert page.url.startswith("http://localhost:")
    page.get_by_role("link", name="Inspector").click()
    page.get_by_role("button", name="+ 5 minutes").click()
    expect(page.get_by_role("status")).to_contain_text("The clock moved forward by 5 minutes")
    # The fake under its other name: not a request that left it.
    origin = local.split("/ui/")[0]
    person.foreign_requests[:] = [u for u in person.foreign_requests if not u.startswith(origin)]


def test_a_foreign_host_name_gets_nothing(patgate_server: Fake) -> None:
    # A page on another site whose name was rebound to 127.0.0.1 sends its own name as Host.
    response = httpx.get(
        patgate_server.urls.ui_url + "/inspector",
        headers={"Host": "rebound.example"},
        cookies={},
        timeout=10,
    )
    assert response.status_code == 421


@WIDTHS
def test_a_reload_after_a_create_creates_nothing_and_the_value_is_gone(
    people: PeopleFactory, patgate_server: Fake, width: str
) -> None:
    person = people(_viewport(width))
    person.act_as(_admin(patgate_server))
    page = person.page
    admin = patgate_server.default_world.admin_id
    before = len(list(patgate_server.deployment.tokens_of(admin)))
    person.open("/tokens")
    page.get_by_label("Token name").fill("reloaded")
    page.get_by_role("button", name="Create token").click()
    value = page.get_by_label("Token value").input_value()
    assert value.startswith(patgate_server.world["pat_prefix"])
    # The whole value is in view: the field does not scroll inside, nor the page sideways.
    field = page.get_by_label("Token value")
    assert field.evaluate("e => e.scrollHeight <= e.clientHeight + 1")
    assert field.evaluate("e => e.scrollWidth <= e.clientWidth + 1")

    page.reload()
    person.forget_refusal(410)
    expect(page.get_by_role("heading", level=1)).to_have_text("The value was already shown")
    assert value not in page.content()
    page.go_back()
    page.go_forward()
    person.forget_refusal(410)
    assert len(list(patgate_server.deployment.tokens_of(admin))) == before + 1


@WIDTHS
def test_a_notice_names_the_token_and_is_gone_on_reload(
    people: PeopleFactory, patgate_server: Fake, width: str
) -> None:
    person = people(_viewport(width))
    person.act_as(_admin(patgate_server))
    page = person.page
    person.open("/tokens")
    page.get_by_role("link", name="Delete patgate world token").click()
    page.get_by_role("button", name="Delete token").click()
    notice = page.get_by_role("status")
    expect(notice).to_contain_text("The token “patgate world token”")
    assert "success" in (notice.get_attribute("class") or "")
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Personal access tokens")
    assert page.locator("#notice").count() == 0


@WIDTHS
def test_the_inspector_filters_and_adds_and_clears_fault_rules(
    people: PeopleFactory, patgate_server: Fake, width: str
) -> None:
    person = people(_viewport(width))
    page = person.page
    person.open("/inspector")
    page.get_by_label("Endpoint").select_option("hubs")
    page.get_by_label("Answer with status").fill("503")
    page.get_by_label("Times").fill("1")
    page.get_by_role("button", name="Add fault rule").click()
    expect(page.get_by_role("status")).to_contain_text(
        "the hubs endpoint answers 503, for the next 1 request"
    )
    with httpx.Client(timeout=10) as client:
        for token in ("admin_token", "member_token"):
            bearer = {"Authorization": f"Bearer {patgate_server.world[token]}"}
            client.get(patgate_server.urls.hubs_url, headers=bearer)

    person.open("/inspector")
    page.get_by_label("Status", exact=True).select_option("5xx")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("#requests tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("fault-1")
    screenshot(page, f"inspector-5xx-{width}")
    rows.first.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("GET")
    assert re.search(r"authorization\s+Bearer \[REDACTED\]", page.inner_text("main"))
    assert patgate_server.world["admin_token"] not in page.content()

    person.open("/inspector")
    page.get_by_role("button", name="Switch the rate limit on").click()
    page.get_by_role("button", name="Remove every rule").click()
    expect(page.get_by_role("status")).to_contain_text("Every fault rule was removed")
    assert patgate_server.deployment.faults.rules() == []
    assert not patgate_server.deployment.faults.rate_limit
