"""The management page over HTTP without a browser: forms, refusals, forgery, secrecy.

These run everywhere (no Chromium needed): an httpx client talks to the in-process fake.
"""

from __future__ import annotations

import re

import httpx
import pytest

from patgate import Fake
from tests.ui.conftest import Browser


def _problem(response: httpx.Response) -> str:
    found = re.search(r'class="(?:problem|field-error)"[^>]*>(.*?)</p>', response.text)
    assert found, response.text
    return found.group(1)


def _hubs(fake: Fake, token: str) -> int:
    return httpx.get(fake.urls.hubs_url, headers={"Authorization": f"Bearer {token}"}).status_code


def test_the_target_file_names_the_page_and_it_answers_html(fake: Fake, browser: Browser) -> None:
    assert fake.world["ui_url"] == f"{fake.world['base_url']}/ui/?key={fake.ui_secret}"
    response = browser.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<h1>Who you are</h1>" in response.text
    # No external asset: every src and href stays on the page's own path.
    for url in re.findall(r'(?:src|href)="([^"]+)"', response.text):
        assert url.startswith(("/ui", "#")), url
    for asset, kind in (("page.css", "text/css"), ("page.js", "text/javascript")):
        served = browser.get(f"/assets/{asset}")
        assert served.status_code == 200
        assert served.headers["content-type"].startswith(kind)


def test_without_a_picked_user_the_token_pages_send_you_to_pick_one(browser: Browser) -> None:
    for path in ("/tokens", "/approvals"):
        response = browser.get(path)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/ui/?note=")
        picker = browser.get(response.headers["location"].removeprefix("/ui"))
        assert "Pick who you are first" in picker.text
        assert 'class="notice info"' in picker.text


def test_a_cookie_naming_an_unknown_user_counts_as_nobody(fake: Fake, browser: Browser) -> None:
    browser.client.cookies.set("patgate_ui_user", "VXNlcjpub2JvZHk=", path="/ui")
    response = browser.get("/")
    assert response.status_code == 200
    assert "Nobody picked yet" in response.text


@pytest.mark.parametrize(
    ("headers", "data"),
    [
        ({}, {"csrf": ""}),
        ({}, {"csrf": "0" * 64}),
        ({"Origin": "https://evil.example"}, {}),
        ({"Sec-Fetch-Site": "cross-site"}, {}),
    ],
    ids=["no field", "forged field", "another origin", "cross-site fetch"],
)
def test_a_forged_form_post_is_refused_and_changes_nothing(
    fake: Fake, browser: Browser, headers: dict[str, str], data: dict[str, str]
) -> None:
    member = fake.default_world.member_id
    browser.get("/")
    response = browser.client.post(
        browser.ui + "/inspector/users",
        data={"csrf": browser.csrf, "user": member, "action": "remove"}
        | {"organization": fake.default_world.organization_id}
        | data,
        headers=headers,
    )
    assert response.status_code == 403
    assert "another site" in _problem(response) or "expired" in _problem(response)
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_a_form_field_made_for_another_browser_is_refused(fake: Fake, browser: Browser) -> None:
    other = Browser(fake)
    other.get("/")
    browser.get("/")
    response = browser.client.post(
        browser.ui + "/session", data={"csrf": other.csrf, "user": fake.default_world.admin_id}
    )
    assert response.status_code == 403
    other.client.close()


@pytest.mark.parametrize(
    ("path", "form", "status", "problem"),
    [
        ("/inspector/clock", {"seconds": "soon"}, 400, "a whole number of seconds from 1"),
        ("/inspector/clock", {"seconds": "0"}, 400, "a whole number of seconds from 1"),
        ("/inspector/clock", {"seconds": "9" * 5000}, 400, "a whole number of seconds from 1"),
        ("/inspector/clock", {}, 400, "The form needs a &#39;seconds&#39; field"),
        (
            "/inspector/users",
            {"user": "$admin", "organization": "$org", "action": "role", "role": "boss"},
            400,
            "The role must be one of admin, member, restricted",
        ),
        (
            "/inspector/users",
            {"user": "$admin", "organization": "$org", "action": "explode"},
            400,
            "The action must be remove, restore or role",
        ),
        (
            "/inspector/users",
            {"user": "nobody", "organization": "y", "action": "remove"},
            404,
            "There is no such user",
        ),
        ("/session", {"user": "nobody"}, 404, "No such user"),
    ],
)
def test_bad_input_gets_a_4xx_page_that_names_the_problem(
    fake: Fake, browser: Browser, path: str, form: dict[str, str], status: int, problem: str
) -> None:
    known = {"$admin": fake.default_world.admin_id, "$org": fake.default_world.organization_id}
    response = browser.post(path, {name: known.get(v, v) for name, v in form.items()})
    assert response.status_code == status
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert problem in _problem(response)


def test_malformed_requests_get_4xx_pages(browser: Browser) -> None:
    browser.get("/")
    cases = [
        (
            browser.client.post(
                browser.ui + "/session",
                content=b"csrf=%ff%fe",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
            400,
            "not valid UTF-8",
        ),
        (
            browser.client.post(browser.ui + "/session", json={"user": "x"}),
            415,
            "send the form as a web browser does",
        ),
        (
            browser.client.post(
                browser.ui + "/session",
                content=b"a" * (65 * 1024),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
            413,
            "larger than 64 KiB",
        ),
        (browser.client.get(browser.ui + "/nowhere"), 404, "no such address"),
        (browser.client.get(browser.ui + "/?done=%zz"), 400, "malformed percent-escape"),
    ]
    for response, status, problem in cases:
        assert response.status_code == status
        assert problem.lower() in _problem(response).lower()
    wrong_method = browser.client.delete(browser.ui + "/tokens")
    assert wrong_method.status_code == 405
    assert wrong_method.headers["allow"] == "GET, HEAD, POST, OPTIONS"


def test_a_token_name_is_shown_as_text_never_as_markup(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    browser.post("/tokens", {"name": "<script>alert(1)</script>"})
    listing = browser.get("/tokens").text
    assert "<script>alert(1)</script>" not in listing
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing


def _create(browser: Browser, name: str) -> tuple[httpx.Response, str]:
    """Post the create form, follow its redirect: the reveal page and its address."""
    posted = browser.post("/tokens", {"name": name})
    assert posted.status_code == 303, posted.text
    assert "token-value" not in posted.text
    address = posted.headers["location"].removeprefix("/ui")
    assert address.startswith("/tokens/created?handle=")
    return browser.get(address), address


def _revealed(page: httpx.Response) -> str:
    value = re.search(r'id="token-value"[^>]*>([^<]+)</textarea>', page.text)
    assert value is not None, page.text
    return value.group(1)


def test_the_value_is_shown_by_one_load_of_the_reveal_page(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    created, address = _create(browser, "once")
    assert created.status_code == 200
    assert created.headers["cache-control"] == "no-store"
    secret = _revealed(created)
    again = browser.get(address)
    assert again.status_code == 410
    assert "The value was already shown" in again.text
    assert "once" in again.text
    assert secret not in again.text
    assert _hubs(fake, secret) == 200
    for path in ("/", "/tokens", "/approvals", "/inspector", "/inspector/requests"):
        assert secret not in browser.get(path).text
    assert all(secret not in entry.url for entry in fake.request_log)
    assert secret not in repr(fake.request_log)


def test_a_member_request_pends_until_an_admin_approves(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.member_id)
    created, _ = _create(browser, "pending one")
    assert "Token requested" in created.text
    value = _revealed(created)
    assert _hubs(fake, value) == 401
    assert "Pending approval" in browser.get("/tokens").text

    # The member may not approve their own request: the domain refuses, the page says so.
    record = next(
        r
        for r in fake.deployment.tokens_of(fake.default_world.member_id)
        if r.name == "pending one"
    )
    refused = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert refused.status_code == 403
    assert "Only an organization admin sees and decides token requests" in _problem(refused)
    assert _hubs(fake, value) == 401

    browser.act_as(fake.default_world.admin_id)
    assert "pending one" in browser.get("/approvals").text
    approved = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert approved.status_code == 303
    assert _hubs(fake, value) == 200
    again = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert again.status_code == 404
    assert "no longer pending" in _problem(again)


def test_an_admin_cannot_reject_a_token_that_is_not_pending(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    record = next(iter(fake.deployment.tokens_of(fake.default_world.member_id)))
    refused = browser.post("/approvals", {"id": record.id, "decision": "reject"})
    assert refused.status_code == 404
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_deleting_another_users_token_looks_like_an_unknown_one(
    fake: Fake, browser: Browser
) -> None:
    browser.act_as(fake.default_world.admin_id)
    record = next(iter(fake.deployment.tokens_of(fake.default_world.member_id)))
    for response in (
        browser.get(f"/tokens/delete?id={record.id}"),
        browser.post("/tokens/delete", {"id": record.id}),
    ):
        assert response.status_code == 404
        assert "not one of yours, or it was deleted already" in _problem(response)
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_the_latest_requests_leave_out_the_pages_own(fake: Fake, browser: Browser) -> None:
    _hubs(fake, fake.world["admin_token"])
    browser.get("/inspector")
    table = browser.get("/inspector/requests").text
    assert "/v2/content/hubs" in table
    assert '<code class="long">/ui' not in table
    assert fake.world["admin_token"] not in table


def test_the_inspector_lists_the_active_faults(fake: Fake, browser: Browser) -> None:
    assert "No fault rules: every request gets the real answer." in browser.get("/inspector").text
    fake.deployment.faults.add("hubs", status=503, retry_after=5, count=2)
    fake.deployment.faults.add("graphql", status=500, probability=0.5)
    fake.deployment.faults.set_rate_limit(True)
    _hubs(fake, fake.world["admin_token"])
    page = browser.get("/inspector").text
    assert "the hubs endpoint answers 503 with Retry-After 5, for the next 1 request" in page
    assert "the graphql endpoint answers 500, for half of the requests" in page
    assert "rate limit (60 requests per minute per key) is <strong>on</strong>" in page


@pytest.mark.parametrize(
    ("per_minute", "shown"),
    [(1200, "rate limit (1200 requests per minute per key)"), (None, "no limit in the active")],
)
def test_the_inspector_shows_the_rate_limit_of_the_active_profile(
    per_minute: int | None, shown: str
) -> None:
    profile = {"profile_version": 1, "rate_limit": {"requests_per_minute": per_minute}}
    with Fake(profile=profile) as fake:
        browser = Browser(fake)
        page = browser.get("/inspector").text
        browser.client.close()
    assert shown in page
    assert "60 requests per minute" not in page


ROUTES = (
    "/",
    "/session",
    "/tokens",
    "/tokens/delete",
    "/approvals",
    "/inspector",
    "/inspector/requests",
    "/inspector/users",
    "/inspector/clock",
)
BAD_BODIES = (b"", b"&&&", b"csrf", b"user=%", b"id=\x00", b"\xc3\x28", b"a=1&a=2", b"=" * 10)


@pytest.mark.parametrize("path", ROUTES)
def test_no_request_to_any_address_of_the_page_gets_a_5xx(
    fake: Fake, browser: Browser, path: str
) -> None:
    browser.act_as(fake.default_world.admin_id)
    requests = [
        (method, query, body, content_type)
        for method in ("GET", "POST", "PUT", "DELETE")
        for query in ("", "?id=%zz&done=x", "?id=unknown&done=pick")
        for body in BAD_BODIES
        for content_type in ("application/x-www-form-urlencoded", "text/plain")
    ]
    for method, query, body, content_type in requests:
        response = browser.client.request(
            method,
            browser.ui + path + query,
            content=body + b"&csrf=" + browser.csrf.encode(),
            headers={"Content-Type": content_type},
        )
        assert response.status_code < 500, (method, path, query, body)
        assert response.headers["content-type"].startswith("text/html")


HOSTILE = '<img src=x onerror="alert(1)">&amp;\'"'


def test_hostile_names_and_emails_are_text_on_every_page(fake: Fake, browser: Browser) -> None:
    user = fake.add_user(HOSTILE, f"{HOSTILE}@example.com", role="admin")
    fake.request_token_via_ui(fake.default_world.member_id, HOSTILE)
    fake.request_token_via_ui(user.id, HOSTILE)
    browser.act_as(user.id)
    pages = ["/", "/tokens", "/approvals", "/inspector"]
    row = fake.control.pending_requests()[0]
    pages.append(f"/tokens/delete?id={next(iter(fake.deployment.tokens_of(user.id))).id}")
    pages.append(f"/inspector/users/remove?user={user.id}&organization={row.organization_id}")
    for path in pages:
        text = browser.get(path).text
        assert "<img" not in text, path
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in text, path
