"""Who may open the page: the run's key, the sign-in page, the Host header, and post,
redirect, get (a reload never repeats an action; a notice is shown once)."""

from __future__ import annotations

import re

import httpx
import pytest

from patgate import Fake
from tests.ui.conftest import Browser

ROUTES = ("/", "/tokens", "/approvals", "/inspector", "/inspector/requests", "/sign-in")


@pytest.fixture
def stranger(fake: Fake) -> httpx.Client:
    """A client of the page that never opened the address with the key."""
    return httpx.Client(transport=fake.httpx_transport(), timeout=10)


@pytest.mark.parametrize("path", ROUTES)
def test_without_the_key_every_page_is_the_sign_in_page(
    fake: Fake, stranger: httpx.Client, path: str
) -> None:
    response = stranger.get(fake.urls.ui_url + path)
    assert response.status_code == 401
    assert "Sign in to the management page" in response.text
    assert "Users and roles" not in response.text
    assert fake.default_world.admin_id not in response.text


def test_without_the_key_no_form_does_anything(fake: Fake, stranger: httpx.Client) -> None:
    page = stranger.get(fake.urls.ui_url + "/")
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
    assert csrf is not None
    response = stranger.post(
        fake.urls.ui_url + "/inspector/users",
        data={
            "csrf": csrf.group(1),
            "user": fake.default_world.member_id,
            "organization": fake.default_world.organization_id,
            "action": "remove",
        },
    )
    assert response.status_code == 401
    member = fake.deployment.users[fake.default_world.member_id]
    assert fake.default_world.organization_id in member.memberships


def test_the_address_with_the_key_signs_in_and_leaves_the_address_bar(
    fake: Fake, stranger: httpx.Client
) -> None:
    opened = stranger.get(f"{fake.urls.ui_url}/inspector?key={fake.ui_secret}&status=4xx")
    assert opened.status_code == 303
    assert opened.headers["location"] == "/ui/inspector?status=4xx"
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert fake.ui_secret not in cookie
    assert stranger.get(fake.urls.ui_url + "/inspector").status_code == 200


def test_a_wrong_key_says_so_and_signs_nothing_in(fake: Fake, stranger: httpx.Client) -> None:
    wrong = stranger.get(f"{fake.urls.ui_url}/?key=not-the-key")
    assert wrong.status_code == 403
    assert "That key is not this server" in wrong.text
    assert stranger.get(fake.urls.ui_url + "/").status_code == 401


@pytest.mark.parametrize("pasted", ["key", "address"])
def test_the_sign_in_form_takes_the_key_or_the_address(
    fake: Fake, stranger: httpx.Client, pasted: str
) -> None:
    page = stranger.get(fake.urls.ui_url + "/")
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
    assert csrf is not None
    text = fake.ui_secret if pasted == "key" else fake.world["ui_url"]
    signed_in = stranger.post(
        fake.urls.ui_url + "/sign-in", data={"csrf": csrf.group(1), "key": text}
    )
    assert signed_in.status_code == 303
    assert stranger.get(fake.urls.ui_url + "/").status_code == 200


def test_another_fake_has_another_key(fake: Fake) -> None:
    other = Fake(urls={"auth_url": "https://auth.other.test", "base_url": "https://api.other.test"})
    assert other.ui_secret != fake.ui_secret
    with httpx.Client(transport=other.httpx_transport(), timeout=10) as client:
        assert client.get(f"{other.urls.ui_url}/?key={fake.ui_secret}").status_code == 403


@pytest.mark.parametrize("host", ["evil.example", "evil.example:443", "127.0.0.1.evil.example"])
def test_a_host_that_is_not_the_servers_gets_421(browser: Browser, host: str) -> None:
    response = browser.client.get(browser.ui + "/inspector", headers={"Host": host})
    assert response.status_code == 421
    assert "Users and roles" not in response.text


@pytest.mark.parametrize("host", ["localhost:8080", "127.0.0.1:8080", "[::1]:8080"])
def test_loopback_names_reach_the_page_and_its_forms(
    fake: Fake, browser: Browser, host: str
) -> None:
    page = browser.client.get(browser.ui + "/", headers={"Host": host})
    assert page.status_code == 200
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
    assert csrf is not None
    posted = browser.client.post(
        browser.ui + "/session",
        data={"csrf": csrf.group(1), "user": fake.default_world.admin_id},
        headers={"Host": host, "Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"},
    )
    assert posted.status_code == 303, posted.text
    # An Origin naming another of the loopback names is another site.
    other = "localhost:8080" if not host.startswith("localhost") else "127.0.0.1:8080"
    forged = browser.client.post(
        browser.ui + "/session",
        data={"csrf": csrf.group(1), "user": fake.default_world.admin_id},
        headers={"Host": host, "Origin": f"http://{other}"},
    )
    assert forged.status_code == 403


def test_a_reload_of_a_create_creates_nothing(fake: Fake, browser: Browser) -> None:
    admin = fake.default_world.admin_id
    browser.act_as(admin)
    before = len(list(fake.deployment.tokens_of(admin)))
    posted = browser.post("/tokens", {"name": "just one"})
    assert posted.status_code == 303
    # The browser follows with a GET; reloading that page repeats the GET, never the post.
    address = posted.headers["location"].removeprefix("/ui")
    browser.get(address)
    browser.get(address)
    assert len(list(fake.deployment.tokens_of(admin))) == before + 1


def test_another_user_cannot_open_a_reveal(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    posted = browser.post("/tokens", {"name": "mine"})
    address = posted.headers["location"].removeprefix("/ui")
    browser.act_as(fake.default_world.member_id)
    response = browser.get(address)
    assert response.status_code == 404
    assert "token-value" not in response.text
    assert "Nothing to show here" in response.text


def test_a_notice_names_what_changed_and_is_gone_on_reload(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    record = next(iter(fake.deployment.tokens_of(fake.default_world.admin_id)))
    deleted = browser.post("/tokens/delete", {"id": record.id})
    assert deleted.status_code == 303
    address = deleted.headers["location"].removeprefix("/ui")
    first = browser.get(address)
    assert f"The token “{record.name}”" in first.text
    assert 'class="notice success"' in first.text
    assert 'id="notice"' not in browser.get(address).text


def test_a_refusal_says_what_to_do_next(fake: Fake, browser: Browser) -> None:
    admin = fake.default_world.admin_id
    for n in range(4):
        fake.request_token_via_ui(admin, f"filler {n}")
    browser.act_as(admin)
    refused = browser.post("/tokens", {"name": "sixth"})
    assert refused.status_code == 409
    problem = re.search(r'class="field-error"[^>]*>(.*?)</p>', refused.text)
    assert problem is not None
    assert "most tokens one user may have" in problem.group(1)
    assert "Delete a token you no longer use" in problem.group(1)
    assert 'value="sixth"' in refused.text


def test_dates_are_readable_with_the_exact_instant_in_the_title(
    fake: Fake, browser: Browser
) -> None:
    browser.act_as(fake.default_world.admin_id)
    page = browser.get("/tokens").text
    found = re.search(r'<time datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', page)
    assert found is not None
    exact, title, shown = found.groups()
    assert exact == title
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", exact)
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", shown)
